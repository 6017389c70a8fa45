"""The game loop: create a game against bots, follow it on its live stream, ask for moves.

What happens at the table is shown as it comes, prompt or no prompt: a prompt
polls the keyboard and the stream in turn, counts the turn's deadline down, and is
given up as soon as the game moves on under it (a timeout, the seat handed to a
bot, another player's move), to be asked again from the new position if need be.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from unoclient.api import Api, ApiError, _api_error
from unoclient.render import (
    Painter,
    clock_time,
    describe_event,
    describe_move,
    final_scores,
    seat_name,
    seconds_until,
)
from unoclient.sse import Message, StreamRefused
from unoclient.stream import RECONNECTED, RECONNECTING, StreamReader, auth_headers, stream_url
from unoclient.terminal import Screen, Terminal

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
    name: str
    bots: int = 3
    strategies: tuple[str, ...] = ("greedy",)
    rules: tuple[str, ...] = ()
    target_score: int = 500
    turn_timeout: int | None = None


class Stream(Protocol):
    def get(self, timeout: float) -> Message | StreamRefused | None: ...

    def stop(self) -> None: ...


class Abandoned(Exception):
    """The game changed under a prompt: an answer would be for a position gone."""


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


class Session:
    """One game followed on its stream, from the first view to `end`."""

    def __init__(self, api: Api, console: Console, view: dict[str, Any], stream: Stream) -> None:
        self.api = api
        self.console = console
        self.paint = console.paint
        self.stream = stream
        self.view = view
        self.game_id: str = view["id"]
        self.me: int = view["you"]["seat"]
        self.streamed_version = -1  # the newest view the stream itself has brought
        self.ended: dict[str, Any] | None = None
        self.pause_told: str | None = None

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
        the game ends or `valid()` no longer holds, answered or not."""
        self._check(valid)
        screen = self.console.screen
        screen.prompt(question)
        answer: str | None = None
        try:
            while True:
                screen.countdown(self.seconds_left())
                answer = screen.line(TICK)
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
        declined = -1
        while True:
            self.pump(0)
            if self.ended is not None:
                return self.finish()
            view = self.view
            if self.handed_over():
                self.offer_seat_back()
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

    def finish(self) -> int:
        status = (self.ended or {}).get("status") or self.view["status"]
        self.say(f"Final scores: {final_scores(self.view['seats'], self.me)}")
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
    """Play one game to its end; returns the exit status."""
    view = start_game(api, options)
    game_id, me = view["id"], view["you"]["seat"]
    console.say(f"Game {game_id}: you are seat {me}. Ctrl-C to quit.")
    # After 0: the events that started the game are shown too.
    url = stream_url(api.base, game_id)
    stream = StreamReader(url, auth_headers(api.token), after=0).start()
    try:
        return Session(api, console, view, stream).run()
    finally:
        stream.stop()
