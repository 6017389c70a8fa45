"""The cluster drills' clients (tests/drills/test_cluster.py), coroutines on raw
asyncio connections to the balancer (bench/streams.py's HTTP and SSE reading), so
that a thousand streams cost one thread: a stream that resumes with `Last-Event-ID`
and keeps what it heard, a scripted player who moves when its stream gives it the
turn, with an `Idempotency-Key` per move, and a direct connection that holds games'
rows so that moves wait inside their transactions."""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import psycopg
import pytest

from bench.streams import Frame, SseParser, body_parts, read_body, read_head
from tests.drills.test_faults import Player

API = "/api/v1"
# A stream's backoff between attempts, doubling, with jitter (as test_stream_restart's).
BACKOFF_FIRST = 0.1
BACKOFF_LAST = 2.0
PHASE_SECONDS = 60.0
REQUEST_SECONDS = 20.0
# A move sent while its node dies is sent again with its key, this many times at most.
MOVE_ATTEMPTS = 40
TRANSPORT_ERRORS = (OSError, EOFError, asyncio.IncompleteReadError, asyncio.LimitOverrunError)


# -- HTTP on asyncio ----------------------------------------------------------------------


@dataclass
class Reply:
    status: int  # 0: no answer (the connection died)
    served_by: str
    body: Any
    at: float = field(default_factory=time.monotonic)
    headers: dict[str, str] = field(default_factory=dict)


def request_head(method: str, path: str, headers: dict[str, str]) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin1")


async def call(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    *,
    token: str | None = None,
    key: str | None = None,
) -> Reply:
    """One request through the balancer on a connection of its own."""
    headers = {"Accept": "application/json", "Connection": "close"}
    payload = b"" if body is None else json.dumps(body).encode()
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if key:
        headers["Idempotency-Key"] = key
    if body is not None:
        headers |= {"Content-Type": "application/json", "Content-Length": str(len(payload))}

    async def exchange() -> Reply:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(request_head(method, path, headers) + payload)
            status, answer = await read_head(reader)
            raw = await read_body(reader, answer)
        finally:
            writer.close()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:  # the balancer's own error pages
            parsed = raw.decode(errors="replace")
        return Reply(status, answer.get("x-served-by", "?"), parsed, headers=answer)

    return await asyncio.wait_for(exchange(), REQUEST_SECONDS)


async def must(port: int, method: str, path: str, body: Any = None, **auth: str) -> Any:
    reply = await call(port, method, API + path, body, **auth)
    assert 200 <= reply.status < 300, (method, path, reply)
    return reply.body


async def until(test: Callable[[], bool], what: str, details: Callable[[], str]) -> None:
    deadline = time.monotonic() + PHASE_SECONDS
    while not test():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {PHASE_SECONDS} s\n{details()}")
        await asyncio.sleep(0.1)


# -- a scripted player and a stream that resumes -------------------------------------------


@dataclass
class Seat:
    """A seated player who moves whenever its stream's view gives it the turn."""

    port: int
    token: str
    game_id: str = ""
    seat: int | None = None
    replies: dict[str, list[Reply]] = field(default_factory=dict)  # per Idempotency-Key
    versions: set[int] = field(default_factory=set)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    # Set by a drill: the next move waits for it before it is sent.
    hold: asyncio.Event | None = None
    held: bool = False

    async def open_table(self, bots: int) -> None:
        """A game of this player and `bots` greedy bots, started."""
        game = await must(self.port, "POST", "/games", {"max_players": bots + 1}, token=self.token)
        self.game_id = str(game["id"])
        for _ in range(bots):
            bot = {"strategy": "greedy"}
            await must(self.port, "POST", f"/games/{self.game_id}/bots", bot, token=self.token)
        await must(self.port, "POST", f"/games/{self.game_id}/start", token=self.token)

    def saw(self, view: dict[str, Any]) -> None:
        if view["status"] != "playing" or view["you"] is None:
            return
        self.seat = view["you"]["seat"]
        pending = view["pending"]
        mine = pending["seat"] == self.seat if pending else view["current_seat"] == self.seat
        if mine and view["version"] not in self.versions and view["you"]["legal_moves"]:
            self.versions.add(view["version"])
            task = asyncio.create_task(self.move(view))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def move(self, view: dict[str, Any]) -> None:
        if self.hold is not None:
            hold, self.hold = self.hold, None
            self.held = True
            await hold.wait()
        path, body = Player.request_for(view)
        key = str(uuid.uuid4())
        replies = self.replies.setdefault(key, [])
        for _ in range(MOVE_ATTEMPTS):
            try:
                reply = await call(self.port, "POST", API + path, body, token=self.token, key=key)
            except (*TRANSPORT_ERRORS, TimeoutError) as error:
                reply = Reply(0, "-", type(error).__name__)
            replies.append(reply)
            if reply.status not in (0, 502, 503, 504):
                return
            await asyncio.sleep(0.2)

    def accepted(self) -> list[Reply]:
        return [r for replies in self.replies.values() for r in replies if r.status == 200]


@dataclass
class Link:
    """One connection of a stream."""

    served_by: str
    sent: str | None  # its Last-Event-ID
    first_frame: float | None = None
    first_view: int | None = None
    events: int = 0


@dataclass
class Watch:
    """One game's stream kept open across disconnects, as test_stream_restart's."""

    port: int
    game_id: str
    token: str
    from_the_start: bool
    seat: Seat | None = None
    seqs: list[int] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    first_view: int | None = None
    last_id: str | None = None
    end: dict[str, Any] | None = None
    links: list[Link] = field(default_factory=list)
    # Per event heard: its time (`at`, set in the transaction that made it) and the
    # wall-clock time its frame arrived here, both in seconds since the epoch.
    arrivals: list[tuple[float, float]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    async def run(self) -> None:
        backoff = BACKOFF_FIRST
        if self.from_the_start:
            self.last_id = "0"
        while self.end is None:
            links = len(self.links)
            try:
                await self.listen()
            except TRANSPORT_ERRORS as error:
                self.failures.append(type(error).__name__)
            if len(self.links) > links and self.links[-1].first_frame is not None:
                backoff = BACKOFF_FIRST
            if self.end is None:
                await asyncio.sleep(backoff * random.uniform(0.5, 1.5))
                backoff = min(backoff * 2, BACKOFF_LAST)

    async def listen(self) -> None:
        headers = {"Accept": "text/event-stream", "Authorization": f"Bearer {self.token}"}
        if self.last_id is not None:
            headers["Last-Event-ID"] = self.last_id
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        try:
            path = f"{API}/games/{self.game_id}/stream"
            writer.write(request_head("GET", path, headers))
            status, answer = await read_head(reader)
            if status != 200:
                self.failures.append(f"refused {status}")
                return
            link = Link(answer.get("x-served-by", "?"), headers.get("Last-Event-ID"))
            self.links.append(link)
            parser = SseParser()
            async for part in body_parts(reader, answer):
                arrived = time.time()
                for frame in parser.feed(part):
                    self.read(frame, link, arrived)
                    if self.end is not None:
                        return
            self.failures.append("closed")
        finally:
            writer.close()

    def read(self, frame: Frame, link: Link, arrived: float) -> None:
        if frame.event in (None, "comment"):
            return
        if link.first_frame is None:
            link.first_frame = time.monotonic()
        if frame.event == "end":
            self.end = json.loads(frame.data)
            return
        if frame.id is None:
            self.problems.append(f"a {frame.event} message without an id")
            return
        data = json.loads(frame.data)
        if frame.event == "game":
            self.first_view = frame.id if self.first_view is None else self.first_view
            link.first_view = frame.id if link.first_view is None else link.first_view
            if self.seat is not None:
                self.seat.saw(data)
        else:
            if data.get("seq") != frame.id or data.get("type") != frame.event:
                self.problems.append(f"id {frame.id} {frame.event} carries {data}")
            self.seqs.append(frame.id)
            self.types.append(frame.event)
            self.arrivals.append((datetime.fromisoformat(data["at"]).timestamp(), arrived))
            link.events += 1
        self.last_id = str(frame.id)

    def summary(self) -> str:
        per = [(link.served_by, link.sent, link.events) for link in self.links]
        return (
            f"{self.game_id[:8]} links={per} first_view={self.first_view}"
            f" seqs={self.seqs[:3]}..{self.seqs[-3:]} end={self.end}"
            f" failures={self.failures[-6:]} problems={self.problems[:3]}"
        )


class RowLocks:
    """The games' rows held FOR UPDATE on a connection straight to PostgreSQL: moves
    on them wait inside their transactions until `release`."""

    def __init__(self, url: str, games: list[str]) -> None:
        self.url = url.replace("postgres://", "postgresql://", 1)
        self.db = psycopg.connect(self.url)
        ids = [uuid.UUID(game) for game in games]
        self.db.execute("SELECT 1 FROM games_game WHERE id = ANY(%s) FOR UPDATE", [ids])

    def waiting(self) -> int:
        """The sessions waiting on a lock (a snapshot of their own connection: the
        holder's transaction would see the same one throughout)."""
        with psycopg.connect(self.url, autocommit=True) as probe:
            row = probe.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            ).fetchone()
        return int(row[0]) if row else 0

    def release(self) -> None:
        self.db.rollback()
        self.db.close()
