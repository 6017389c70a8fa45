"""The thread that reads a game's stream: it reconnects with the last id it saw, so
that no event is missed or shown twice, and it gives up only on a refusal that no
retry can mend. A tiny HTTP server in a thread plays the server's part."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.unoclient.fakes import Scripted, game_view
from unoclient.api import ApiError
from unoclient.play import Console, Session
from unoclient.render import Painter
from unoclient.sse import Message, StreamRefused
from unoclient.stream import RECONNECTED, RECONNECTING, StreamReader

VIEW_2 = game_view(2)
VIEW_3 = game_view(3)


def frame(seq: int | None, kind: str, data: Any) -> bytes:
    head = f"id: {seq}\n" if seq is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data)}\n\n".encode()


def event(seq: int, kind: str, seat: int | None, **data: Any) -> bytes:
    body = {"seq": seq, "at": "", "round": 1, "type": kind, "seat": seat, "data": data}
    return frame(seq, kind, body)


R7 = VIEW_2["top_card"]
STARTED = event(1, "game_started", None, dealer=0)
PLAYED = event(2, "card_played", 1, card=R7, color="red")
PASSED = event(3, "turn_passed", 1)
END = b'event: end\ndata: {"status": "finished", "winner": 1, "last_seq": 3}\n\n'


class FakeServer:
    """Serves the n-th request for the stream with `answers[n]`: (status, body,
    hold) where `hold` keeps the connection open, silent, until the test ends; the
    connection is then closed, as a server that drops it would."""

    def __init__(self, answers: list[tuple[int, bytes, bool]]) -> None:
        self.answers = answers
        self.requests: list[dict[str, str]] = []
        self.release = threading.Event()
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.requests.append(dict(self.headers.items()))
                number = min(len(owner.requests), len(owner.answers)) - 1
                status, body, hold = owner.answers[number]
                self.send_response(status)
                kind = "text/event-stream" if status == 200 else "application/json"
                self.send_header("Content-Type", kind)
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()
                if hold:
                    owner.release.wait(10)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/api/v1/games/g1/stream"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def serve() -> Iterator[Callable[[list[tuple[int, bytes, bool]]], FakeServer]]:
    servers: list[FakeServer] = []

    def start(answers: list[tuple[int, bytes, bool]]) -> FakeServer:
        servers.append(FakeServer(answers))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def drain(reader: StreamReader, until: str = "end", timeout: float = 10) -> list[Any]:
    got: list[Any] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        item = reader.get(0.1)
        if item is None:
            continue
        got.append(item)
        if isinstance(item, StreamRefused) or item.event == until:
            return got
    raise AssertionError(f"no {until!r} within {timeout} s; got {got}")


def events_of(items: list[Any]) -> list[tuple[str, str | None]]:
    skipped = ("game", "end", "comment", "message", RECONNECTING, RECONNECTED)
    return [(m.event, m.id) for m in items if isinstance(m, Message) and m.event not in skipped]


# The first answer is dropped half-way through the frame of event 3; the server
# then resumes one event too early, replaying event 2.
DROPPED_THEN_RESUMED = [
    (
        200,
        b"retry: 2000\n\n"
        + STARTED
        + PLAYED
        + frame(2, "game", VIEW_2)
        + b"id: 3\nevent: turn_passed\n",
        False,
    ),
    (200, PLAYED + PASSED + frame(3, "game", VIEW_3) + END, False),
]


def test_a_dropped_stream_is_resumed_after_the_last_id_seen(serve):
    server = serve(DROPPED_THEN_RESUMED)
    reader = StreamReader(server.url, {"Authorization": "Bearer t"}, after=0, backoff=0.01)
    items = drain(reader.start())
    assert [r.get("Last-Event-ID") for r in server.requests] == ["0", "2"]
    assert server.requests[1]["Authorization"] == "Bearer t"
    assert events_of(items) == [("game_started", "1"), ("card_played", "2"), ("turn_passed", "3")]
    assert [m.json()["version"] for m in items if m.event == "game"] == [2, 3]
    assert items[-1].event == "end"
    reader.stop()
    assert reader.connections == 2


def test_a_game_followed_over_a_dropped_stream_shows_each_event_once(serve):
    server = serve(DROPPED_THEN_RESUMED)
    reader = StreamReader(server.url, after=0, backoff=0.01).start()
    screen = Scripted()
    session = Session(None, Console(screen, Painter(color=False)), game_view(1), reader)  # type: ignore[arg-type]
    assert session.run() == 0
    assert screen.said == [
        "The game starts",
        "Bot 1 (greedy) played [R7]",
        "Bot 1 (greedy) passed",
        "Final scores: You 0, Bot 1 (greedy) 0",
        "Game over (finished).",
    ]
    reader.stop()


def test_a_refusal_that_no_retry_mends_is_handed_over_and_ends_the_reading(serve):
    body = json.dumps({"error": {"code": "not_found", "message": "no such game", "details": {}}})
    server = serve([(404, body.encode(), False)])
    reader = StreamReader(server.url, backoff=0.01).start()
    refused = drain(reader)[-1]
    assert isinstance(refused, StreamRefused)
    assert refused.status == 404
    reader.stop()
    assert len(server.requests) == 1
    session = Session(None, Console(Scripted()), game_view(1), reader)  # type: ignore[arg-type]
    reader.queue.put(refused)
    with pytest.raises(ApiError) as raised:
        session.run()
    assert raised.value.code == "not_found"


def test_a_server_in_trouble_is_tried_again_and_the_player_told(serve):
    trouble = b'{"error": {"code": "service_unavailable", "message": "", "details": {}}}'
    server = serve([(503, trouble, False), (200, STARTED + frame(1, "game", VIEW_2) + END, False)])
    reader = StreamReader(server.url, backoff=0.01).start()
    items = drain(reader)
    assert [m.event for m in items] == [RECONNECTING, RECONNECTED, "game_started", "game", "end"]
    reader.stop()


def test_stopping_the_reader_closes_a_stream_that_waits(serve):
    server = serve([(200, b"retry: 2000\n\n" + frame(2, "game", VIEW_2), True)])
    reader = StreamReader(server.url, backoff=0.01).start()
    assert drain(reader, until="game")[-1].json()["version"] == 2
    started = time.monotonic()
    reader.stop()
    assert time.monotonic() - started < 2
    assert not reader._thread.is_alive()
