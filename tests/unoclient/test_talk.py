"""Table talk in the terminal: the others' messages come as lines of the table's log,
each once; at any prompt `say gg` or `emote laugh` is sent instead of answering and
the prompt is asked again; what the service refuses is said plainly; and the stream
reader, which keeps the last message id, reconnects after it."""

from __future__ import annotations

import io
import json
import time
from typing import Any

import pytest

from games.talk.catalogue import catalogue_json
from tests.unoclient.fakes import (
    R5,
    FakeApi,
    FakeStream,
    Scripted,
    end_message,
    game_view,
    view_message,
)
from unoclient.api import ApiError
from unoclient.play import Console, Session
from unoclient.render import Painter
from unoclient.sse import Message
from unoclient.stream import StreamReader
from unoclient.talk import TableTalk, find

PLAY_R5 = {"action": "play", "card": R5["id"]}
DRAW = {"action": "draw"}
MOVES_PATH = ("POST", "/games/g1/moves")
MESSAGES_PATH = ("POST", "/games/g1/messages")
CATALOGUE = catalogue_json()


def said(
    number: int,
    kind: str,
    code: str | None,
    words: str,
    *,
    seat: int | None,
    name: str = "Bob",
) -> dict[str, Any]:
    return {
        "id": number,
        "at": "2026-05-14T09:00:00+00:00",
        "kind": kind,
        "code": code,
        "text": words,
        "seat": seat,
        "spectator": seat is None,
        "from": {"id": f"id-{name}", "name": name, "tag": "K7MQ"},
    }


def frame(message: dict[str, Any]) -> Message:
    return Message("message", json.dumps(message))


def session_of(stream: FakeStream, screen: Scripted, api: FakeApi) -> Session:
    console = Console(screen=screen, paint=Painter(color=False))
    return Session(api, console, game_view(1), stream)  # type: ignore[arg-type]


def api_with_talk() -> FakeApi:
    api = FakeApi({("GET", "/talk/catalogue"): CATALOGUE})
    counter = iter(range(100, 200))

    def answer(body: dict[str, str]) -> dict[str, Any]:
        if "phrase" in body:
            text = next(p["text"] for p in CATALOGUE["phrases"] if p["code"] == body["phrase"])
            return said(next(counter), "phrase", body["phrase"], text, seat=0, name="Ann")
        text = next(e["text"] for e in CATALOGUE["emotes"] if e["code"] == body["emote"])
        return said(next(counter), "emote", body["emote"], text, seat=0, name="Ann")

    api.answers[MESSAGES_PATH] = answer
    return api


def test_the_others_messages_are_lines_of_the_log_each_shown_once():
    laugh = said(7, "emote", "laugh", "😂", seat=1)
    stream = FakeStream(
        frame(said(6, "phrase", "good_luck", "Good luck!", seat=1)),
        frame(laugh),
        frame(laugh),  # a stream reopened too early repeats it: shown once
        frame(said(8, "emote", "clap", "👏", seat=None, name="Carl")),
        frame(said(9, "text", None, "nice one", seat=1)),
        end_message(),
    )
    screen = Scripted()
    assert session_of(stream, screen, FakeApi()).run() == 0
    assert screen.said[:4] == [
        "Bob says: Good luck!",
        "Bob: 😂 (laugh)",
        "Carl (watching): 👏 (clap)",
        'Bob says "nice one"',
    ]


def test_say_and_emote_at_a_prompt_are_sent_and_the_prompt_is_asked_again():
    stream = FakeStream(view_message(game_view(2, current=0, moves=[PLAY_R5, DRAW])))
    replies = ["say gg", "emote laugh", "2"]
    screen = Scripted(lambda question: replies.pop(0) if "Your move" in question else "y")
    api = api_with_talk()

    def moved(body: Any) -> Any:
        after = game_view(3)
        # The stream brings Ann's own message back: it is not shown again.
        stream.push(frame(said(100, "phrase", "good_game", "Good game", seat=0, name="Ann")))
        stream.push(view_message(after), end_message())
        return {"game": after, "events": []}

    api.answers[MOVES_PATH] = moved
    assert session_of(stream, screen, api).run() == 0
    assert [c for c in api.calls if c[0] == "POST"] == [
        ("POST", "/games/g1/messages", {"phrase": "good_game"}),
        ("POST", "/games/g1/messages", {"emote": "laugh"}),
        ("POST", "/games/g1/moves", {"version": 2, **DRAW}),
    ]
    assert screen.questions == ["Your move [1-2]: "] * 3
    assert screen.said.count("You say: Good game") == 1
    assert screen.said.count("You: 😂 (laugh)") == 1


@pytest.mark.parametrize(
    ("typed", "code"),
    [
        ("gg", "good_game"),
        ("good game", "good_game"),
        ("Good game", "good_game"),
        ("good_luck", "good_luck"),
        ("1", "hello"),
        ("Thanks!", "thanks"),
    ],
)
def test_a_phrase_is_found_by_its_key_words_initials_or_number(typed: str, code: str):
    entry = find(CATALOGUE["phrases"], typed)
    assert entry is not None
    assert entry["code"] == code


def test_talk_alone_lists_an_unknown_one_is_not_sent_and_refusals_are_said_plainly():
    api = FakeApi({("GET", "/talk/catalogue"): CATALOGUE})
    lines: list[str] = []
    talk = TableTalk(api, "g1", lines.append, lambda: 0)  # type: ignore[arg-type]
    assert talk.command("emote")
    assert lines[-1].startswith("Emotes (emote KEY): smile 🙂, laugh 😂")
    assert talk.command("say")
    assert "good_game (gg) Good game" in lines[-1]
    assert talk.command("emote dance")
    assert lines[-1] == "(No emote 'dance'. Type emote alone to list them.)"
    assert not talk.command("2")  # an answer to the prompt, not talk

    refusals = [
        (
            ApiError(429, "rate_limited", "at most 5", {"retry_after": 4}),
            "(Not sent: too many messages at once; wait 4 s.)",
        ),
        (
            ApiError(
                403,
                "talk_muted",
                "muted",
                {"until": "2026-05-14T10:30:00+00:00", "reason": "insults"},
            ),
            "(Not sent: the staff muted your table talk until ",
        ),
        (
            ApiError(403, "free_text_off", "no text here", {}),
            "(Not sent: typed messages are off at this table; use say or emote.)",
        ),
    ]
    for error, line in refusals:
        api.answers[MESSAGES_PATH] = error
        assert talk.command("chat hello" if error.code == "free_text_off" else "say gg")
        assert lines[-1].startswith(line), lines[-1]
    assert lines[-2].endswith("(insults).)")
    assert api.calls[-1] == ("POST", "/games/g1/messages", {"text": "hello"})
    assert [c for c in api.calls if c[0] == "GET"] == [("GET", "/talk/catalogue", None)]


class Opened:
    """A connection the fake `connect` hands over: its body, then the end of it."""

    def __init__(self, body: bytes) -> None:
        self.sock = None
        self.body = io.BytesIO(body)

    def readline(self, *_: Any) -> bytes:
        return self.body.readline()

    def close(self) -> None:
        pass


def test_the_reader_reconnects_after_the_last_message_and_queues_each_once():
    view = f"id: 2\nevent: game\ndata: {json.dumps(game_view(2))}\n\n".encode()
    first = view + b"".join(
        f"event: message\ndata: {json.dumps(said(n, 'emote', 'wow', 'x', seat=1))}\n\n".encode()
        for n in (4, 5)
    )
    again = f"event: message\ndata: {json.dumps(said(5, 'emote', 'wow', 'x', seat=1))}\n\n"
    bodies = [first, again.encode() + b'event: end\ndata: {"status": "finished"}\n\n']
    urls: list[str] = []

    def connect(url: str, headers: dict[str, str], timeout: float) -> tuple[Any, Any]:
        urls.append(url)
        opened = Opened(bodies.pop(0))
        return opened, opened

    reader = StreamReader("http://s/api/v1/games/g1/stream", after=0, backoff=0.01, connect=connect)
    reader.start()
    got: list[Message] = []
    deadline = time.monotonic() + 10
    while not got or got[-1].event != "end":
        assert time.monotonic() < deadline, got
        item = reader.get(0.1)
        if isinstance(item, Message):
            got.append(item)
    reader.stop()
    assert urls == [
        "http://s/api/v1/games/g1/stream",
        "http://s/api/v1/games/g1/stream?messages_after=5",
    ]
    assert [m.json()["id"] for m in got if m.event == "message"] == [4, 5]
