"""The game loop: create a game against bots, show what happens, ask for moves."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from unoclient.api import Api, ApiError
from unoclient.render import Painter, describe_event, describe_move, seat_name

LONG_POLL_SECONDS = 25
OUT_OF_TURN = ("catch_uno", "call_uno")


@dataclass
class Console:
    """Where the client writes and how it asks; tests give their own."""

    say: Callable[[str], None] = print
    ask: Callable[[str], str] = input
    paint: Painter = field(default_factory=Painter)


@dataclass
class Options:
    server: str
    name: str
    bots: int = 3
    strategies: tuple[str, ...] = ("greedy",)
    rules: tuple[str, ...] = ()
    target_score: int = 500
    turn_timeout: int | None = None


def start_game(api: Api, options: Options) -> dict[str, Any]:
    player = api.post("/players", {"name": options.name})
    api.token = player["token"]
    body: dict[str, Any] = {
        "max_players": options.bots + 1,
        "target_score": options.target_score,
        "rules": dict.fromkeys(options.rules, True),
    }
    if options.turn_timeout is not None:
        body["turn_timeout"] = options.turn_timeout
    game = api.post("/games", body)
    for number in range(options.bots):
        strategy = options.strategies[number % len(options.strategies)]
        api.post(f"/games/{game['id']}/bots", {"strategy": strategy})
    return dict(api.post(f"/games/{game['id']}/start"))


def my_turn(view: dict[str, Any]) -> bool:
    me = view["you"]["seat"]
    pending = view["pending"]
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


def choose(view: dict[str, Any], console: Console) -> dict[str, Any] | None:
    """Ask for one of the legal moves; None when the player lets an optional one go."""
    you = view["you"]
    moves, hand, me, seats = you["legal_moves"], you["hand"], you["seat"], view["seats"]
    actions = {m["action"] for m in moves}
    if {"challenge", "accept"} <= actions:
        accused = seat_name(seats, view["pending"].get("accused"), me)
        answer = console.ask(f"{accused} played a Wild Draw Four on you. Challenge it? [y/N] ")
        if answer.strip().lower().startswith("y"):
            return {"action": "challenge"}
        plays = [m for m in moves if m["action"] == "play"]  # stacking
        if not plays:
            return {"action": "accept"}
    if not my_turn(view):
        return _out_of_turn(moves, seats, me, console)
    for number, move in enumerate(moves, start=1):
        console.say(f"  {number}. {describe_move(move, hand, seats, me, console.paint)}")
    while True:
        answer = console.ask(f"Your move [1-{len(moves)}]: ").strip()
        if answer.isdigit() and 1 <= int(answer) <= len(moves):
            move = dict(moves[int(answer) - 1])
            break
        console.say("Type the number of a move.")
    if move["action"] == "play" and len(hand) == 2:
        said = console.ask("That leaves you one card. Say UNO? [Y/n] ")
        if not said.strip().lower().startswith("n"):
            move["uno"] = True
    return move


def _out_of_turn(
    moves: list[dict[str, Any]], seats: list[dict[str, Any]], me: int, console: Console
) -> dict[str, Any] | None:
    for move in moves:
        if move["action"] == "catch_uno":
            question = f"{seat_name(seats, move['target'], me)} did not say UNO. Catch them?"
        elif move["action"] == "call_uno":
            question = "You have one card left. Say UNO now?"
        else:
            continue
        if console.ask(f"{question} [Y/n] ").strip().lower() != "n":
            return dict(move)
    return None


def send(api: Api, game_id: str, view: dict[str, Any], move: dict[str, Any]) -> None:
    if move["action"] in ("challenge", "accept"):
        body = {"version": view["version"], "challenge": move["action"] == "challenge"}
        api.post(f"/games/{game_id}/challenge", body)
    else:
        api.post(f"/games/{game_id}/moves", {"version": view["version"], **move})


def show_events(
    api: Api, game_id: str, after: int, wait: int, view: dict[str, Any], console: Console
) -> int:
    """Print the events after `after` (waiting up to `wait` s for one); the last seq."""
    page = api.get(f"/games/{game_id}/events?after={after}&wait={wait}")
    for event in page["events"]:
        line = describe_event(event, view["seats"], view["you"]["seat"], console.paint)
        if line:
            console.say(line)
        after = event["seq"]
    return after


def play(api: Api, options: Options, console: Console) -> int:
    """Play one game to its end; returns the exit status."""
    view = start_game(api, options)
    game_id, me = view["id"], view["you"]["seat"]
    console.say(f"Game {game_id}: you are seat {me}. Ctrl-C to quit.")
    after, declined = 0, -1
    while True:
        wait = 0 if (my_turn(view) and view["status"] == "playing") else LONG_POLL_SECONDS
        after = show_events(api, game_id, after, wait, view, console)
        view = api.get(f"/games/{game_id}")
        if view["status"] != "playing":
            show_events(api, game_id, after, 0, view, console)  # how it ended
            console.say(f"Game over ({view['status']}).")
            return 0
        moves = view["you"]["legal_moves"]
        optional = not my_turn(view) and any(m["action"] in OUT_OF_TURN for m in moves)
        if not (my_turn(view) or optional) or (optional and declined == view["version"]):
            continue
        if my_turn(view):
            show_table(view, console)
        move = choose(view, console)
        if move is None:
            declined = view["version"]  # asked once: do not ask again for this position
            continue
        try:
            send(api, game_id, view, move)
        except ApiError as error:
            if error.status in (0, 409, 422):
                console.say(f"({error.message})")  # the game moved on: look again
                continue
            raise
