"""Cluster benchmark: one mixed load on one node, and on nodes behind the balancer and
the pooler.

    python -m bench.cluster --spawn [--players 16 --readers 4 --seconds 30] [--rounds 1] [--json]

The same load runs against four set-ups in turn, each started afresh on 127.0.0.1
(free ports, one database migrated once, `uno_bench_cluster` by default):

- `one_direct`: one server node (`python -m unoservice.serve`, `--workers` x
  `--threads`), clients and database straight to it, as bench.load runs;
- `one_pooled`: that node behind Debian's HAProxy (deploy/haproxy.cfg, its servers
  local ports: bench/haproxy.py) and the node's queries through Debian's PgBouncer in
  transaction mode (bench/pgbouncer.py, `--pool-size` server connections, 20 as in
  compose), `LISTEN` straight to PostgreSQL, as compose runs it;
- `three_pooled`: three such nodes behind the same balancer and pooler;
- `three_direct`: three nodes behind the balancer with no pooler, for the number of
  PostgreSQL connections a cluster needs without one.

The load, for `--seconds`: `--players` clients each play 2-player single-round games
as both players (bench.load's MoveClient: read the view when needed, send a legal
move), each of their two players keeping a lobby stream (`GET /players/me/stream`)
open that receives a `your_turn` for nearly every move, wherever the move was made;
and `--readers` clients reading, back to back, the leaderboard and the view of a game
being played (as a spectator). Every answer but a 2xx is an error; none is retried.

Reported per set-up: requests per second (every request, game set-ups included,
the streams' openings not), p50/p99 of the timed ones (moves, view reads, reader
requests), moves per second, the stream events received, the peak of PostgreSQL
connections to the database (`pg_stat_activity`, sampled four times a second) and of
PgBouncer's clients, and the CPU milliseconds per request of every process involved
(the load generator, the nodes, HAProxy, PgBouncer, the PostgreSQL backends).
Ratios: `one_pooled` over `one_direct` (what the balancer and the pooler cost per
request) and `three_pooled` over `one_pooled`. On one machine the three nodes share
the cores the one node had: they cannot be faster, and the ratio shows what the extra
processes cost.

With `--rounds N` each set-up's seconds are cut into N runs, each on set-ups started
afresh, the set-ups taking turns (forth, then back), so that a drift of a shared
machine's speed weighs on all alike. Logs: var/bench-cluster-<database>/.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import shutil
import signal
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from bench import serve
from bench.load import API, Connection, MoveClient, SetupError, TransportError, percentile
from bench.nodes import SETUPS, Meter, database_connections, started
from bench.processes import wait_until

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/uno_bench_cluster"
STREAM_TIMEOUT = 30.0  # the streams ping every 15 s
DRAIN_SECONDS = 1.0  # for the last moves' events to reach the streams
POOL_SIZE = 20  # compose's DEFAULT_POOL_SIZE


# -- the load ---------------------------------------------------------------------------


class Player(MoveClient):
    """bench.load's two-seat player, remembering the game it plays for the readers."""

    game: str | None = None

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        data = super().call(method, path, body, token)
        if method == "POST" and path == f"{API}/games":
            self.game = data["id"]
        return data


class Reader:
    """Reads the leaderboard and a game being played, in turns, back to back."""

    def __init__(self, url: str, index: int, players: list[Player]) -> None:
        self.conn = Connection(url)
        self.players = players
        self.rng = random.Random(index)
        self.latencies: list[float] = []
        self.errors: Counter[str] = Counter()
        self.token = ""

    def setup(self) -> None:
        status, data = self.conn.request("POST", f"{API}/players", {"name": "Reader"})
        if status != 201:
            raise SetupError(f"POST /players -> {status} {data}")
        self.token = data["token"]

    def run(self, deadline: float) -> None:
        turn = 0
        while time.monotonic() < deadline:
            turn += 1
            game = self.rng.choice(self.players).game
            path = f"{API}/leaderboard" if turn % 2 or game is None else f"{API}/games/{game}"
            started = time.perf_counter()
            try:
                status, _ = self.conn.request("GET", path, token=self.token)
            except TransportError:
                self.errors["transport"] += 1
                time.sleep(0.05)  # counted; a refused connection would spin
                continue
            if 200 <= status < 300:
                self.latencies.append(time.perf_counter() - started)
            else:
                self.errors[f"GET {path.split('/')[3]} {status}"] += 1


class LobbyStream:
    """One player's lobby stream, read on a thread of its own until closed."""

    def __init__(self, url: str, token: str) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(
            parts.hostname or "127.0.0.1", parts.port or 80, timeout=STREAM_TIMEOUT
        )
        self.token = token
        self.events: Counter[str] = Counter()
        self.opened = threading.Event()
        self.closing = False
        self.error: str | None = None
        self.thread = threading.Thread(target=self._read, daemon=True)

    def _read(self) -> None:
        try:
            self.conn.request(
                "GET",
                f"{API}/players/me/stream",
                headers={"Authorization": f"Bearer {self.token}", "Accept": "text/event-stream"},
            )
            response = self.conn.getresponse()
            if response.status != 200:
                self.error = f"open {response.status}"
                return
            while line := response.readline():
                if line.startswith(b"event: "):
                    event = line[7:].strip().decode()
                    self.events[event] += 1
                    if event == "hello":
                        self.opened.set()
            if not self.closing:
                self.error = "dropped"
        except (OSError, http.client.HTTPException) as error:
            if not self.closing:
                self.error = type(error).__name__
        finally:
            self.opened.set()

    def close(self) -> None:
        self.closing = True
        with contextlib.suppress(OSError):
            if self.conn.sock is not None:
                self.conn.sock.shutdown(2)
        self.thread.join(timeout=5)
        self.conn.close()


def run_load(url: str, players: int, readers: int, seconds: float, seed: int) -> Sample:
    """The mixed load against `url` for `seconds`; what the clients saw."""
    movers = [Player(url, i, seed) for i in range(players)]
    lookers = [Reader(url, i, movers) for i in range(readers)]
    for client in [*movers, *lookers]:
        client.setup()
    streams = [LobbyStream(url, token) for mover in movers for token in mover.tokens]
    for stream in streams:
        stream.thread.start()
    for stream in streams:
        stream.opened.wait(STREAM_TIMEOUT)
    deadline = time.monotonic() + seconds
    started = time.monotonic()
    threads = [
        threading.Thread(target=client.run, args=(deadline,), daemon=True)
        for client in [*movers, *lookers]
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + STREAM_TIMEOUT)
    elapsed = time.monotonic() - started
    time.sleep(DRAIN_SECONDS)
    for stream in streams:
        stream.close()
    for client in [*movers, *lookers]:
        client.conn.close()

    sample = Sample(elapsed, games=sum(m.tally.games_finished for m in movers))
    for mover in movers:
        t = mover.tally
        sample.moves += t.latencies
        sample.timed += t.latencies + t.read_latencies
        sample.errors.update(t.errors)
        sample.errors.update(t.other_errors)
        sample.requests += len(t.latencies) + t.conflicts + sum(t.errors.values())
        sample.requests += t.other_requests
        if t.conflicts:
            sample.errors["409 race"] += t.conflicts
    for reader in lookers:
        sample.timed += reader.latencies
        sample.errors.update(reader.errors)
        sample.requests += len(reader.latencies) + sum(reader.errors.values())
    sample.streams = len(streams)
    for stream in streams:
        sample.events.update(stream.events)
        if stream.error:
            sample.errors[f"stream {stream.error}"] += 1
        elif not stream.events["hello"]:
            sample.errors["stream not opened"] += 1
    return sample


@dataclass
class Sample:
    """What the clients saw in one run of the load: times in seconds."""

    seconds: float
    games: int = 0
    requests: int = 0
    timed: list[float] = field(default_factory=list)  # moves, view reads, readers' requests
    moves: list[float] = field(default_factory=list)
    streams: int = 0
    events: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)


def summary(samples: list[Sample]) -> dict[str, Any]:
    """The figures of one set-up over its rounds."""
    seconds = sum(s.seconds for s in samples)
    timed = [x for s in samples for x in s.timed]
    moves = [x for s in samples for x in s.moves]
    requests = sum(s.requests for s in samples)
    events: Counter[str] = sum((s.events for s in samples), Counter())
    return {
        "seconds": round(seconds, 2),
        "requests": requests,
        "requests_per_s": round(requests / seconds, 1),
        "p50_ms": percentile(timed, 50),
        "p99_ms": percentile(timed, 99),
        "moves": len(moves),
        "moves_per_s": round(len(moves) / seconds, 1),
        "move_p50_ms": percentile(moves, 50),
        "move_p99_ms": percentile(moves, 99),
        "games_finished": sum(s.games for s in samples),
        "streams": max(s.streams for s in samples),
        "stream_events": sum(events.values()),
        "your_turn_events": events["your_turn"],
        "errors": dict(sum((s.errors for s in samples), Counter())),
    }


# -- the run ----------------------------------------------------------------------------

RATIO_KEYS = ("requests_per_s", "p50_ms", "p99_ms", "cpu_ms_per_request")


def ratios(over: dict[str, Any] | None, under: dict[str, Any] | None) -> dict[str, float | None]:
    """Each of RATIO_KEYS of `over` divided by `under`'s."""

    def one(key: str) -> float | None:
        if not over or not under or not over.get(key) or not under.get(key):
            return None
        return round(over[key] / under[key], 3)

    return {key: one(key) for key in RATIO_KEYS}


def run(args: argparse.Namespace) -> dict[str, Any]:
    env = serve.migrated_environment(args.database_url)
    # The last run's logs, one folder per set-up, named after its database.
    folder = serve.BASE_DIR / "var" / f"bench-cluster-{urlsplit(args.database_url).path[1:]}"
    shutil.rmtree(folder, ignore_errors=True)
    samples: dict[str, list[Sample]] = {name: [] for name in args.setups}
    cpu: dict[str, dict[str, float]] = {name: {} for name in args.setups}
    peaks: dict[str, tuple[int, int]] = dict.fromkeys(args.setups, (0, 0))
    for r in range(args.rounds):
        # Forth, then back: a drift of the machine's speed weighs on every set-up alike.
        for name in args.setups if r % 2 == 0 else reversed(args.setups):
            logs = folder / f"{name}-{r + 1}"
            logs.mkdir(parents=True)
            with started(
                SETUPS[name],
                env,
                args.database_url,
                args.workers,
                args.threads,
                args.pool_size,
                logs,
            ) as running:
                meter = Meter(args.database_url, running)
                with meter.measuring() as used:
                    samples[name].append(
                        run_load(
                            running.url,
                            args.players,
                            args.readers,
                            args.seconds / args.rounds,
                            args.seed + r,
                        )
                    )
            for group, seconds in used.items():
                cpu[name][group] = cpu[name].get(group, 0.0) + seconds
            peaks[name] = (
                max(peaks[name][0], meter.connections),
                max(peaks[name][1], meter.pooler_clients),
            )
            # The next set-up counts its own connections only.
            with contextlib.suppress(TimeoutError):
                wait_until(lambda: database_connections(args.database_url) == 0, "closing", 15)
    setups: dict[str, dict[str, Any]] = {}
    for name in args.setups:
        setup = SETUPS[name]
        load = summary(samples[name])
        per_request = {
            group: round(seconds * 1000 / load["requests"], 2) if load["requests"] else None
            for group, seconds in cpu[name].items()
        }
        setups[name] = {
            "label": setup.label,
            "nodes": setup.nodes,
            "balancer": setup.balancer,
            "pooler": setup.pooler,
            **load,
            "pg_connections_peak": peaks[name][0],
            "pooler_clients_peak": peaks[name][1] if setup.pooler else None,
            "cpu_ms_per_request": round(sum(v or 0 for v in per_request.values()), 2),
            "cpu_ms_per_request_by": per_request,
        }
    connections = {name: result["pg_connections_peak"] for name, result in setups.items()}

    def over(a: str, b: str) -> float | None:
        return (
            round(connections[a] / connections[b], 2)
            if connections.get(a) and connections.get(b)
            else None
        )

    return {
        "players": args.players,
        "readers": args.readers,
        "seconds": args.seconds,
        "rounds": args.rounds,
        "workers_per_node": args.workers,
        "threads_per_worker": args.threads,
        "pool_size": args.pool_size,
        "database": urlsplit(args.database_url).path.lstrip("/"),
        "cores": os.cpu_count(),
        "setups": setups,
        "balancer_and_pooler": ratios(setups.get("one_pooled"), setups.get("one_direct")),
        "three_nodes": ratios(setups.get("three_pooled"), setups.get("one_pooled")),
        "pg_connections": {
            **connections,
            "three_over_one_pooled": over("three_pooled", "one_pooled"),
            "three_over_one_direct": over("three_direct", "one_direct"),
        },
        "logs": str(folder),
    }


def report(result: dict[str, Any]) -> str:
    def cell(value: Any) -> str:
        return "-" if value is None else str(value)

    header = (
        "set-up",
        "req/s",
        "p50 ms",
        "p99 ms",
        "moves/s",
        "events",
        "PG conns",
        "PgB clients",
        "CPU ms/req",
    )
    rows = [header]
    for r in result["setups"].values():
        rows.append(
            (
                r["label"],
                *(
                    cell(r[key])
                    for key in (
                        "requests_per_s",
                        "p50_ms",
                        "p99_ms",
                        "moves_per_s",
                        "stream_events",
                        "pg_connections_peak",
                        "pooler_clients_peak",
                        "cpu_ms_per_request",
                    )
                ),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = [
        f"{result['players']} players (2 lobby streams each), {result['readers']} readers, "
        f"{result['seconds']} s per set-up in {result['rounds']} round(s); nodes of "
        f"{result['workers_per_node']} workers x {result['threads_per_worker']} threads; "
        f"PgBouncer pool {result['pool_size']}; "
        f"{result['cores']} cores"
    ]
    for row in rows:
        lines.append(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
    for key, title in (
        ("balancer_and_pooler", "1 node behind HAProxy + PgBouncer / 1 node direct"),
        ("three_nodes", "3 nodes / 1 node, both behind HAProxy + PgBouncer"),
    ):
        parts = ", ".join(f"{k} {cell(v)}" for k, v in result[key].items())
        lines.append(f"{title}: {parts}")
    c = result["pg_connections"]
    lines.append(
        f"PostgreSQL connections, 3 nodes / 1 node: {cell(c['three_over_one_pooled'])} with "
        f"PgBouncer, {cell(c['three_over_one_direct'])} without"
    )
    if result["cores"] and result["cores"] < 4:
        lines.append(
            f"On {result['cores']} cores the three nodes share the cores one node had: "
            "they cannot be faster."
        )
    errors = {name: r["errors"] for name, r in result["setups"].items() if r["errors"]}
    lines.append(f"errors: {errors or 'none'}; logs in {result['logs']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spawn", action="store_true", help="start every set-up (required)")
    parser.add_argument("--players", type=int, default=16, help="clients playing both seats")
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30.0, help="of load per set-up")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="cut each set-up's seconds into this many runs, the set-ups taking turns",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=serve.DEFAULT_WORKERS, help="per node")
    parser.add_argument("--threads", type=int, default=serve.DEFAULT_THREADS, help="per worker")
    parser.add_argument("--pool-size", type=int, default=POOL_SIZE, help="PgBouncer's")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument(
        "--setups",
        type=lambda text: text.split(","),
        default=list(SETUPS),
        help=f"comma-separated, of {', '.join(SETUPS)}",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if not args.spawn:
        parser.error("the set-ups are started here: pass --spawn")
    if unknown := set(args.setups) - set(SETUPS):
        parser.error(f"unknown set-ups {sorted(unknown)}")
    if args.players < 1 or args.readers < 0 or args.seconds <= 0 or args.rounds < 1:
        parser.error("--players, --seconds and --rounds must be positive")
    # A plain `kill` stops every process started here too (SystemExit runs the cleanup).
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(143))
    result = run(args)
    print(json.dumps(result) if args.json else report(result))
    failed = any(r["errors"] or not r["moves"] for r in result["setups"].values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
