"""`python -m unoclient play`: play UNO in a terminal, against bots or with other people.
`python -m unoclient keep --email ADDRESS`: keep this player by linking an email
address; `python -m unoclient sign-in --email ADDRESS`: play here as the player who
linked it (each by a code mailed to the address); `python -m unoclient verify GAME_ID`:
check a finished game's deal and moves from its revealed log (docs/fairness.md)."""

from __future__ import annotations

import argparse
import os
import sys

from unoclient import verify as checking
from unoclient.api import Api, ApiError
from unoclient.identity import config_dir, link_email, login_name, sign_in_by_email
from unoclient.play import Console, Options, play
from unoclient.render import CUSTOMIZABLE, Painter
from unoclient.terminal import Terminal

HOUSE_RULES = ("stacking", "seven_o", "jump_in", "draw_until_playable", "force_play")
STRATEGIES = ("random", "greedy", "expert")


def rule_list(raw: str) -> tuple[str, ...]:
    rules = tuple(r.strip() for r in raw.split(",") if r.strip())
    unknown = [r for r in rules if r not in HOUSE_RULES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown house rule(s) {unknown}; choose from {HOUSE_RULES}"
        )
    return rules


def strategy_list(raw: str) -> tuple[str, ...]:
    strategies = tuple(s.strip() for s in raw.split(",") if s.strip())
    if not strategies or any(s not in STRATEGIES for s in strategies):
        raise argparse.ArgumentTypeError(f"bots are {', '.join(STRATEGIES)}")
    return strategies


def bots_after(raw: str) -> int | None:
    if raw == "never":
        return None
    if not raw.isdigit() or not 5 <= int(raw) <= 600:
        raise argparse.ArgumentTypeError("seconds from 5 to 600, or 'never'")
    return int(raw)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m unoclient", description=__doc__)
    commands = top.add_subparsers(dest="command", required=True)
    game = commands.add_parser("play", help="play a game against bots or with other people")
    game.add_argument("--server", default=os.environ.get("UNO_SERVER", "http://127.0.0.1:8000"))
    game.add_argument(
        "--name",
        default=None,
        help="the name of a player signed up now (the first time, or with --new-player);"
        " your login name by default",
    )
    game.add_argument("--bots", type=int, default=3, choices=range(1, 10), metavar="1-9")
    game.add_argument(
        "--strategy",
        type=strategy_list,
        default=("greedy",),
        help="bot strategy, or a comma-separated list used in turn (random, greedy, expert)",
    )
    game.add_argument(
        "--rules",
        type=rule_list,
        default=(),
        help=f"house rules to turn on, comma-separated: {', '.join(HOUSE_RULES)}",
    )
    game.add_argument("--target-score", type=int, default=500, help="0 plays a single round")
    game.add_argument("--turn-timeout", type=int, default=None, help="seconds per turn")
    game.add_argument("--no-color", action="store_true", help="cards as [R5] instead of colour")
    game.add_argument(
        "--partners",
        action="store_true",
        help="2 v 2: against bots, you and the bot across the table against the other two; "
        "with --quick, the partners queue",
    )
    game.add_argument(
        "--partner",
        metavar="PLAYER_ID",
        help="with --quick --partners: a friend's player id, to sit on one team (they name you)",
    )
    game.add_argument(
        "--see-hands", action="store_true", help="with --partners: partners see each other's hand"
    )
    game.add_argument(
        "--deck",
        choices=tuple(checking.DECKS),
        default="classic_108",
        help="against bots: the classic 108 cards, or the modern 112 with Wild Shuffle Hands "
        "and Wild Customizable",
    )
    game.add_argument(
        "--wild-customizable",
        choices=tuple(CUSTOMIZABLE),
        default="wild",
        help="with --deck modern_112: what the Wild Customizable cards do",
    )
    game.add_argument(
        "--shuffle-hands-last-card",
        choices=("redeal", "wins"),
        default="redeal",
        help="with --deck modern_112: a last Wild Shuffle Hands is dealt out, or goes out",
    )
    find = game.add_mutually_exclusive_group()
    find.add_argument("--quick", action="store_true", help="quick match: play whoever is waiting")
    find.add_argument("--code", help="join a friend's private game by its invite code")
    find.add_argument(
        "--private", action="store_true", help="host a private game; friends join by its code"
    )
    find.add_argument("--game", metavar="ID", help="go back to a game you sit in")
    game.add_argument(
        "--players",
        type=int,
        default=4,
        choices=range(2, 11),
        metavar="2-10",
        help="seats of a quick match or a private game",
    )
    game.add_argument(
        "--bots-after",
        type=bots_after,
        default=30,
        metavar="SECONDS",
        help="quick match: bots fill the empty seats after 5-600 s, or 'never'",
    )
    game.add_argument(
        "--new-player",
        action="store_true",
        help="sign up afresh instead of reusing the player saved for this server",
    )
    verify = commands.add_parser(
        "verify", help="check a finished game's deal, every shuffle and every move"
    )
    verify.add_argument("game", nargs="?", metavar="GAME_ID", help="the game to fetch and check")
    verify.add_argument("--file", help="check a saved log (the answer of GET /games/{id}/log)")
    verify.add_argument("--code", help="a private game's invite code")
    verify.add_argument("--server", default=os.environ.get("UNO_SERVER", "http://127.0.0.1:8000"))
    for command, help_text in (
        ("keep", "keep this player: link an email address, by a code mailed to it"),
        ("sign-in", "play here as the player who linked an email address (a code is mailed)"),
    ):
        account = commands.add_parser(command, help=help_text)
        account.add_argument(
            "--server", default=os.environ.get("UNO_SERVER", "http://127.0.0.1:8000")
        )
        account.add_argument("--email", required=True)
    return top


def account(args: argparse.Namespace) -> int:
    """`keep` and `sign-in`: the code is read from the person at the terminal."""
    api = Api(args.server)
    try:
        if args.command == "keep":
            linked = link_email(
                api, email=args.email, name=login_name(), directory=config_dir(), ask=input
            )
            print(f"Kept: sign in with {linked['email']} on any device.")
        else:
            me = sign_in_by_email(api, email=args.email, directory=config_dir(), ask=input)
            print(f"Signed in as {me['name']}: `python -m unoclient play` plays as them.")
    except ApiError as error:
        print(f"The server said: {error.message}", file=sys.stderr)
        return 1
    return 0


def verify(args: argparse.Namespace) -> int:
    """`verify`: every step printed as it holds; the first that does not, and 1."""
    if (args.game is None) == (args.file is None):
        print("Give a GAME_ID or --file, one of the two.", file=sys.stderr)
        return 2
    try:
        log = checking.load(path=args.file, game_id=args.game, server=args.server, code=args.code)
        checking.check(log)
    except ApiError as error:
        print(f"The server said: {error.message}", file=sys.stderr)
        return 1
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError) as error:
        print(f"Not a log this can read: {error}", file=sys.stderr)
        return 1
    except checking.Failed as failed:
        print(f"FAILED at {failed.step}: {failed.why}")
        return 1
    print("The deal and every move check out.")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command in ("keep", "sign-in"):
        return account(args)
    if args.command == "verify":
        return verify(args)
    options = Options(
        server=args.server,
        name=args.name,
        bots=args.bots,
        strategies=args.strategy,
        rules=args.rules,
        target_score=args.target_score,
        turn_timeout=args.turn_timeout,
        quick=args.quick,
        code=args.code,
        private=args.private,
        game=args.game,
        players=args.players,
        bots_after=args.bots_after,
        new_player=args.new_player,
        partners=args.partners,
        see_hands=args.see_hands,
        partner=args.partner,
        deck=args.deck,
        shuffle_hands_last_card=args.shuffle_hands_last_card,
        wild_customizable=args.wild_customizable,
    )
    console = Console(
        screen=Terminal(), paint=Painter(color=not args.no_color and sys.stdout.isatty())
    )
    try:
        return play(Api(args.server), options, console)
    except KeyboardInterrupt:
        print("\nBye.")
        return 130
    except EOFError:
        print("\nNo more input: leaving the game.", file=sys.stderr)
        return 1
    except ApiError as error:
        print(f"The server said: {error}", file=sys.stderr)
        return 1
