"""Stand-ins for the client's screen, stream and API, for tests that play scenes
without a server."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from typing import Any

from unoclient.api import ApiError
from unoclient.sse import Message, StreamRefused

R5 = {"id": 5, "code": "R5", "color": "red", "kind": "number", "number": 5}
R7 = {"id": 7, "code": "R7", "color": "red", "kind": "number", "number": 7}
B2 = {"id": 30, "code": "B2", "color": "blue", "kind": "number", "number": 2}
WILD = {"id": 100, "code": "W", "color": None, "kind": "wild", "number": None}


def typical_answer(question: str) -> str:
    """Take the first move, say UNO, play what was drawn, challenge nothing, and
    take a seat back whenever it is offered."""
    if "Challenge" in question:
        return "n"
    if "UNO" in question or "Play it?" in question or "Catch" in question:
        return "y"
    if "seat back" in question:
        return "r"
    return "1"


class Scripted:
    """A player at the keyboard, as the play loop's screen.

    Each prompt is answered by `answer(question)`; an answer None leaves the prompt
    unanswered (the player thinks) for as many polls as it takes something else to
    happen. `on_poll(n, question)` runs at each poll of a prompt, for scenes in
    which the game moves on while the player thinks.
    """

    def __init__(
        self,
        answer: Callable[[str], str | None] = typical_answer,
        on_poll: Callable[[int, str], None] | None = None,
        *,
        polls: int = 50,
        tick: float = 0.0,
    ) -> None:
        self.answer = answer
        self.on_poll = on_poll
        self.polls = polls
        self.tick = tick
        self.lines: list[str] = []  # what was said and asked, in order
        self.said: list[str] = []
        self.questions: list[str] = []
        self.countdowns: list[int | None] = []
        self.settled: list[bool] = []
        self._question: str | None = None
        self._polled = 0

    def say(self, line: str) -> None:
        self.lines.append(line)
        self.said.append(line)

    def prompt(self, question: str) -> None:
        self.questions.append(question)
        self.lines.append(question)
        self._question = question
        self._polled = 0

    def countdown(self, seconds: int | None) -> None:
        self.countdowns.append(seconds)

    def line(self, timeout: float) -> str | None:
        assert self._question is not None, "a line was read with no prompt on screen"
        self._polled += 1
        if self.on_poll is not None:
            self.on_poll(self._polled, self._question)
        answer = self.answer(self._question)
        if answer is None:
            assert self._polled < self.polls, f"nothing happened at {self._question!r}"
            time.sleep(self.tick)
        return answer

    def settle(self, answered: bool) -> None:
        self.settled.append(answered)
        self._question = None


class FakeStream:
    """A stream whose messages the test queues (`push`), handed out in order; a `late`
    stream brings nothing for its first `late` reads, as a real one just opened."""

    def __init__(self, *items: Message | StreamRefused, late: int = 0) -> None:
        self.items: list[Message | StreamRefused] = list(items)
        self.stopped = False
        self.late = late

    def push(self, *items: Message | StreamRefused) -> None:
        self.items.extend(items)

    def get(self, timeout: float) -> Message | StreamRefused | None:
        if self.late > 0:
            self.late -= 1
            return None
        if self.items:
            return self.items.pop(0)
        assert timeout < 5, "the client waited on a stream with nothing left to come"
        return None

    def stop(self) -> None:
        self.stopped = True


class FakeApi:
    """The calls the client makes, answered by `answers[(method, path)]`: a value,
    an ApiError to raise, or a function of the body."""

    def __init__(self, answers: dict[tuple[str, str], Any] | None = None) -> None:
        self.answers = dict(answers or {})
        self.calls: list[tuple[str, str, Any]] = []
        self.base = "http://fake/api/v1"
        self.token = "t"

    def _answer(self, method: str, path: str, body: Any) -> Any:
        self.calls.append((method, path, body))
        answer = self.answers[(method, path)]
        if isinstance(answer, ApiError):
            raise answer
        return answer(body) if callable(answer) else copy.deepcopy(answer)

    def get(self, path: str) -> Any:
        return self._answer("GET", path, None)

    def post(self, path: str, body: Any = None) -> Any:
        return self._answer("POST", path, {} if body is None else body)


def game_view(
    version: int,
    *,
    current: int = 1,
    hand: list[dict[str, Any]] | None = None,
    moves: list[dict[str, Any]] | None = None,
    pending: dict[str, Any] | None = None,
    deadline: str | None = None,
    paused_until: str | None = None,
    my_seat_bot: str | None = None,
    status: str = "playing",
    scores: tuple[int, int] = (0, 0),
) -> dict[str, Any]:
    """A two-seat game: Ann (the player) at seat 0, a greedy bot at seat 1."""
    seated = my_seat_bot is None
    you = (
        {"seat": 0, "hand": hand if hand is not None else [R5, B2], "legal_moves": moves or []}
        if seated
        else None
    )
    return {
        "id": "g1",
        "status": status,
        "version": version,
        "seats": [
            {
                "seat": 0,
                "player": {"id": "p", "name": "Ann"},
                "bot": my_seat_bot,
                "card_count": 2,
                "score": scores[0],
                "said_uno": False,
                "timeouts": 0,
            },
            {
                "seat": 1,
                "player": None,
                "bot": "greedy",
                "card_count": 5,
                "score": scores[1],
                "said_uno": False,
                "timeouts": 0,
            },
        ],
        "round": 1,
        "current_seat": current,
        "direction": "clockwise",
        "current_color": "red",
        "top_card": R7,
        "draw_pile_count": 80,
        "pending": pending,
        "turn_deadline": deadline,
        "paused_until": paused_until,
        "winner": None,
        "last_seq": version,
        "you": you,
    }


def view_message(view: dict[str, Any]) -> Message:
    return Message("game", json.dumps(view), str(view["last_seq"]))


def event_message(seq: int, kind: str, seat: int | None, **data: Any) -> Message:
    event = {"seq": seq, "at": "", "round": 1, "type": kind, "seat": seat, "data": data}
    return Message(kind, json.dumps(event), str(seq))


def end_message(status: str = "finished", winner: int | None = 1) -> Message:
    return Message("end", json.dumps({"status": status, "winner": winner, "last_seq": 0}))
