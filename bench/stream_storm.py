"""The restart storm: thousands of game streams, the server restarted under them, and
every client resuming with ``Last-Event-ID``.

    python -m bench.streams --restart-storm --streams 10000 [--handover reuse-port] [--json]

Run through `bench.streams` (which see for the shared options). In order:

1. A server of its own (bench/serve.py's command, environment and fresh database) on
   a fixed 127.0.0.1 port. Games of 2 players, `--per-player` streams for each of
   them (default 32, `MAX_STREAMS_PER_PLAYER`), so 157 games for 10,000 streams.
2. Opening: every stream at once; `open_cpu_ms_per_stream` is the server's CPU
   (master and workers) over the opening, divided by the streams.
3. Play: one mover makes a move in the games in turn every `--move-interval`
   seconds. Each stream keeps when it first saw each seq; a move's delivery to a
   stream runs from just before its request is written to the stream's first sight
   of the move's first event.
4. Resume: every client drops its connection and reconnects at once with its
   Last-Event-ID, with no restart; `resume_cpu_ms_per_stream` as for the opening.
5. The restart, with `--handover`:
   - ``stop-start``: SIGTERM to the server, wait for it to exit, then start it again,
     as a process manager restarts a service;
   - ``reuse-port``: start the new server beside the old on the same port
     (``--reuse-port``), wait for each of its workers to be up, then SIGTERM the old.
   Clients reconnect as browsers' EventSource does, with a jittered backoff doubling
   from 0.1 s to 2 s. A stream is *back* once its resumed opening came;
   `back_*_s` are measured from the first opening the new server answered. Also
   when the old server's streams ended, and the CPU that the new server, the old
   one (until it exited) and this client used from the SIGTERM until all were back.
6. Play again once all are back (`delivery_after_*`), then the mover stops, every
   stream must reach its game's last seq, and each must hold every event from its
   first view on: missed, twice and out of order are counted.

Targets: every stream back within 10 s of the new server's first answer, half
within 3 s, no event missed or twice, delivery p99 under 50 ms once back.

The client shares the machine's cores with both servers, so it is kept light: each
connection is an asyncio protocol read as its bytes come (`StreamConnection`), and
what the watches hold is frozen out of the garbage collector's full passes once
every stream is open. What it could not avoid is reported: `client_stalled_s`, the
time from the SIGTERM until all were back during which its event loop was held up
for more than `STALL_SECONDS` at a stretch (reading nothing, so every time it
measured then is late by up to that stretch), and its longest such stretch.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import math
import random
import signal
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import serve
from bench.load import API, actor_of, move_request, percentile
from bench.processes import free_port
from bench.streams import (
    Frame,
    Http,
    SetupError,
    SseParser,
    Target,
    TransportError,
    call,
    error_key,
    first_move,
    run_async,
)

PER_PLAYER = 32
BACKOFF_FIRST = 0.1
BACKOFF_LAST = 2.0
HEAD_TIMEOUT = 30.0
BACK_TIMEOUT = 90.0
SETTLE_TIMEOUT = 30.0
STALL_SECONDS = 0.05
TARGETS = {"all_back_s": 10.0, "half_back_s": 3.0, "delivery_after_p99_ms": 50.0}


@dataclass
class Game:
    id: str
    tokens: list[str]
    view: dict[str, Any]  # the latest view of the game, from either seat
    last_seq: int
    # (first seq of the move, perf_counter() just before it was written, phase)
    moves: list[tuple[int, float, str]] = field(default_factory=list)


class StallMeter:
    """When this client's event loop was held up: a task that asks to sleep 10 ms
    and notes how much longer it slept, while it runs."""

    TICK = 0.01

    def __init__(self) -> None:
        self.stalls: list[tuple[float, float]] = []  # (perf_counter() at start, seconds)
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while True:
            asked = time.perf_counter()
            await asyncio.sleep(self.TICK)
            late = time.perf_counter() - asked - self.TICK
            if late > STALL_SECONDS:
                self.stalls.append((asked, late))

    def between(self, start: float, end: float) -> list[float]:
        return [late for at, late in self.stalls if start <= at <= end]

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()


class Watch:
    """One client's stream of one game, reopened with Last-Event-ID whenever it
    ends, until the bench stops it."""

    def __init__(self, target: Target, game: Game, token: str) -> None:
        self.target = target
        self.game = game
        self.token = token
        self.last_id: str | None = None
        self.first_view: int | None = None
        self.seqs: list[int] = []
        self.seen: dict[int, float] = {}
        self.openings: list[float] = []  # when each connection's first frame came
        self.answered: list[float] = []  # when each connection's 200 came
        self.closed: list[float] = []  # when each connection ended
        self.refusals: Counter[str] = Counter()
        self.ended = False
        self.connection: StreamConnection | None = None
        self.opened = asyncio.Event()

    async def run(self) -> None:
        backoff = BACKOFF_FIRST
        while not self.ended:
            if await self._connect():
                backoff = BACKOFF_FIRST
            await asyncio.sleep(backoff * random.uniform(0.5, 1.5))
            backoff = min(backoff * 2, BACKOFF_LAST)

    def drop(self) -> None:
        """Close the connection, as a client that goes away (it reconnects)."""
        if self.connection is not None and self.connection.transport is not None:
            self.connection.transport.abort()

    async def _connect(self) -> bool:
        """One connection, read until it ends; whether it brought a frame."""
        head = self.target.request_head(
            "GET", f"{API}/games/{self.game.id}/stream", self.token, "text/event-stream", None
        )
        if self.last_id is not None:
            head = head[:-2] + f"Last-Event-ID: {self.last_id}\r\n\r\n".encode()
        loop = asyncio.get_running_loop()
        self.connection = connection = StreamConnection(self, head, loop.create_future())
        try:
            await loop.create_connection(lambda: connection, self.target.host, self.target.port)
            failure = await connection.done
        except OSError as error:
            failure = type(error).__name__
        finally:
            self.closed.append(time.perf_counter())
            connection.close()
            self.connection = None
        if failure is not None:
            self.refusals[failure] += 1
        return connection.heard

    def frames(self, frames: list[Frame], now: float, *, heard: bool) -> bool:
        """Take in frames that came at `now` on a connection that has `heard` a frame
        before (or not); whether it has heard one now."""
        for frame in frames:
            if frame.event in ("comment", None):
                continue
            if frame.event == "end":
                self.ended = True
                continue
            if not heard:
                heard = True
                self.openings.append(now)
                self.opened.set()
            if frame.id is None:
                continue
            if frame.event == "game":
                if self.first_view is None:
                    self.first_view = frame.id
            else:
                self.seqs.append(frame.id)
                self.seen.setdefault(frame.id, now)
            self.last_id = str(frame.id)
        return heard


class StreamConnection(asyncio.Protocol):
    """One connection of a `Watch`, read as its bytes come (a protocol rather than a
    stream reader: the client shares the cores with the servers it measures, and
    10,000 of these reconnect at once). `done` resolves when it ends: None when the
    answer ended cleanly, else what went wrong (an exception's name, or the status
    and error code of a refusal)."""

    def __init__(self, watch: Watch, head: bytes, done: asyncio.Future[str | None]) -> None:
        self.watch = watch
        self.head = head
        self.done = done
        self.transport: Any = None
        self.buffer = b""
        self.status: int | None = None
        self.chunked = False
        self.length: int | None = None  # a sized body's length
        self.chunk = -1  # bytes of the chunk being read, its CRLF included; -1: a size line
        self.error_body = b""
        self.parser = SseParser()
        self.heard = False
        self.timeout: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:  # (uvloop's is no asyncio.Transport)
        self.transport = transport
        transport.write(self.head)
        loop = asyncio.get_running_loop()
        self.timeout = loop.call_later(HEAD_TIMEOUT, self._finish, "TimeoutError")

    def data_received(self, data: bytes) -> None:
        try:
            self._received(data, time.perf_counter())
        except (ValueError, IndexError) as error:  # not the HTTP or the SSE it should be
            self._finish(type(error).__name__)

    def _received(self, data: bytes, now: float) -> None:
        self.buffer += data
        if self.status is None:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            self._head(self.buffer[: end + 4].decode("latin1"))
            self.buffer = self.buffer[end + 4 :]
            if self.status == 200:
                self.watch.answered.append(now)
        if self.chunked:
            self._chunks(now)
        elif self.length is not None and len(self.buffer) >= self.length:
            self._part(self.buffer[: self.length], now)
            self._finish(None)

    def _head(self, raw: str) -> None:
        if self.timeout is not None:
            self.timeout.cancel()
        status_line, *lines = raw.split("\r\n")
        self.status = int(status_line.split(" ", 2)[1])
        for line in lines:
            name, _, value = line.partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "transfer-encoding" and value.lower() == "chunked":
                self.chunked = True
            elif name == "content-length":
                self.length = int(value)

    def _chunks(self, now: float) -> None:
        while not self.done.done():
            if self.chunk < 0:
                end = self.buffer.find(b"\r\n")
                if end < 0:
                    return
                size = int(self.buffer[:end].split(b";")[0], 16)
                if size == 0:
                    self._finish(None)
                    return
                self.buffer, self.chunk = self.buffer[end + 2 :], size + 2
            if len(self.buffer) < self.chunk:
                return
            part, self.buffer = self.buffer[: self.chunk - 2], self.buffer[self.chunk :]
            self.chunk = -1
            self._part(part, now)

    def _part(self, part: bytes, now: float) -> None:
        if self.status != 200:
            self.error_body += part
        else:
            self.heard = self.watch.frames(self.parser.feed(part), now, heard=self.heard)

    def connection_lost(self, exc: Exception | None) -> None:
        self._finish("IncompleteReadError" if exc is None else type(exc).__name__)

    def _finish(self, failure: str | None) -> None:
        if self.done.done():
            return
        if self.status is not None and self.status != 200:
            failure = error_key(self.status, _json(self.error_body))
        self.done.set_result(failure)
        self.close()

    def close(self) -> None:
        if self.timeout is not None:
            self.timeout.cancel()
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()


def _json(body: bytes) -> Any:
    import json

    try:
        return json.loads(body)
    except ValueError:
        return None


async def set_up(target: Target, games: int) -> list[Game]:
    pool: asyncio.Queue[Http] = asyncio.Queue()
    for _ in range(8):
        pool.put_nowait(Http(target))

    async def one(index: int) -> Game:
        conn = await pool.get()
        try:
            tokens = [
                (await call(conn, "POST", f"{API}/players", {"name": f"P{index}x{n}"}))["token"]
                for n in range(2)
            ]
            created = await call(
                conn, "POST", f"{API}/games", {"max_players": 2, "target_score": 500}, tokens[0]
            )
            await call(conn, "POST", f"{API}/games/{created['id']}/join", token=tokens[1])
            view = await call(conn, "POST", f"{API}/games/{created['id']}/start", token=tokens[0])
            return Game(created["id"], tokens, view, view["last_seq"])
        finally:
            pool.put_nowait(conn)

    try:
        return list(await asyncio.gather(*(one(i) for i in range(games))))
    finally:
        while not pool.empty():
            pool.get_nowait().close()


class Mover:
    """Moves in the games in turn, one every `interval` seconds, tolerating a server
    that is away; `phase` labels the moves it makes."""

    def __init__(self, target: Target, games: list[Game], interval: float) -> None:
        self.conn = Http(target)
        self.games = games
        self.interval = interval
        self.phase = "before"
        self.errors: Counter[str] = Counter()
        self.running = True

    async def run(self) -> None:
        turn = 0
        while self.running:
            game = self.games[turn % len(self.games)]
            turn += 1
            try:
                await self._move(game)
            except TransportError as error:
                self.errors[error.reason] += 1
            await asyncio.sleep(self.interval)

    async def _move(self, game: Game) -> None:
        view: dict[str, Any] | None = game.view
        assert view is not None
        if view["status"] != "playing":
            return
        actor = actor_of(view)
        if view.get("you") is None or view["you"]["seat"] != actor:
            view = await self._view(game, actor)
            if view is None:
                return
        path, body = move_request(game.id, view, first_move(view))
        sent: list[float] = []
        status, data = await self.conn.request(
            "POST", path, body, game.tokens[actor], on_write=sent.append
        )
        if not 200 <= status < 300:
            self.errors[error_key(status, data)] += 1
            game.view = await self._view(game, actor) or game.view
            return
        if data["events"]:
            game.moves.append((data["events"][0]["seq"], sent[0], self.phase))
        game.last_seq = data["game"]["last_seq"]
        game.view = data["game"]

    async def _view(self, game: Game, seat: int) -> dict[str, Any] | None:
        status, view = await self.conn.request(
            "GET", f"{API}/games/{game.id}", token=game.tokens[seat]
        )
        if status != 200:
            self.errors[error_key(status, view)] += 1
            return None
        found: dict[str, Any] = view
        return found


# -- the run -------------------------------------------------------------------------------


def _ready(log: Path, workers: int) -> bool:
    try:
        return log.read_text(errors="replace").count("Application startup complete") >= workers
    except OSError:
        return False


def tree_cpus(root: int) -> dict[int, float]:
    """CPU seconds of `root` and of each of its children, by pid."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = serve._stat(int(entry.name))
            if stat is not None and root in (int(entry.name), stat[0]):
                found[int(entry.name)] = stat[1]
    return found


class Servers:
    """The server under test and its restart, on one port."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.port = free_port()
        self.workers = args.workers or serve.DEFAULT_WORKERS
        self.threads = args.threads or serve.DEFAULT_THREADS
        self.reuse = args.handover == "reuse-port"
        self.env = serve.migrated_environment(args.database_url)
        self.database_url = args.database_url
        self.process = self._start(serve.LOG_FILE)
        self.cpu_at_sigterm = 0.0
        self.old_cpu_after_sigterm = 0.0

    def _start(self, log: Path) -> subprocess.Popen[bytes]:
        command = serve.server_command("uno", self.port, self.workers, self.threads)
        if self.reuse:
            command.append("--reuse-port")
        log.unlink(missing_ok=True)
        return serve.start(command, self.env, log)

    def wait_up(self, log: Path) -> None:
        deadline = time.monotonic() + serve.START_TIMEOUT
        while not _ready(log, self.workers):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not start; see {log}")
            time.sleep(0.05)

    def restart(self) -> float:
        """Restart as `--handover` says; returns the perf_counter() of the SIGTERM."""
        old = self.process
        log = serve.LOG_FILE.with_name("bench-serve-restarted.log")
        if self.reuse:
            self.process = self._start(log)
            self.wait_up(log)
        # The new server's CPU from here on is the storm's (with --reuse-port its
        # start-up came before).
        self.cpu_at_sigterm = self.cpu() if self.reuse else 0.0
        first = tree_cpus(old.pid)
        last = dict(first)
        terminated = time.perf_counter()
        old.send_signal(signal.SIGTERM)
        # The old server's CPU from its SIGTERM to its exit, per process: a worker
        # that exits takes its figure along, so each one's last sample counts.
        deadline = time.monotonic() + serve.STOP_TIMEOUT
        while old.poll() is None and time.monotonic() < deadline:
            last.update(tree_cpus(old.pid))
            time.sleep(0.05)
        old.wait(timeout=serve.STOP_TIMEOUT)
        self.old_cpu_after_sigterm = sum(cpu - first.get(pid, 0.0) for pid, cpu in last.items())
        if not self.reuse:
            self.process = self._start(log)
        return terminated

    def cpu(self) -> float:
        return serve.process_tree_cpu(self.process.pid)

    def stop(self) -> None:
        serve.stop(self.process)


async def open_all(watches: list[Watch], servers: Servers, timeout: float) -> dict[str, Any]:
    before = servers.cpu()
    started = time.perf_counter()
    tasks = [asyncio.ensure_future(w.run()) for w in watches]
    await asyncio.wait_for(asyncio.gather(*(w.opened.wait() for w in watches)), timeout)
    took = time.perf_counter() - started
    await asyncio.sleep(1.0)  # the server's last writes of the opening
    used = servers.cpu() - before
    opened = [w.openings[0] - started for w in watches]
    return {
        "tasks": tasks,
        "open_seconds": round(took, 3),
        "open_p50_s": _seconds(opened, 50),
        "open_cpu_ms_per_stream": round(used * 1000 / len(watches), 3),
    }


async def until_back(watches: list[Watch], connections: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while any(len(w.openings) < connections for w in watches):
        if time.monotonic() > deadline:
            return
        await asyncio.sleep(0.05)


async def resume_all(watches: list[Watch], servers: Servers) -> dict[str, Any]:
    connections = len(watches[0].openings) + 1
    before = servers.cpu()
    started = time.perf_counter()
    for w in watches:
        w.drop()
    await until_back(watches, connections, BACK_TIMEOUT)
    took = time.perf_counter() - started
    await asyncio.sleep(1.0)
    used = servers.cpu() - before
    return {
        "resume_seconds": round(took, 3),
        "resume_cpu_ms_per_stream": round(used * 1000 / len(watches), 3),
    }


def _seconds(values: list[float], p: float) -> float | None:
    found = percentile(values, p)
    return None if found is None else round(found / 1000, 3)


def deliveries(games: list[Game], watches: list[Watch], phase: str) -> list[float]:
    by_game: dict[str, list[Watch]] = {}
    for w in watches:
        by_game.setdefault(w.game.id, []).append(w)
    found = []
    for game in games:
        for seq, sent, label in game.moves:
            if label != phase:
                continue
            for w in by_game.get(game.id, []):
                seen = w.seen.get(seq)
                if seen is not None:
                    found.append(seen - sent)
    return found


def exactness(games: list[Game], watches: list[Watch]) -> dict[str, int]:
    last = {g.id: g.last_seq for g in games}
    missed = twice = disorder = events = 0
    for w in watches:
        events += len(w.seqs)
        first = (w.first_view or 0) + 1
        expected = set(range(first, last[w.game.id] + 1))
        missed += len(expected - set(w.seqs))
        twice += len(w.seqs) - len(set(w.seqs))
        disorder += sum(b <= a for a, b in zip(w.seqs, w.seqs[1:], strict=False))
    return {"events": events, "missed": missed, "twice": twice, "out_of_order": disorder}


async def storm(args: argparse.Namespace, servers: Servers) -> dict[str, Any]:
    target = Target.of(f"http://127.0.0.1:{servers.port}")
    games = await set_up(target, math.ceil(args.streams / (2 * args.per_player)))
    watches = [
        Watch(target, games[i % len(games)], games[i % len(games)].tokens[(i // len(games)) % 2])
        for i in range(args.streams)
    ]
    opening = await open_all(watches, servers, 60 + args.streams / 20)
    tasks = opening.pop("tasks")
    # What the watches hold lives to the end: out of the collector's full passes, each
    # of which stalls every one of the 10,000 clients at once.
    gc.freeze()
    stalls = StallMeter()
    stalls.start()
    mover = Mover(target, games, args.move_interval)
    moving = asyncio.ensure_future(mover.run())
    result: dict[str, Any] = {"streams": len(watches), "games": len(games), **opening}
    try:
        await asyncio.sleep(args.play_seconds)
        mover.phase = "resume"
        result.update(await resume_all(watches, servers))
        mover.phase = "before"
        await asyncio.sleep(args.play_seconds)
        mover.phase = "storm"
        connections = len(watches[0].openings) + 1
        client_cpu = time.process_time()
        terminated = await asyncio.get_running_loop().run_in_executor(None, servers.restart)
        await until_back(watches, connections, BACK_TIMEOUT)
        all_back = time.perf_counter()
        client_cpu = time.process_time() - client_cpu
        new_cpu = servers.cpu() - servers.cpu_at_sigterm
        ended = [min([c for c in w.closed if c > terminated] or [math.inf]) for w in watches]
        ended = [c - terminated for c in ended if c < math.inf]
        answers = [a for w in watches for a in w.answered if a > terminated]
        first = min(answers) if answers else math.nan
        back = [
            w.openings[connections - 1] - first for w in watches if len(w.openings) >= connections
        ]
        mover.phase = "after"
        await asyncio.sleep(args.play_seconds)
        mover.running = False
        await moving
        deadline = time.monotonic() + SETTLE_TIMEOUT
        last = {g.id: g.last_seq for g in games}
        while any(int(w.last_id or 0) < last[w.game.id] for w in watches):
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.1)
    finally:
        mover.running = False
        stalls.stop()
        for task in [*tasks, moving]:
            task.cancel()
        await asyncio.gather(*tasks, moving, return_exceptions=True)
        mover.conn.close()
    before, after = deliveries(games, watches, "before"), deliveries(games, watches, "after")
    held_up = stalls.between(terminated, all_back)
    refusals: Counter[str] = Counter()
    for w in watches:
        refusals.update(w.refusals)
    result.update(
        {
            "handover": args.handover,
            "back": len(back),
            "old_streams_ended_p50_s": _seconds(ended, 50),
            "old_streams_ended_max_s": _seconds(ended, 100),
            "first_answer_after_sigterm_s": round(first - terminated, 3),
            "back_p50_s": _seconds(back, 50),
            "back_p90_s": _seconds(back, 90),
            "back_max_s": _seconds(back, 100),
            "all_back_after_sigterm_s": round(all_back - terminated, 3),
            "new_server_cpu_s": round(new_cpu, 2),
            "old_server_cpu_after_sigterm_s": round(servers.old_cpu_after_sigterm, 2),
            "client_cpu_s": round(client_cpu, 2),
            "client_stalled_s": round(sum(held_up), 3),
            "client_longest_stall_s": round(max(held_up, default=0.0), 3),
            "delivery_before_p50_ms": percentile(before, 50),
            "delivery_before_p99_ms": percentile(before, 99),
            "delivery_after_p50_ms": percentile(after, 50),
            "delivery_after_p99_ms": percentile(after, 99),
            "moves": sum(len(g.moves) for g in games),
            "move_errors": dict(mover.errors),
            "refusals": dict(refusals),
            **exactness(games, watches),
        }
    )
    result["targets_met"] = {
        "all_back_s": len(back) == len(watches)
        and (result["back_max_s"] or math.inf) < TARGETS["all_back_s"],
        "half_back_s": (result["back_p50_s"] or math.inf) < TARGETS["half_back_s"],
        "exact": result["missed"] == result["twice"] == result["out_of_order"] == 0,
        "delivery_after_p99_ms": (result["delivery_after_p99_ms"] or math.inf)
        < TARGETS["delivery_after_p99_ms"],
    }
    return result


def run(args: argparse.Namespace) -> dict[str, Any]:
    servers = Servers(args)
    try:
        servers.wait_up(serve.LOG_FILE)
        try:
            result: dict[str, Any] = run_async(storm(args, servers))
        except SetupError as error:
            raise SystemExit(f"set-up failed: {error}") from None
    finally:
        servers.stop()
    result["server"] = {"workers": servers.workers, "threads": servers.threads}
    return result


def report(result: dict[str, Any]) -> str:
    r = result
    return "\n".join(
        [
            f"storm:     {r['streams']} streams on {r['games']} games, handover {r['handover']}",
            f"opening:   all in {r['open_seconds']} s (p50 {r['open_p50_s']} s); "
            f"server CPU {r['open_cpu_ms_per_stream']} ms per stream",
            f"resume:    all in {r['resume_seconds']} s; "
            f"server CPU {r['resume_cpu_ms_per_stream']} ms per stream",
            f"restart:   old streams ended p50 {r['old_streams_ended_p50_s']} s, max "
            f"{r['old_streams_ended_max_s']} s after SIGTERM; "
            f"first answer {r['first_answer_after_sigterm_s']} s after SIGTERM; "
            f"back {r['back']}: p50 {r['back_p50_s']} s, p90 {r['back_p90_s']} s, "
            f"max {r['back_max_s']} s after it; all {r['all_back_after_sigterm_s']} s "
            f"after SIGTERM; CPU from SIGTERM to all back: new server {r['new_server_cpu_s']} s, "
            f"old server {r['old_server_cpu_after_sigterm_s']} s (to its exit), "
            f"this client {r['client_cpu_s']} s (held up {r['client_stalled_s']} s, "
            f"{r['client_longest_stall_s']} s at most)",
            f"delivery:  before p50 {r['delivery_before_p50_ms']} / p99 "
            f"{r['delivery_before_p99_ms']} ms; after p50 {r['delivery_after_p50_ms']} / p99 "
            f"{r['delivery_after_p99_ms']} ms; {r['moves']} moves, errors {r['move_errors']}",
            f"exact:     {r['events']} events, missed {r['missed']}, twice {r['twice']}, "
            f"out of order {r['out_of_order']}; connections refused, reset or ended "
            f"{r['refusals']}",
            "targets:   " + ", ".join(f"{k} {v}" for k, v in r["targets_met"].items()),
        ]
    )
