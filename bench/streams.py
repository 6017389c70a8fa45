"""Live streams benchmark: thousands of idle game streams (or waiting long polls) and
one game played beside them.

    python -m bench.streams --spawn --streams 2000 [--json]          # its own server
    python -m bench.streams --spawn --streams 2000 --long-polls 2000 --json
    python -m bench.streams --spawn --streams 2000 --chat [--chat-tables 20] --json
    python -m bench.streams --url http://127.0.0.1:8000 --server-pid PID --streams 2000
    python -m bench.streams --restart-storm --streams 10000 [--handover stop-start]

`--restart-storm` runs the restart storm instead (bench/stream_storm.py): streams
resumed with Last-Event-ID after a server restart, on a server of its own.

Streams (``GET /games/{id}/stream``), in this order:

1. Set-up over HTTP: quiet 2-player single-round games (created, joined, started,
   then nobody moves), `--per-game` streams each (default 20, so 100 games for
   2000 streams), watchers alternating between the game's two seated players and
   spectators (one guest player each).
2. Play alone (`played_alone`): the games of step 6 with nothing else open (the
   same deals with --spawn, whose server takes client seeds), so that what the
   open streams cost the played game can be told apart from a busy machine.
3. Baseline: PostgreSQL's transactions per second on the bench database
   (``xact_commit + xact_rollback`` in ``pg_stat_database``, read from another
   database) over `--idle-seconds` with nothing open, once the counters have
   caught up (`STATS_FLUSH_SECONDS`); the server's memory (VmRSS and Pss of the
   gunicorn master and its workers, from /proc).
4. Opening: every stream at once, one coroutine each on raw asyncio connections.
   `open_seconds` runs until each has received its first ``event: game``; a
   stream answered with anything else, or not open after the open timeout, is
   an error. With `--spawn`, the CPU milliseconds per stream opened of the bench,
   the server and its database backends.
5. Idle: after a short settle, memory again and the transactions per second over
   `--idle-seconds` with every stream open, and the pings they got meanwhile.
6. Play, beside them: one client plays 2-player single-round games as both
   players (the seat to act reads its view when it lacks it and sends its first
   legal move, plays first), a stream open for each player, for `--moves` moves.
   `move_*_ms` is the ``POST /moves`` (or ``/challenge``) round trip; `delivery_*_ms`
   runs from just before that request is written to the moment the other
   player's stream shows the move's first event (by seq). The next move waits
   for that delivery (or `DELIVERY_TIMEOUT`, counted as missed), as the other
   phone would, so one delivery does not queue behind the next move.
7. A stream that the server ends before the bench closes it is `dropped`.

`--chat` (bench/chat.py) plays step 6 three times, the same moves and deals: first as
above (the top-level figures), then with table talk (`with_chat`), then without again
(`without_chat_again`: how far two runs without talk differ on this machine). The played game's
two players each say a catalogue phrase or emote at the allowed rate (5 per 10 s per
player and table) while they play, and so does one seated player of each of
`--chat-tables` quiet games (default: every one, so 2,000 streams make 100 senders,
50 messages a second, each going out to 20 open streams). `chat` has what was
said (sent, accepted, refused with 429), the played game's messages lost or
duplicated on the other player's stream, the share of their messages the quiet
streams got, the CPU each run used, the ratios with / without talk, and those of the
two runs without (`noise`).

`--long-polls N` runs the same check with N waiting long polls
(``GET /events?after=<last_seq>&wait=<--poll-wait>``, issued again when answered)
and delivery through a long poll in the played game. A long poll is waiting once
the server has handed it to its hub, which the client cannot see: `open_seconds`
runs until all are written and then two rounds of 8 plain requests, the second
sent once the first is answered, come back; the API's threads answer in arrival
order, so by then each worker has read every poll and made its first check. The
poll phase's idle window is at least `--poll-wait` long, as every waiting poll
comes back and is issued again (one API request) once per wait: a shorter window
would miss that cost. With `--spawn` each phase gets a fresh server and
database, so that one phase's memory does not hide the other's.

Targets (`targets_met`): every stream open and none dropped; delivery p99 under
100 ms; move p99 under 250 ms; under 50 database transactions per second while
idle; at most 50 KB of server memory per stream. The exit status is 1 when a
stream (or long poll) failed to open or was dropped, not for a missed latency
or cost target.

With `--spawn`, bench/serve.py starts the service's server command on a free
127.0.0.1 port with a fresh database (see there) and stops it afterwards; the
memory figures need `--spawn` or `--server-pid`, the database figures its URL
(`--database-url`, the one bench/serve.py uses by default).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import faulthandler
import json
import math
import re
import resource
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from bench import serve
from bench.load import API, actor_of, move_request, percentile

if TYPE_CHECKING:
    from bench.chat import PlayedTalk

PER_GAME = 20
SETUP_CONNECTIONS = 8
REQUEST_TIMEOUT = 30.0
# Idle keep-alive connections are closed by the server after 5 s (uvicorn's
# default); one idle for longer is reopened rather than risk a request on it.
KEEPALIVE_SECONDS = 4.0
DELIVERY_TIMEOUT = 5.0
# pg_stat_database lags: a backend flushes its counters at most once a second, and
# one that finds the database's entry locked by another's flush retries only after
# 10 s (PostgreSQL's PGSTAT_IDLE_INTERVAL). Measured here: after the set-up's burst,
# a third of its transactions reached the counters 9 s late. So the window starts
# only once everything before it must have been counted.
STATS_FLUSH_SECONDS = 11.0
SETTLE_SECONDS = 2.0
# Past a --deadline: how long the cancelled run has to clean up, and after how much
# more a loop that never woke has every thread's stack printed.
OVERRUN_GRACE = 20.0
SENTINELS = 8
MAX_MOVES_PER_GAME = 3000
POLL_WAIT = 30

TARGETS = {
    "delivery_p99_ms": 100.0,
    "move_p99_ms": 250.0,
    "db_tps_idle": 50.0,
    "memory_kb_per_stream": 50.0,
}


def open_timeout(count: int) -> float:
    return 60.0 + count / 20


class SetupError(Exception):
    """A set-up request (players, games) was not answered 2xx."""


class TransportError(Exception):
    """No HTTP answer: refused, reset, closed, timed out."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


# -- HTTP/1.1 on asyncio streams --------------------------------------------------------


@dataclass
class Target:
    host: str
    port: int
    prefix: str

    @classmethod
    def of(cls, url: str) -> Target:
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise SystemExit(f"--url must be http://host:port, not {url!r}")
        return cls(parts.hostname, parts.port or 80, parts.path.rstrip("/"))

    def request_head(
        self, method: str, path: str, token: str | None, accept: str, length: int | None
    ) -> bytes:
        lines = [
            f"{method} {self.prefix}{path} HTTP/1.1",
            f"Host: {self.host}:{self.port}",
            f"Accept: {accept}",
        ]
        if token is not None:
            lines.append(f"Authorization: Bearer {token}")
        if length is not None:
            lines += ["Content-Type: application/json", f"Content-Length: {length}"]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin1")


async def read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    raw = await reader.readuntil(b"\r\n\r\n")
    status_line, *lines = raw.decode("latin1").split("\r\n")
    status = int(status_line.split(" ", 2)[1])
    headers = {}
    for line in lines:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    return status, headers


async def body_parts(reader: asyncio.StreamReader, headers: dict[str, str]) -> Any:
    """The body as the server sends it, part by part (an async generator):
    chunked, sized, or up to the end of the connection."""
    if headers.get("transfer-encoding", "").lower() == "chunked":
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                return
            data = await reader.readexactly(size + 2)
            yield data[:-2]
    elif "content-length" in headers:
        yield await reader.readexactly(int(headers["content-length"]))
    else:
        while data := await reader.read(65536):
            yield data


async def read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    return b"".join([part async for part in body_parts(reader, headers)])


class Http:
    """One keep-alive HTTP/1.1 connection; JSON in and out."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.used = 0.0

    async def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        timeout: float = REQUEST_TIMEOUT,
        on_write: Callable[[float], None] | None = None,
    ) -> tuple[int, Any]:
        """(status, decoded JSON or None); `on_write` is called with the
        perf_counter() just before the request is written."""
        try:
            return await asyncio.wait_for(
                self._request(method, path, body, token, on_write), timeout
            )
        except (
            OSError,
            EOFError,
            TimeoutError,
            ValueError,
            IndexError,
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
        ) as error:
            self.close()
            reason = type(error).__name__
            raise TransportError(f"{method} {path}: {reason}: {error}", reason) from None

    async def _request(
        self,
        method: str,
        path: str,
        body: Any,
        token: str | None,
        on_write: Callable[[float], None] | None,
    ) -> tuple[int, Any]:
        if self.writer is not None and time.monotonic() - self.used > KEEPALIVE_SECONDS:
            self.close()
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(
                self.target.host, self.target.port
            )
        assert self.reader is not None
        payload = b"" if body is None else json.dumps(body).encode()
        head = self.target.request_head(
            method, path, token, "application/json", len(payload) if body is not None else None
        )
        if on_write is not None:
            on_write(time.perf_counter())
        self.writer.write(head + payload)
        status, headers = await read_head(self.reader)
        raw = await read_body(self.reader, headers)
        self.used = time.monotonic()
        if headers.get("connection", "").lower() == "close":
            self.close()
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def error_key(status: int, data: Any) -> str:
    code = None
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        code = data["error"].get("code")
    return f"{status} {code or '-'}"


async def call(
    conn: Http, method: str, path: str, body: Any = None, token: str | None = None
) -> Any:
    """A set-up request that must succeed."""
    try:
        status, data = await conn.request(method, path, body, token)
    except TransportError as error:
        raise SetupError(str(error)) from None
    if not 200 <= status < 300:
        raise SetupError(f"{method} {path} -> {status} {data}")
    return data


# -- server memory and database transactions -----------------------------------------------


def raise_open_files_limit() -> int:
    """Raise this process's soft limit of open files to its hard limit (a spawned
    server inherits it); returns the new limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def process_tree(root: int) -> list[int]:
    """`root` and all its descendants (gunicorn's master and its workers)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(raw[raw.rindex(")") + 2 :].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += parents.get(pid, [])
    return tree


def _kb(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_memory(root: int) -> dict[str, int]:
    """KB resident (VmRSS) and proportional (Pss: pages shared between the
    processes counted once) of the server's processes."""
    pids = process_tree(root)
    return {
        "rss_kb": sum(_kb(Path(f"/proc/{pid}/status"), "VmRSS") for pid in pids),
        "pss_kb": sum(_kb(Path(f"/proc/{pid}/smaps_rollup"), "Pss") for pid in pids),
        "processes": len(pids),
    }


class Transactions:
    """Commits and rollbacks of the bench database, read from another database so
    that reading them adds none."""

    def __init__(self, database_url: str, flush_seconds: float = STATS_FLUSH_SECONDS) -> None:
        import psycopg

        self.flush_seconds = flush_seconds

        parts = urlsplit(database_url)
        self.name = parts.path.lstrip("/")
        admin = urlunsplit((*parts[:2], "/postgres", *parts[3:]))
        self.conn = psycopg.connect(admin, autocommit=True)

    def count(self) -> int:
        self.conn.execute("SELECT pg_stat_clear_snapshot()")
        row = self.conn.execute(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = %s",
            [self.name],
        ).fetchone()
        return int(row[0]) if row else 0

    async def per_second(self, seconds: float) -> float:
        """Transactions per second over the next `seconds`; what came before has
        `flush_seconds` to reach the counters first."""
        await asyncio.sleep(self.flush_seconds)
        first = await asyncio.to_thread(self.count)
        started = time.monotonic()
        await asyncio.sleep(seconds)
        last = await asyncio.to_thread(self.count)
        return round((last - first) / (time.monotonic() - started), 2)

    def close(self) -> None:
        self.conn.close()


@dataclass
class Probe:
    """What the bench can measure of the server beside HTTP."""

    pid: int | None
    transactions: Transactions | None
    server: serve.Server | None = None  # a spawned one: CPU of its processes

    def memory(self) -> dict[str, int] | None:
        return tree_memory(self.pid) if self.pid else None

    @contextlib.contextmanager
    def cpu(self, count: int) -> Iterator[dict[str, float | None]]:
        """CPU milliseconds per stream (or poll) used during the block by this
        process, the server and its database backends (the last two with --spawn).
        The meter's own queries count as transactions: never inside a tps window."""
        per: dict[str, float | None] = {}
        meter = self.server.cpu_meter() if self.server else contextlib.nullcontext({})
        with meter as used:
            started = time.process_time()
            yield per
            per["client"] = time.process_time() - started
        per.update({key.removesuffix("_cpu_s"): value for key, value in used.items()})
        for key, value in per.items():
            per[key] = round(value * 1000 / count, 3) if value is not None and count else None

    async def tps(self, seconds: float) -> float | None:
        if self.transactions is None:
            return None
        return await self.transactions.per_second(seconds)


def per_item(before: dict[str, int] | None, after: dict[str, int] | None, count: int) -> Any:
    if before is None or after is None or count == 0:
        return None, None
    return (
        round((after["rss_kb"] - before["rss_kb"]) / count, 2),
        round((after["pss_kb"] - before["pss_kb"]) / count, 2),
    )


# -- Server-Sent Events ---------------------------------------------------------------------


@dataclass
class Frame:
    event: str | None = None  # "comment" for a line that starts with ":"
    id: int | None = None
    data: str = ""


class SseParser:
    def __init__(self) -> None:
        self.buffer = b""

    def feed(self, data: bytes) -> list[Frame]:
        self.buffer += data
        *complete, self.buffer = self.buffer.split(b"\n\n")
        frames = []
        for raw in complete:
            frame = Frame()
            for line in raw.decode("utf-8", "replace").split("\n"):
                name, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if name == "":
                    frame.event = frame.event or "comment"
                elif name == "event":
                    frame.event = value
                elif name == "id" and value.isdigit():
                    frame.id = int(value)
                elif name == "data":
                    frame.data += value
            frames.append(frame)
        return frames


class Timeline:
    """When a watcher first saw each seq of its game (ascending)."""

    def __init__(self) -> None:
        self.seqs: list[int] = []
        self.times: list[float] = []
        self.changed = asyncio.Event()

    def saw(self, seq: int, at: float) -> None:
        if not self.seqs or seq > self.seqs[-1]:
            self.seqs.append(seq)
            self.times.append(at)
            self.changed.set()
            self.changed = asyncio.Event()

    async def time_of(self, seq: int, timeout: float) -> float | None:
        """The perf_counter() at which `seq` (or a later one) was first seen."""
        deadline = time.monotonic() + timeout
        while True:
            i = bisect.bisect_left(self.seqs, seq)
            if i < len(self.seqs):
                return self.times[i]
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), remaining)


class Tally:
    """How a batch of streams or polls is doing; `settled` is set when each of them
    has either opened or failed."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.opened = 0
        self.errors: Counter[str] = Counter()  # never opened: refused, failed, timed out
        self.dropped: Counter[str] = Counter()  # opened, then ended by the server
        self.open_times: list[float] = []
        self.last_open = 0.0
        self.settled = asyncio.Event()

    def open(self, took: float) -> None:
        self.opened += 1
        self.open_times.append(took)
        self.last_open = time.perf_counter()
        self._check()

    def fail(self, reason: str) -> None:
        self.errors[reason] += 1
        self._check()

    def _check(self) -> None:
        if self.opened + sum(self.errors.values()) >= self.total:
            self.settled.set()


class Stream:
    """One ``GET /games/{id}/stream``, read until the server ends it or the bench
    cancels it."""

    def __init__(
        self,
        target: Target,
        game_id: str,
        token: str,
        tally: Tally,
        timeline: Timeline | None = None,
    ) -> None:
        self.target = target
        self.game_id = game_id
        self.token = token
        self.tally = tally
        self.timeline = timeline
        self.opened = asyncio.Event()
        self.ended = False  # `event: end` came
        self.failed = False
        self.pings = 0
        # Table talk's frames (their data and when they came), for bench/chat.py.
        self.on_message: Callable[[str, float], None] | None = None

    async def run(self) -> None:
        started = time.perf_counter()
        writer = None
        try:
            reader, writer = await asyncio.open_connection(self.target.host, self.target.port)
            path = f"{API}/games/{self.game_id}/stream"
            writer.write(
                self.target.request_head("GET", path, self.token, "text/event-stream", None)
            )
            status, headers = await read_head(reader)
            if status != 200:
                body = await read_body(reader, headers)
                try:
                    data = json.loads(body)
                except ValueError:
                    data = None
                self._failed(error_key(status, data))
                return
            parser = SseParser()
            async for part in body_parts(reader, headers):
                now = time.perf_counter()
                for frame in parser.feed(part):
                    self._frame(frame, now, started)
            if not self.ended:
                self._failed("closed by the server")
        except asyncio.CancelledError:
            raise
        except (OSError, EOFError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as error:
            self._failed(type(error).__name__)
        except (ValueError, IndexError):
            self._failed("malformed answer")
        finally:
            if writer is not None:
                writer.close()

    def _frame(self, frame: Frame, now: float, started: float) -> None:
        if frame.event == "comment":
            self.pings += 1
        elif frame.event == "game":
            if not self.opened.is_set():
                self.opened.set()
                self.tally.open(now - started)
        elif frame.event == "end":
            self.ended = True
        elif frame.event == "message":
            # Table talk: no id, and no event of the game.
            if self.on_message is not None:
                self.on_message(frame.data, now)
        elif frame.id is not None and self.timeline is not None:
            self.timeline.saw(frame.id, now)

    def _failed(self, reason: str) -> None:
        self.failed = True
        if self.opened.is_set():
            self.tally.dropped[reason] += 1
        else:
            self.tally.fail(reason)


class Poll:
    """A long poll on a quiet game, issued again whenever it is answered."""

    def __init__(
        self, target: Target, game_id: str, token: str, after: int, wait: int, tally: Tally
    ) -> None:
        self.conn = Http(target)
        self.game_id = game_id
        self.token = token
        self.after = after
        self.wait = wait
        self.tally = tally
        self.written = False
        self.answers = 0

    async def run(self) -> None:
        path = f"{API}/games/{self.game_id}/events?after={self.after}&wait={self.wait}"
        started = time.perf_counter()
        sent: list[float] = []

        def on_write(at: float) -> None:
            sent.append(at)
            if not self.written:
                self.written = True
                self.tally.open(at - started)

        try:
            while True:
                sent.clear()
                try:
                    status, data = await self.conn.request(
                        "GET", path, token=self.token, timeout=self.wait + 30, on_write=on_write
                    )
                except TransportError as error:
                    if self.written:
                        self.tally.dropped[error.reason] += 1
                    else:
                        self.tally.fail(error.reason)
                    return
                took = time.perf_counter() - sent[0]
                self.answers += 1
                if status != 200 or not isinstance(data, dict) or "events" not in data:
                    self.tally.dropped[error_key(status, data)] += 1
                    return
                if data["events"] or took < self.wait - 1:
                    # A quiet game's poll must be held for its whole wait.
                    self.tally.dropped["answered early"] += 1
                    return
        finally:
            self.conn.close()


class PollWatcher:
    """A player's long poll in the played game: its answers' seqs on a timeline."""

    def __init__(self, target: Target, game_id: str, token: str, after: int, wait: int) -> None:
        self.conn = Http(target)
        self.game_id = game_id
        self.token = token
        self.after = after
        self.wait = wait
        self.timeline = Timeline()
        self.errors: Counter[str] = Counter()

    async def run(self) -> None:
        try:
            while True:
                path = f"{API}/games/{self.game_id}/events?after={self.after}&wait={self.wait}"
                try:
                    status, data = await self.conn.request(
                        "GET", path, token=self.token, timeout=self.wait + 30
                    )
                except TransportError:
                    self.errors["transport"] += 1
                    await asyncio.sleep(0.1)
                    continue
                now = time.perf_counter()
                if status != 200 or not isinstance(data, dict) or "events" not in data:
                    self.errors[error_key(status, data)] += 1
                    await asyncio.sleep(0.1)
                    continue
                for event in data["events"]:
                    self.timeline.saw(event["seq"], now)
                self.after = max(self.after, data["last_seq"])
        finally:
            self.conn.close()


# -- set-up ------------------------------------------------------------------------------------


@dataclass
class Slot:
    game_id: str
    token: str
    seated: bool
    after: int  # the game's last seq once started


async def quiet_games(target: Target, watchers: int, per_game: int) -> list[Slot]:
    """Quiet games for `watchers` streams or polls, `per_game` each, and who watches:
    watcher i goes to game i mod games (so that opening them in order spreads over
    the games), alternately a seated player (the two in turn) and a spectator of its
    own."""
    games = math.ceil(watchers / per_game)
    pool: asyncio.Queue[Http] = asyncio.Queue()
    for _ in range(SETUP_CONNECTIONS):
        pool.put_nowait(Http(target))

    async def with_conn(job: Any) -> Any:
        conn = await pool.get()
        try:
            return await job(conn)
        finally:
            pool.put_nowait(conn)

    async def player(conn: Http, name: str) -> str:
        token: str = (await call(conn, "POST", f"{API}/players", {"name": name}))["token"]
        return token

    async def game(conn: Http, index: int) -> tuple[str, list[str], int]:
        host = await player(conn, f"Host{index}")
        guest = await player(conn, f"Guest{index}")
        created = await call(
            conn, "POST", f"{API}/games", {"max_players": 2, "target_score": 0}, host
        )
        await call(conn, "POST", f"{API}/games/{created['id']}/join", token=guest)
        started = await call(conn, "POST", f"{API}/games/{created['id']}/start", token=host)
        return created["id"], [host, guest], started["last_seq"]

    try:
        made = await asyncio.gather(*(with_conn(lambda c, i=i: game(c, i)) for i in range(games)))
        spectators = [i for i in range(watchers) if (i // games) % 2 == 1]
        tokens = await asyncio.gather(
            *(with_conn(lambda c, i=i: player(c, f"Watcher{i}")) for i in spectators)
        )
    finally:
        while not pool.empty():
            pool.get_nowait().close()
    spectator_token = dict(zip(spectators, tokens, strict=True))
    slots = []
    for i in range(watchers):
        game_id, seated, after = made[i % games]
        turn = i // games
        if turn % 2 == 0:
            slots.append(Slot(game_id, seated[(turn // 2) % 2], True, after))
        else:
            slots.append(Slot(game_id, spectator_token[i], False, after))
    return slots


# -- the played game -----------------------------------------------------------------------------


def first_move(view: dict[str, Any]) -> dict[str, Any]:
    """The viewer's first legal play (calling UNO with its second-to-last card), else
    its first move that ends the turn (draw, pass, ...)."""
    you = view["you"]
    moves = you["legal_moves"]
    plays = [m for m in moves if m["action"] == "play"]
    if plays:
        move = dict(plays[0])
        if len(you["hand"]) == 2:
            move["uno"] = True
        return move
    others = [m for m in moves if m["action"] not in ("call_uno", "catch_uno")]
    return dict((others or moves)[0])


@dataclass
class Play:
    """The played game's figures."""

    move_latencies: list[float] = field(default_factory=list)
    deliveries: list[float] = field(default_factory=list)
    missed: int = 0  # moves whose first event the other player had not seen in time
    errors: Counter[str] = field(default_factory=Counter)
    games: int = 0
    finished: int = 0
    last_written: float = 0.0  # perf_counter() when the last move was sent

    def figures(self, prefix: str = "") -> dict[str, Any]:
        return {
            f"{prefix}moves": len(self.move_latencies),
            f"{prefix}move_p50_ms": percentile(self.move_latencies, 50),
            f"{prefix}move_p99_ms": percentile(self.move_latencies, 99),
            f"{prefix}move_max_ms": percentile(self.move_latencies, 100),
            f"{prefix}move_errors": dict(self.errors),
            f"{prefix}deliveries": len(self.deliveries),
            f"{prefix}delivery_missed": self.missed,
            f"{prefix}delivery_p50_ms": percentile(self.deliveries, 50),
            f"{prefix}delivery_p99_ms": percentile(self.deliveries, 99),
            f"{prefix}delivery_max_ms": percentile(self.deliveries, 100),
            f"{prefix}games_played": self.games,
        }


async def play(
    target: Target,
    moves: int,
    via: str,
    seed: int | None,
    poll_wait: int = POLL_WAIT,
    talk: PlayedTalk | None = None,
) -> Play:
    """Play 2-player single-round games as both players until `moves` moves were
    made, each player watching through a stream (`via` "stream") or a long poll
    ("poll"); with `talk`, the players talk at each table while they play."""
    result = Play()
    conn = Http(target)
    try:
        tokens = [
            (await call(conn, "POST", f"{API}/players", {"name": name}))["token"]
            for name in ("Ann", "Bob")
        ]
        while len(result.move_latencies) < moves:
            settings: dict[str, Any] = {"max_players": 2, "target_score": 0}
            if seed is not None:
                settings["seed"] = seed + result.games
            game = await call(conn, "POST", f"{API}/games", settings, tokens[0])
            game_id = game["id"]
            await call(conn, "POST", f"{API}/games/{game_id}/join", token=tokens[1])
            view = await call(conn, "POST", f"{API}/games/{game_id}/start", token=tokens[0])
            result.games += 1
            timelines = [Timeline(), Timeline()]
            if via == "stream":
                tally = Tally(2)
                watchers: list[Any] = [
                    Stream(target, game_id, token, tally, timeline)
                    for token, timeline in zip(tokens, timelines, strict=True)
                ]
            else:
                watchers = [
                    PollWatcher(target, game_id, token, view["last_seq"], poll_wait)
                    for token in tokens
                ]
                timelines = [w.timeline for w in watchers]
            tasks = [asyncio.ensure_future(w.run()) for w in watchers]
            finished = result.finished
            try:
                if via == "stream":
                    await asyncio.wait_for(tally.settled.wait(), REQUEST_TIMEOUT)
                    if tally.errors:
                        raise SetupError(f"the played game's streams: {dict(tally.errors)}")
                if talk is not None:
                    talk.open_table(game_id, tokens, watchers)
                await play_one(conn, game_id, view, tokens, timelines, moves, result)
            finally:
                if talk is not None:
                    over = result.finished > finished
                    await talk.close_table(result.last_written if over else None)
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
            if via == "stream":
                result.errors.update(f"stream {k}" for k in tally.dropped.elements())
            else:
                for w in watchers:
                    result.errors.update(f"poll {k}" for k in w.errors.elements())
    finally:
        conn.close()
    return result


async def play_one(
    conn: Http,
    game_id: str,
    view: dict[str, Any],
    tokens: list[str],
    timelines: list[Timeline],
    moves: int,
    result: Play,
) -> None:
    for _ in range(MAX_MOVES_PER_GAME):
        if view["status"] != "playing":
            result.finished += view["status"] == "finished"
            return
        if len(result.move_latencies) >= moves:
            return
        actor = actor_of(view)
        if view.get("you") is None or view["you"]["seat"] != actor:
            view = await call(conn, "GET", f"{API}/games/{game_id}", token=tokens[actor])
        path, body = move_request(game_id, view, first_move(view))
        sent: list[float] = []
        try:
            status, data = await conn.request(
                "POST", path, body, tokens[actor], on_write=sent.append
            )
        except TransportError:
            result.errors["transport"] += 1
            view = await call(conn, "GET", f"{API}/games/{game_id}", token=tokens[actor])
            continue
        answered = time.perf_counter()
        if not 200 <= status < 300:
            result.errors[error_key(status, data)] += 1
            view = await call(conn, "GET", f"{API}/games/{game_id}", token=tokens[actor])
            continue
        result.move_latencies.append(answered - sent[0])
        result.last_written = sent[0]
        if data["events"]:
            seen = await timelines[1 - actor].time_of(data["events"][0]["seq"], DELIVERY_TIMEOUT)
            if seen is None:
                result.missed += 1
            else:
                result.deliveries.append(seen - sent[0])
        view = data["game"]
    result.errors["game too long"] += 1


# -- the phases ------------------------------------------------------------------------------------


async def close_all(tasks: list[asyncio.Future[None]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def met(value: float | None, limit: float, strict: bool = True) -> bool | None:
    if value is None:
        return None
    return value < limit if strict else value <= limit


async def stream_phase(
    target: Target,
    probe: Probe,
    count: int,
    per_game: int,
    idle: float,
    moves: int,
    seed: Any,
    chat: int | None = None,
) -> dict[str, Any]:
    """`chat`: play the played phase again with table talk, with that many quiet
    games talking, and then once more without (bench/chat.py)."""
    slots = await quiet_games(target, count, per_game)
    alone = await play(target, moves, "stream", seed) if moves else Play()
    baseline = await probe.tps(idle)
    before = probe.memory()
    tally = Tally(count)
    streams = [Stream(target, s.game_id, s.token, tally) for s in slots]
    timeout = open_timeout(count)
    tasks: list[asyncio.Future[None]] = []
    try:
        with probe.cpu(count) as open_cpu:
            started = time.perf_counter()
            tasks += [asyncio.ensure_future(s.run()) for s in streams]
            try:
                await asyncio.wait_for(tally.settled.wait(), timeout)
            except TimeoutError:
                late = count - tally.opened - sum(tally.errors.values())
                tally.errors[f"not open after {timeout:.0f} s"] += late
            open_seconds = round(tally.last_open - started, 3) if tally.opened else None
        await asyncio.sleep(SETTLE_SECONDS)
        at_open = probe.memory()
        pings = sum(s.pings for s in streams)
        idle_started = time.monotonic()
        with_streams = await probe.tps(idle)
        pings_idle = (sum(s.pings for s in streams) - pings) / (time.monotonic() - idle_started)
        idle_memory = probe.memory()
        if chat is not None:
            from bench import chat as table_talk

            played, chatted, again, talk = await table_talk.played_thrice(
                target,
                probe,
                slots,
                streams,
                chat,
                lambda t: play(target, moves, "stream", seed, talk=t),
            )
        else:
            played = await play(target, moves, "stream", seed) if moves else Play()
        still_open = sum(s.opened.is_set() and not s.failed for s in streams)
    finally:
        await close_all(tasks)
    rss, pss = per_item(before, idle_memory, tally.opened)
    result: dict[str, Any] = {
        "streams": count,
        "games": math.ceil(count / per_game),
        "streams_opened": tally.opened,
        "errors": dict(tally.errors),
        "dropped": sum(tally.dropped.values()),
        "dropped_by_reason": dict(tally.dropped),
        "still_open_at_end": still_open,
        "open_seconds": open_seconds,
        "open_p50_ms": percentile(tally.open_times, 50),
        "open_p99_ms": percentile(tally.open_times, 99),
        "open_cpu_ms_per_stream": open_cpu,
        "memory_kb_per_stream": rss,
        "memory_pss_kb_per_stream": pss,
        "memory_kb_per_stream_at_open": per_item(before, at_open, tally.opened)[0],
        "memory": {"before": before, "open": at_open, "idle": idle_memory},
        "idle_seconds": idle,
        "db_tps_idle_baseline": baseline,
        "db_tps_idle_with_streams": with_streams,
        "pings": sum(s.pings for s in streams),
        # 4 a minute when idle (one each 15 s); more is pings not due to silence.
        "pings_per_stream_minute_idle": round(pings_idle * 60 / max(tally.opened, 1), 2),
        **played.figures(),
        "played_alone": alone.figures(),
    }
    if chat is not None:
        result.update(table_talk.figures(played, chatted, again, talk))
    everything_open = tally.opened == count and not tally.dropped and still_open == count
    result["targets_met"] = {
        "all_open_none_dropped": everything_open,
        "delivery_p99_ms": met(result["delivery_p99_ms"], TARGETS["delivery_p99_ms"]),
        "move_p99_ms": met(result["move_p99_ms"], TARGETS["move_p99_ms"]),
        "db_tps_idle": met(with_streams, TARGETS["db_tps_idle"]),
        "memory_kb_per_stream": met(rss, TARGETS["memory_kb_per_stream"], strict=False),
    }
    return result


async def sentinel_rounds(target: Target, slot: Slot) -> None:
    """Plain requests behind every long poll in the API's queues (see the module's
    docstring)."""
    conns = [Http(target) for _ in range(SENTINELS)]
    path = f"{API}/games/{slot.game_id}/events?after={slot.after}"
    try:
        for _ in range(2):
            answers = await asyncio.gather(
                *(c.request("GET", path, token=slot.token, timeout=120) for c in conns)
            )
            if any(status != 200 for status, _ in answers):
                raise SetupError(f"sentinel request answered {answers}")
    finally:
        for c in conns:
            c.close()


async def poll_phase(
    target: Target,
    probe: Probe,
    count: int,
    per_game: int,
    idle: float,
    moves: int,
    seed: Any,
    wait: int,
) -> dict[str, Any]:
    slots = await quiet_games(target, count, per_game)
    window = max(idle, float(wait))
    alone = await play(target, moves, "poll", seed, wait) if moves else Play()
    baseline = await probe.tps(idle)
    before = probe.memory()
    tally = Tally(count)
    polls = [Poll(target, s.game_id, s.token, s.after, wait, tally) for s in slots]
    tasks: list[asyncio.Future[None]] = []
    try:
        written_seconds = None
        with probe.cpu(count) as open_cpu:
            started = time.perf_counter()
            tasks += [asyncio.ensure_future(p.run()) for p in polls]
            try:
                await asyncio.wait_for(tally.settled.wait(), open_timeout(count))
                written_seconds = round(time.perf_counter() - started, 3)
                await sentinel_rounds(target, slots[0])
            except TimeoutError:
                tally.errors["not written in time"] += count - tally.opened
            waiting_seconds = round(time.perf_counter() - started, 3)
        await asyncio.sleep(SETTLE_SECONDS)
        at_wait = probe.memory()
        waiting = await probe.tps(window)
        idle_memory = probe.memory()
        played = await play(target, moves, "poll", seed, wait) if moves else Play()
    finally:
        await close_all(tasks)
    rss, pss = per_item(before, idle_memory, tally.opened)
    reissued = sum(p.answers for p in polls)
    result: dict[str, Any] = {
        "long_polls": count,
        "games": math.ceil(count / per_game),
        "poll_wait": wait,
        "polls_waiting": tally.opened,
        "errors": dict(tally.errors),
        "dropped": sum(tally.dropped.values()),
        "dropped_by_reason": dict(tally.dropped),
        "written_seconds": written_seconds,
        "open_seconds": waiting_seconds,
        "open_cpu_ms_per_poll": open_cpu,
        "memory_kb_per_poll": rss,
        "memory_pss_kb_per_poll": pss,
        "memory_kb_per_poll_at_open": per_item(before, at_wait, tally.opened)[0],
        "memory": {"before": before, "waiting": at_wait, "idle": idle_memory},
        "idle_seconds": window,
        "db_tps_idle_baseline": baseline,
        "db_tps_idle_waiting": waiting,
        "answered_and_reissued": reissued,
        **played.figures(),
        "played_alone": alone.figures(),
    }
    result["targets_met"] = {
        "all_waiting_none_dropped": tally.opened == count and not tally.dropped,
        "delivery_p99_ms": met(result["delivery_p99_ms"], TARGETS["delivery_p99_ms"]),
        "move_p99_ms": met(result["move_p99_ms"], TARGETS["move_p99_ms"]),
        "db_tps_idle": met(waiting, TARGETS["db_tps_idle"]),
        "memory_kb_per_poll": met(rss, TARGETS["memory_kb_per_stream"], strict=False),
    }
    return result


class Overrun(Exception):
    """The run went past its `--deadline`; where each of its tasks was is on stderr."""


async def within(coroutine: Any, seconds: float | None) -> Any:
    """`coroutine`'s result, or, past `seconds`, the stack of every task still
    running on stderr and `Overrun` (the coroutine cancelled, so that what it
    started is cleaned up). A loop blocked by a call that never returns cannot see
    its deadline: `faulthandler` prints every thread's stack a little later."""
    if seconds is None:
        return await coroutine
    main = asyncio.ensure_future(coroutine)
    faulthandler.dump_traceback_later(seconds + OVERRUN_GRACE, file=sys.__stderr__)
    try:
        done, _ = await asyncio.wait({main}, timeout=max(seconds, 0.0))
        if main in done:
            return main.result()
        print(f"the run went past its deadline ({seconds:.0f} s left): its tasks", file=sys.stderr)
        for task in asyncio.all_tasks():
            if task is not asyncio.current_task():
                task.print_stack(limit=12, file=sys.stderr)
        main.cancel()
        await asyncio.wait({main}, timeout=OVERRUN_GRACE)
        raise Overrun("the run went past its deadline; the stacks of its tasks are above")
    finally:
        faulthandler.cancel_dump_traceback_later()
        if not main.done():
            main.cancel()


def run_async(coroutine: Any, deadline: float | None = None) -> Any:
    """Run `coroutine` on a fresh loop until done or `deadline` (time.monotonic())."""
    seconds = None if deadline is None else deadline - time.monotonic()
    try:
        import uvloop
    except ImportError:
        return asyncio.run(within(coroutine, seconds))
    # The client shares the two cores with the server: the lighter loop.
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(within(coroutine, seconds))


def phase(
    kind: str,
    args: argparse.Namespace,
    url: str,
    pid: int | None,
    database_url: str | None,
    server: serve.Server | None = None,
) -> dict[str, Any]:
    target = Target.of(url)
    transactions = Transactions(database_url, args.stats_flush_seconds) if database_url else None
    probe = Probe(pid, transactions, server)
    seed = args.seed if args.spawn else None
    try:
        if kind == "streams":
            coroutine = stream_phase(
                target,
                probe,
                args.streams,
                args.per_game,
                args.idle_seconds,
                args.moves,
                seed,
                chat_tables(args),
            )
        else:
            coroutine = poll_phase(
                target,
                probe,
                args.long_polls,
                args.per_game,
                args.idle_seconds,
                args.moves,
                seed,
                args.poll_wait,
            )
        try:
            result: dict[str, Any] = run_async(coroutine, args.deadline)
        except SetupError as error:
            raise SystemExit(f"set-up failed: {error}") from None
        except Overrun as error:
            raise SystemExit(str(error)) from None
        return result
    finally:
        if transactions is not None:
            transactions.close()


STREAM_KEYS = (
    "streams",
    "streams_opened",
    "errors",
    "dropped",
    "open_seconds",
    "memory_kb_per_stream",
    "db_tps_idle_baseline",
    "db_tps_idle_with_streams",
    "move_p50_ms",
    "move_p99_ms",
    "delivery_p50_ms",
    "delivery_p99_ms",
)


PROBLEM = re.compile(r"\b(WARNING|ERROR|CRITICAL|Traceback)\b")
STAMP = re.compile(r"^\[[^]]*\] \[\d+\] |^\d{4}-\d\d-\d\d [\d:,]+ ")


def log_problems(limit: int = 10) -> dict[str, int]:
    """The spawned server's warnings, errors and tracebacks, by message (without
    time and pid). Read after each phase: the next server's log replaces it."""
    try:
        lines = serve.LOG_FILE.read_text(errors="replace").splitlines()
    except OSError:
        return {}
    found = Counter(STAMP.sub("", line) for line in lines if PROBLEM.search(line))
    return dict(found.most_common(limit))


def run(args: argparse.Namespace) -> dict[str, Any]:
    nofile = raise_open_files_limit()
    result: dict[str, Any] = {"open_files_limit": nofile}
    kinds = [k for k, n in (("streams", args.streams), ("long_polls", args.long_polls)) if n]
    for kind in kinds:
        if args.spawn:
            options: dict[str, Any] = {"database_url": args.database_url}
            if args.workers is not None:
                options["workers"] = args.workers
            if args.threads is not None:
                options["threads"] = args.threads
            with serve.server(**options) as running:
                figures = phase(kind, args, running.url, running.pid, running.database_url, running)
                result["server"] = {**running.description, "url": running.url}
            result.setdefault("server_log_problems", {})[kind] = log_problems()
        else:
            figures = phase(kind, args, args.url, args.server_pid, args.database_url)
            result["server"] = {"url": args.url}
        if kind == "streams":
            result.update(figures)
        else:
            result["long_polls"] = figures
    if not args.streams:
        result.update(dict.fromkeys(STREAM_KEYS))
        result["targets_met"] = {}
    result.setdefault("long_polls", None)
    result["targets"] = {
        "all_open_none_dropped": True,
        "delivery_p99_ms_below": TARGETS["delivery_p99_ms"],
        "move_p99_ms_below": TARGETS["move_p99_ms"],
        "db_tps_idle_below": TARGETS["db_tps_idle"],
        "memory_kb_per_stream_at_most": TARGETS["memory_kb_per_stream"],
    }
    return result


def failed(result: dict[str, Any]) -> bool:
    """Streams or polls that did not open or were dropped."""
    parts = []
    if result.get("streams"):
        parts.append((result, result["streams"], result["streams_opened"]))
    polls = result.get("long_polls")
    if polls:
        parts.append((polls, polls["long_polls"], polls["polls_waiting"]))
    return any(p["errors"] or p["dropped"] or opened < wanted for p, wanted, opened in parts)


def report(result: dict[str, Any]) -> str:
    def ms(part: dict[str, Any], key: str) -> str:
        value = part.get(key)
        return "-" if value is None else f"{value:.1f}"

    def mark(ok: bool | None) -> str:
        return {True: "met", False: "NOT met", None: "-"}[ok]

    def played(part: dict[str, Any], via: str) -> list[str]:
        alone = part["played_alone"]
        return [
            f"moves:     {part['moves']} in {part['games_played']} games, "
            f"p50 {ms(part, 'move_p50_ms')} ms, p99 {ms(part, 'move_p99_ms')} ms, "
            f"max {ms(part, 'move_max_ms')} ms; errors {part['move_errors'] or 'none'}",
            f"delivery:  through a {via}, p50 {ms(part, 'delivery_p50_ms')} ms, "
            f"p99 {ms(part, 'delivery_p99_ms')} ms, max {ms(part, 'delivery_max_ms')} ms; "
            f"missed {part['delivery_missed']}",
            f"alone:     the same moves with nothing else open: move p50 "
            f"{ms(alone, 'move_p50_ms')} ms, p99 {ms(alone, 'move_p99_ms')} ms; delivery p50 "
            f"{ms(alone, 'delivery_p50_ms')} ms, p99 {ms(alone, 'delivery_p99_ms')} ms",
        ]

    server = result.get("server", {})
    lines = [f"server: {json.dumps(server)}; open files limit {result['open_files_limit']}"]
    if result.get("streams"):
        r = result
        lines += [
            f"streams:   {r['streams_opened']}/{r['streams']} open on {r['games']} quiet games "
            f"in {r['open_seconds']} s (each p50 {ms(r, 'open_p50_ms')} ms, "
            f"p99 {ms(r, 'open_p99_ms')} ms); errors {r['errors'] or 'none'}, "
            f"dropped {r['dropped']} {r['dropped_by_reason'] or ''}",
            f"           CPU ms per stream opened: {r['open_cpu_ms_per_stream']}",
            f"memory:    {r['memory_kb_per_stream']} KB RSS per stream "
            f"({r['memory_pss_kb_per_stream']} KB Pss); at open "
            f"{r['memory_kb_per_stream_at_open']} KB",
            f"database:  {r['db_tps_idle_baseline']} transactions/s idle without streams, "
            f"{r['db_tps_idle_with_streams']}/s with them ({r['idle_seconds']} s each); "
            f"{r['pings_per_stream_minute_idle']} pings a minute per idle stream",
            *played(r, "stream"),
            *(chat_report_lines(r) if r.get("chat") else []),
            "targets:   " + ", ".join(f"{k} {mark(v)}" for k, v in result["targets_met"].items()),
        ]
    polls = result.get("long_polls")
    if polls:
        p = polls
        lines += [
            f"polls:     {p['polls_waiting']}/{p['long_polls']} waiting (wait={p['poll_wait']}) "
            f"in {p['open_seconds']} s (written in {p['written_seconds']} s); "
            f"errors {p['errors'] or 'none'}, dropped {p['dropped']} "
            f"{p['dropped_by_reason'] or ''}",
            f"           CPU ms per poll: {p['open_cpu_ms_per_poll']}",
            f"memory:    {p['memory_kb_per_poll']} KB RSS per poll "
            f"({p['memory_pss_kb_per_poll']} KB Pss)",
            f"database:  {p['db_tps_idle_baseline']} transactions/s idle without polls, "
            f"{p['db_tps_idle_waiting']}/s while they wait ({p['idle_seconds']} s)",
            *played(p, "long poll"),
            "targets:   " + ", ".join(f"{k} {mark(v)}" for k, v in p["targets_met"].items()),
        ]
    for kind, problems in result.get("server_log_problems", {}).items():
        lines.append(f"server log ({kind}): {problems or 'no warnings or errors'}")
    return "\n".join(lines)


def chat_tables(args: argparse.Namespace) -> int | None:
    """How many quiet games talk with --chat (None: no talk)."""
    if not args.chat:
        return None
    games: int = math.ceil(args.streams / args.per_game)
    asked: int | None = args.chat_tables
    return games if asked is None else min(asked, games)


def chat_report_lines(result: dict[str, Any]) -> list[str]:
    from bench import chat

    return chat.report_lines(result)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the server under test")
    parser.add_argument("--streams", type=int, default=2000, help="idle streams to open (0: none)")
    parser.add_argument("--long-polls", type=int, default=0, help="waiting long polls to hold")
    parser.add_argument("--per-game", type=int, default=PER_GAME, help="watchers per quiet game")
    parser.add_argument("--moves", type=int, default=200, help="moves of the played game(s)")
    parser.add_argument("--idle-seconds", type=float, default=20.0)
    parser.add_argument(
        "--stats-flush-seconds",
        type=float,
        default=STATS_FLUSH_SECONDS,
        help="wait before each count of transactions, for what came before to reach "
        "PostgreSQL's counters (idle backends report every 10 s); less makes the idle "
        "figures count earlier work",
    )
    parser.add_argument("--poll-wait", type=int, default=POLL_WAIT, help="a long poll's wait")
    parser.add_argument("--seed", type=int, default=1, help="with --spawn: the played deals")
    parser.add_argument(
        "--chat",
        action="store_true",
        help="play the streams' played phase again with table talk on (bench/chat.py)",
    )
    parser.add_argument(
        "--chat-tables",
        type=int,
        default=None,
        help="with --chat: how many quiet games talk, one sender each (default: all)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--deadline",
        type=float,
        default=None,
        help="seconds the whole run may take: past them it stops, prints where each of "
        "its tasks was, and fails (a hang in CI says where it hung)",
    )
    parser.add_argument(
        "--spawn",
        action="store_true",
        help="start the server on a free 127.0.0.1 port with a fresh database (bench/serve.py) "
        "for each phase and stop it afterwards; --url is then ignored",
    )
    parser.add_argument(
        "--database-url",
        default=serve.DEFAULT_DATABASE_URL,
        help="the server's database: recreated with --spawn, its transactions counted",
    )
    parser.add_argument("--server-pid", type=int, default=None, help="without --spawn: memory")
    parser.add_argument("--workers", type=int, default=None, help="with --spawn")
    parser.add_argument("--threads", type=int, default=None, help="with --spawn")
    storm = parser.add_argument_group("the restart storm (bench/stream_storm.py)")
    storm.add_argument("--restart-storm", action="store_true", help="run it (its own server)")
    storm.add_argument("--handover", choices=("stop-start", "reuse-port"), default="reuse-port")
    storm.add_argument("--per-player", type=int, default=32, help="streams per seated player")
    storm.add_argument("--move-interval", type=float, default=0.1, help="seconds between moves")
    storm.add_argument("--play-seconds", type=float, default=10.0, help="play before and after")
    args = parser.parse_args(argv)
    if args.deadline is not None:
        args.deadline = time.monotonic() + args.deadline
    if args.restart_storm:
        return restart_storm(args)
    if args.streams < 0 or args.long_polls < 0 or args.moves < 0 or args.idle_seconds <= 0:
        parser.error("--streams, --long-polls and --moves must be >= 0, --idle-seconds > 0")
    if not args.streams and not args.long_polls:
        parser.error("nothing to do: --streams and --long-polls are both 0")
    if args.chat and not (args.streams and args.moves):
        parser.error("--chat needs --streams and --moves")
    if args.chat_tables is not None and args.chat_tables < 0:
        parser.error("--chat-tables must be >= 0")
    if args.per_game < 1 or not 1 <= args.poll_wait <= 30:
        parser.error("--per-game must be positive and --poll-wait 1-30")

    if args.spawn:
        import signal

        # A plain `kill` stops the spawned server too (SystemExit runs its cleanup).
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(143))
    result = run(args)
    print(json.dumps(result) if args.json else report(result))
    return 1 if failed(result) else 0


def restart_storm(args: argparse.Namespace) -> int:
    from bench import stream_storm

    raise_open_files_limit()
    result = stream_storm.run(args)
    print(json.dumps(result) if args.json else stream_storm.report(result))
    return 0 if all(result["targets_met"].values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
