"""The game loop: find a game (one against bots, a quick match, a private game hosted
or joined by its code, or a game sat in already), follow it on its live stream, ask
for moves, and offer the next game with the same players at its end.

What happens at the table is shown as it comes, prompt or no prompt: a prompt
polls the keyboard and the stream in turn, counts the turn's deadline down, and is
given up as soon as the game moves on under it (a timeout, the seat handed to a
bot, another player's move), to be asked again from the new position if need be.
"""

from __future__ import annotations

import contextlib
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from unoclient.api import Api, ApiError, _api_error
from unoclient.identity import config_dir, login_name, sign_in
from unoclient.render import (
    CUSTOMIZABLE,
    Painter,
    clock_time,
    describe_event,
    describe_move,
    final_scores,
    seat_name,
    seconds_until,
    unrated_line,
)
from unoclient.sse import Message, StreamRefused
from unoclient.stream import RECONNECTED, RECONNECTING, StreamReader, auth_headers, stream_url
from unoclient.talk import HELP as TALK_HELP
from unoclient.talk import TableTalk
from unoclient.terminal import Screen, Terminal
from unoclient.verify import seeded

OUT_OF_TURN = ("catch_uno", "call_uno")
YES, NO = ("y", "yes"), ("n", "no")
# How often a prompt looks at the stream and redraws its countdown.
TICK = 0.2
# How long the loop waits on the stream when it has nothing to ask.
IDLE = 0.5
# How long a sent move waits for the stream to bring the change it made, so that its
# events are shown before the next prompt.
ECHO_WAIT = 3.0
# Answers the client survives by reading the game again: the game moved on (409),
# the seat went to a bot (403), the move no longer fits (422), no network (0).
RECOVERABLE = (0, 403, 409, 422)


@dataclass
class Console:
    """Where the client writes and how it asks; tests give their own screen."""

    screen: Screen = field(default_factory=Terminal)
    paint: Painter = field(default_factory=Painter)

    def say(self, line: str) -> None:
        self.screen.say(line)


@dataclass
class Options:
    server: str
    # The name to sign up with; None: the login name. A saved player keeps theirs.
    name: str | None = None
    bots: int = 3
    strategies: tuple[str, ...] = ("greedy",)
    rules: tuple[str, ...] = ()
    target_score: int = 500
    turn_timeout: int | None = None
    # How to find a game: against `bots` (none of these), a quick match, joining by
    # an invite code, hosting a private game, or going back to a game sat in.
    quick: bool = False
    code: str | None = None
    private: bool = False
    game: str | None = None
    players: int = 4  # the seats of a quick match or a private game
    bots_after: int | None = 30
    new_player: bool = False
    config: Path = field(default_factory=config_dir)
    # Against bots: partners (you and the bot across from you against the other two),
    # and whether partners see each other's hand; with `quick`, the partners queue,
    # with a friend as `partner` (their player id) when they name you too.
    partners: bool = False
    see_hands: bool = False
    partner: str | None = None
    # Against bots: the deck (classic_108 or modern_112) and its two options.
    deck: str = "classic_108"
    shuffle_hands_last_card: str = "redeal"
    wild_customizable: str = "wild"


class Stream(Protocol):
    def get(self, timeout: float) -> Message | StreamRefused | None: ...

    def stop(self) -> None: ...


class Abandoned(Exception):
    """The game changed under a prompt: an answer would be for a position gone."""


def start_game(api: Api, options: Options) -> dict[str, Any]:
    """A game against `options.bots` bots (three, as partners), started."""
    bots = 3 if options.partners else options.bots
    body: dict[str, Any] = {
        "max_players": bots + 1,
        "target_score": options.target_score,
        "rules": dict.fromkeys(options.rules, True),
    }
    if options.partners:
        body.update(mode="partners", partners_see_hands=options.see_hands)
    if options.deck == "modern_112":
        body.update(
            deck=options.deck,
            shuffle_hands_last_card=options.shuffle_hands_last_card,
            wild_customizable=options.wild_customizable,
        )
    if options.turn_timeout is not None:
        body["turn_timeout"] = options.turn_timeout
    game = api.post("/games", body)
    for number in range(bots):
        strategy = options.strategies[number % len(options.strategies)]
        api.post(f"/games/{game['id']}/bots", {"strategy": strategy})
    return dict(api.post(f"/games/{game['id']}/start", seeded({})))


def my_turn(view: dict[str, Any]) -> bool:
    you = view.get("you")
    if not you or view["status"] != "playing" or view.get("paused_until"):
        return False
    me, pending = you["seat"], view["pending"]
    return bool(pending["seat"] == me if pending else view["current_seat"] == me)


def show_table(view: dict[str, Any], console: Console) -> None:
    paint, me = console.paint, view["you"]["seat"]
    others = ", ".join(
        f"{seat_name(view['seats'], s['seat'], me)}: {s['card_count']}"
        + (" UNO" if s["said_uno"] else "")
        for s in view["seats"]
        if s["seat"] != me
    )
    console.say("")
    console.say(
        f"Top {paint.card(view['top_card'])}  colour {paint.color_name(view['current_color'])}"
        f"  going {view['direction']}  draw pile {view['draw_pile_count']}  |  {others}"
    )
    console.say(f"Your hand: {paint.cards(view['you']['hand'])}")
    partner = partner_of(view)
    if partner is not None:
        name = seat_name(view["seats"], partner, me)
        shown = view["you"].get("partner_hand")
        held = f": {paint.cards(shown)}" if shown else ""
        console.say(f"Your partner is {name}, across the table{held}")
    if view.get("deck") == "modern_112":
        effect = CUSTOMIZABLE.get(view.get("wild_customizable") or "wild", "")
        last = view.get("shuffle_hands_last_card")
        ending = "goes out" if last == "wins" else "is dealt out too"
        console.say(f"112 cards: Wild Customizable = {effect}; a last Shuffle Hands {ending}")


def partner_of(view: dict[str, Any]) -> int | None:
    """The seat across the table in a partners game; None in a classic one."""
    if view.get("mode") != "partners" or not view.get("you"):
        return None
    return (int(view["you"]["seat"]) + 2) % 4


class Session:
    """One game followed on its stream, from the first view to `end`."""

    def __init__(
        self,
        api: Api,
        console: Console,
        view: dict[str, Any],
        stream: Stream,
        *,
        seat: int | None = None,
        bot: str = "greedy",
    ) -> None:
        self.api = api
        self.console = console
        self.paint = console.paint
        self.stream = stream
        self.view = view
        self.game_id: str = view["id"]
        # The player's seat: the view's, or `seat` while a bot holds it.
        self.me: int = view["you"]["seat"] if view.get("you") else int(seat or 0)
        self.bot = bot  # the strategy of the bots a host adds before the start
        self.streamed_version = -1  # the newest view the stream itself has brought
        self.ended: dict[str, Any] | None = None
        self.pause_told: str | None = None
        self.talk = TableTalk(api, self.game_id, self.say, lambda: self.me)

    def say(self, line: str) -> None:
        self.console.say(line)

    # -- the stream ------------------------------------------------------------------------

    def pump(self, wait: float) -> None:
        """Show what the stream has brought, waiting up to `wait` s for its first message."""
        item = self.stream.get(wait)
        while item is not None:
            self._take(item)
            item = self.stream.get(0)

    def _take(self, item: Message | StreamRefused) -> None:
        if isinstance(item, StreamRefused):
            raise _api_error(item.status, item.body)
        kind = item.event
        if kind == "game":
            view = item.json()
            self.streamed_version = max(self.streamed_version, view["version"])
            self.adopt(view)
        elif kind == "end":
            self.ended = item.json() if item.data else {}
        elif kind == "message":
            if item.data:
                self.talk.show(item.json())
        elif kind == RECONNECTING:
            self.say("(Lost the connection to the server; trying again...)")
        elif kind == RECONNECTED:
            self.say("(Connected again.)")
        elif item.data and kind not in ("comment", "message"):
            event = item.json()
            line = describe_event(event, self.view["seats"], self.me, self.paint)
            if line:
                self.say(line)
            if kind == "game_paused":
                self.pause_told = event["data"].get("until")

    def adopt(self, view: dict[str, Any]) -> None:
        """Take `view` as the game now, unless an older one arrives late."""
        if view["version"] < self.view["version"]:
            return
        self.view = view
        if view.get("you"):
            self.me = view["you"]["seat"]  # seats move up when someone leaves a waiting game
        until = view.get("paused_until")
        if until and until != self.pause_told:
            self.pause_told = until
            self.say(f"The game is paused until {clock_time(until)}")

    def reread(self) -> None:
        try:
            self.adopt(self.api.get(f"/games/{self.game_id}"))
        except ApiError as error:
            if error.status != 0:
                raise  # without a network the stream brings the game back anyway

    # -- asking ----------------------------------------------------------------------------

    def ask(self, question: str, valid: Callable[[], bool]) -> str:
        """An answer to `question` while `valid()` holds; raises `Abandoned` as soon as
        the game ends or `valid()` no longer holds, answered or not. Table talk typed
        instead (`say gg`) is sent, and the question asked again."""
        self._check(valid)
        screen = self.console.screen
        screen.prompt(question)
        answer: str | None = None
        try:
            while True:
                screen.countdown(self.seconds_left())
                answer = screen.line(TICK)
                if answer is not None and self.talk.command(answer):
                    answer = None
                    screen.settle(True)
                    screen.prompt(question)
                self.pump(0)
                self._check(valid)
                if answer is not None:
                    return answer.strip()
        finally:
            screen.settle(answer is not None)

    def yes_no(self, question: str, valid: Callable[[], bool]) -> bool:
        while True:
            answer = self.ask(f"{question} [y/n] ", valid).lower()
            if answer in YES:
                return True
            if answer in NO:
                return False
            self.say("Please answer y (yes) or n (no).")

    def pick(self, question: str, count: int, valid: Callable[[], bool]) -> int:
        """A number from 1 to `count`, asked until one comes."""
        while True:
            answer = self.ask(question, valid)
            if answer.isdigit() and 1 <= int(answer) <= count:
                return int(answer)
            self.say("Type the number of a move.")

    def still_at(self, version: int) -> Callable[[], bool]:
        return lambda: self.view["version"] == version

    def seconds_left(self) -> int | None:
        return seconds_until(self.view.get("turn_deadline")) if my_turn(self.view) else None

    def _check(self, valid: Callable[[], bool]) -> None:
        if self.ended is not None or not valid():
            raise Abandoned

    # -- the game --------------------------------------------------------------------------

    def handed_over(self) -> bool:
        """Whether a bot plays the player's seat (after their timeouts)."""
        view = self.view
        seat = view["seats"][self.me] if self.me < len(view["seats"]) else {}
        return view["status"] == "playing" and not view.get("you") and bool(seat.get("bot"))

    def run(self) -> int:
        # What led to the first view (the start, the deal) is shown before anything
        # is asked of it.
        self.await_stream(self.view["version"])
        declined = -1
        while True:
            self.pump(0)
            if self.ended is not None:
                return self.finish()
            view = self.view
            if self.handed_over():
                self.offer_seat_back()
                continue
            if self.hosting():
                self.host_lobby()
                continue
            moves = view["you"]["legal_moves"] if view.get("you") else []
            mine = my_turn(view)
            optional = (
                not mine
                and view["status"] == "playing"
                and any(m["action"] in OUT_OF_TURN for m in moves)
            )
            if not (mine or (optional and declined != view["version"])):
                self.pump(IDLE)
                continue
            try:
                if mine:
                    show_table(view, self.console)
                move = choose(view, self, self.still_at(view["version"]))
            except Abandoned:
                continue
            if move is None:
                declined = view["version"]  # asked once: not again for this position
                continue
            self.send(view, move)

    def send(self, view: dict[str, Any], move: dict[str, Any]) -> None:
        try:
            if move["action"] in ("challenge", "accept"):
                body = {"version": view["version"], "challenge": move["action"] == "challenge"}
                answer = self.api.post(f"/games/{self.game_id}/challenge", body)
            else:
                body = {"version": view["version"], **move}
                answer = self.api.post(f"/games/{self.game_id}/moves", body)
        except ApiError as error:
            if error.status not in RECOVERABLE:
                raise
            self.say(f"({error.message})")  # the game moved on: look again
            self.reread()
            return
        self.await_stream(answer["game"]["version"])
        self.adopt(answer["game"])

    def await_stream(self, version: int) -> None:
        """Show the events of a change before anything is asked after it."""
        deadline = time.monotonic() + ECHO_WAIT
        while self.streamed_version < version and self.ended is None:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self.pump(min(left, TICK))

    def offer_seat_back(self) -> None:
        try:
            answer = self.ask("Type r and Enter to take your seat back: ", self.handed_over)
        except Abandoned:
            return
        if answer.lower() not in ("r", "resume"):
            self.say("Type r to take your seat back (Ctrl-C quits).")
            return
        try:
            view = self.api.post(f"/games/{self.game_id}/resume")
        except ApiError as error:
            if error.status not in RECOVERABLE:
                raise
            self.say(f"({error.message})")
            self.reread()
            return
        self.await_stream(view["version"])
        self.adopt(view)

    def hosting(self) -> bool:
        """Whether the player hosts a waiting game that they start themselves (a quick
        match starts by itself)."""
        view = self.view
        if view["status"] != "waiting" or view.get("quick_match") or not view.get("you"):
            return False
        player = view["seats"][self.me].get("player") or {}
        return bool(player.get("id") == (view.get("host") or {}).get("id"))

    def host_lobby(self) -> None:
        """Asks the host to add a bot or start, again after each change of the table."""
        view = self.view
        seated = sum(1 for s in view["seats"] if s["player"] or s["bot"])
        question = (
            f"{seated} of {view['max_players']} seats taken. "
            "Type b and Enter to add a bot, s to start (or wait for players): "
        )
        try:
            answer = self.ask(question, self.still_at(view["version"])).lower()
        except Abandoned:
            return
        if answer in ("b", "bot"):
            self.ask_server(f"/games/{self.game_id}/bots", {"strategy": self.bot})
        elif answer in ("s", "start"):
            self.ask_server(f"/games/{self.game_id}/start", seeded({}))
        else:
            self.say("Type b to add a bot or s to start (Ctrl-C quits).")

    def ask_server(self, path: str, body: Any = None) -> None:
        """A change asked of the game outside a move; what it did comes by the stream."""
        try:
            self.api.post(path, body)
        except ApiError as error:
            if error.status not in RECOVERABLE:
                raise
            self.say(f"({error.message})")
        self.reread()

    def finish(self) -> int:
        status = (self.ended or {}).get("status") or self.view["status"]
        self.say(f"Final scores: {final_scores(self.view['seats'], self.me)}")
        unrated = unrated_line(self.view)
        if unrated is not None:
            self.say(unrated)
        self.say(f"Game over ({status}).")
        return 0


def choose(
    view: dict[str, Any], session: Session, valid: Callable[[], bool]
) -> dict[str, Any] | None:
    """Ask for one of the legal moves; None when the player lets an optional one go."""
    you, paint = view["you"], session.paint
    moves, hand, me, seats = you["legal_moves"], you["hand"], you["seat"], view["seats"]
    actions = {m["action"] for m in moves}
    if {"challenge", "accept"} <= actions:
        accused = seat_name(seats, view["pending"].get("accused"), me)
        if session.yes_no(f"{accused} played a Wild Draw Four on you. Challenge it?", valid):
            return {"action": "challenge"}
        if not any(m["action"] == "play" for m in moves):  # no stacking: nothing else to do
            return {"action": "accept"}
        moves = [m for m in moves if m["action"] != "challenge"]
    if not my_turn(view):
        return _out_of_turn(moves, seats, me, session, valid)
    drawn = _drawn_card(view, moves)
    if drawn is not None:
        question = f"You drew {paint.card(drawn)}. Play it?"
        if not session.yes_no(question, valid):
            return {"action": "pass"}
        moves = [m for m in moves if m["action"] == "play"]
    if drawn is not None and len(moves) == 1:
        move = dict(moves[0])
    elif len(moves) == 1:
        # Nothing to choose between: a keypress goes on (Ctrl-C still quits).
        what = describe_move(moves[0], hand, seats, me, paint)
        session.ask(f"Press Enter to {what}: ", valid)
        move = dict(moves[0])
    else:
        for number, option in enumerate(moves, start=1):
            session.say(f"  {number}. {describe_move(option, hand, seats, me, paint)}")
        move = dict(moves[session.pick(f"Your move [1-{len(moves)}]: ", len(moves), valid) - 1])
    uno = move["action"] == "play" and len(hand) == 2
    if uno and session.yes_no("That leaves you one card. Say UNO?", valid):
        move["uno"] = True
    return move


def _drawn_card(view: dict[str, Any], moves: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The card just drawn, when the choice is only to play it or keep it."""
    pending = view["pending"]
    if not pending or pending["type"] != "drawn_card" or "card" not in pending:
        return None
    if {m["action"] for m in moves} != {"play", "pass"}:
        return None
    return dict(pending["card"])


def _out_of_turn(
    moves: list[dict[str, Any]],
    seats: list[dict[str, Any]],
    me: int,
    session: Session,
    valid: Callable[[], bool],
) -> dict[str, Any] | None:
    for move in moves:
        if move["action"] == "catch_uno":
            question = f"{seat_name(seats, move['target'], me)} did not say UNO. Catch them?"
        elif move["action"] == "call_uno":
            question = "You have one card left. Say UNO now?"
        else:
            continue
        if session.yes_no(question, valid):
            return dict(move)
    return None


def play(api: Api, options: Options, console: Console) -> int:
    """Play a game to its end, then the next with the same players for as long as the
    player wants another; returns the exit status."""
    name = options.name or login_name()
    me = sign_in(api, name=name, directory=options.config, fresh=options.new_player)
    greeting = "Welcome back" if me["returning"] else "Signed up as a new player"
    console.say(f"{greeting}, {me['name']}.")
    if me["returning"] and options.name and options.name != me["name"]:
        asked = shlex.quote(options.name)
        console.say(
            f"--name {asked} is not used: you play as {me['name']}, the player saved for"
            f" this server. To play as {options.name}, add --new-player --name {asked}."
        )
    view, after = find_game(api, options, console)
    while True:
        status = follow(api, console, view, me["id"], options, after=after)
        if status != 0:
            return status
        following = play_again(api, console, view["id"], me["id"])
        if following is None:
            return status
        view, after = following, 0


def find_game(api: Api, options: Options, console: Console) -> tuple[dict[str, Any], int]:
    """The first view of the game the options ask for, and the seq its stream is
    read after (0: every event of a new game is shown)."""
    if options.game:
        view = api.get(f"/games/{options.game}")
        return view, int(view["last_seq"])  # from now on: the past is not replayed
    if options.code:
        view = api.post("/games/join", seeded({"code": options.code}))
        console.say(f"You joined {view['host']['name']}'s private game.")
        return view, 0
    settings: dict[str, Any] = {
        "max_players": options.players,
        "target_score": options.target_score,
        "rules": dict.fromkeys(options.rules, True),
    }
    if options.quick:
        settings["bots_after"] = options.bots_after
        if options.partners:  # the partners queue: four seats, with a friend or not
            settings.update(max_players=4, mode="partners")
            if options.partner is not None:
                settings["partner"] = options.partner
        return api.post("/matchmaking", seeded(settings)), 0
    if options.private:
        if options.turn_timeout is not None:
            settings["turn_timeout"] = options.turn_timeout
        return api.post("/games", {**settings, "visibility": "private"}), 0
    return start_game(api, options), 0


def seat_of(view: dict[str, Any], player_id: str) -> int | None:
    """The player's seat, theirs still while a bot holds it after their timeouts."""
    if view.get("you"):
        return int(view["you"]["seat"])
    for seat in view["seats"]:
        if (seat.get("player") or {}).get("id") == player_id:
            return int(seat["seat"])
    return None


def show_waiting(view: dict[str, Any], console: Console) -> None:
    """What a waiting game waits for; a private game's invite code, to pass on."""
    if view["status"] != "waiting":
        return
    code = view.get("invite_code")
    if code:
        shown = f"{code[:4]}-{code[4:]}"
        console.say("=" * 40)
        console.say(f"  Invite code: {shown}")
        console.say(f"  Friends join with: python -m unoclient play --code {shown}")
        console.say("=" * 40)
    if view.get("quick_match"):
        seconds = seconds_until(view.get("bots_at"))
        later = f" (bots after {seconds} s)" if seconds is not None else ""
        console.say(f"Waiting for players…{later}")
    elif view["host"]["id"] != (view["seats"][view["you"]["seat"]]["player"] or {}).get("id"):
        console.say(f"Waiting for {view['host']['name']} to start the game…")


def follow(
    api: Api,
    console: Console,
    view: dict[str, Any],
    player_id: str,
    options: Options,
    *,
    after: int,
) -> int:
    """Play the game of `view` on its stream, from its events after `after`."""
    game_id, me = view["id"], seat_of(view, player_id)
    if me is None:
        console.say(f"You have no seat in game {game_id}.")
        return 1
    console.say(f"Game {game_id}: you are seat {me}. Ctrl-C to quit (--game {game_id} returns).")
    console.say(TALK_HELP)
    if view.get("you"):
        show_waiting(view, console)
    stream = StreamReader(stream_url(api.base, game_id), auth_headers(api.token), after=after)
    session = Session(api, console, view, stream.start(), seat=me, bot=options.strategies[0])
    try:
        return session.run()
    except KeyboardInterrupt:
        if session.view["status"] == "waiting" and session.view.get("quick_match"):
            with contextlib.suppress(ApiError):  # nobody should wait for one gone
                api.post("/matchmaking/cancel")
        raise
    finally:
        stream.stop()


def play_again(api: Api, console: Console, game_id: str, player_id: str) -> dict[str, Any] | None:
    """The next game with the same players and settings, if the player wants one:
    joined when another player asked for it first, else created."""
    view = api.get(f"/games/{game_id}")
    if view.get("rematch"):
        question = f"{rematch_asker(api, view)} wants to play again. Join? [y/N] "
    else:
        question = "Play again? [y/N] "
    try:
        again = read_line(console, question).lower() in YES
    except EOFError:  # input that ended with the game: no for an answer
        again = False
    if not again:
        return None
    try:
        rematch: dict[str, Any] = api.post(f"/games/{game_id}/rematch")
    except ApiError as error:
        if error.status not in (403, 409):
            raise
        console.say(f"No rematch: {error.message}")
        return None
    host = rematch["host"]
    if host["id"] == player_id:
        console.say("You host the next game.")
    else:
        console.say(f"You joined {host['name']}'s next game.")
    return rematch


def rematch_asker(api: Api, view: dict[str, Any]) -> str:
    """Who asked for the rematch of a game over: the log ends with their offer."""
    try:
        answer = api.get(f"/games/{view['id']}/events?after={max(0, view['last_seq'] - 1)}")
    except ApiError:
        return "Another player"
    for event in reversed(answer.get("events") or []):
        if event["type"] == "rematch_offered":
            return str((event["data"].get("by") or {}).get("name") or "Another player")
    return "Another player"


def read_line(console: Console, question: str) -> str:
    """An answer to a question asked with no game going on."""
    screen = console.screen
    screen.prompt(question)
    answer: str | None = None
    try:
        while answer is None:
            screen.countdown(None)
            answer = screen.line(TICK)
    finally:
        screen.settle(answer is not None)
    return answer.strip()
