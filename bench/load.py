"""HTTP load benchmark: moves through the API, against the database floor.

    python -m bench.load --url http://127.0.0.1:8000 --clients 16 --seconds 30 [--json]
    python -m bench.load --spawn --clients 16 --seconds 30   # starts its own server

Two phases of `--seconds` each, with `--clients` concurrent clients (threads, one
keep-alive HTTP/1.1 connection each, standard library only):

1. Moves. Each client creates two guest players (``POST /players``) and then plays
   2-player, single-round games (``target_score`` 0, so a game ends after one
   round, a few dozen moves) as both of them, the way two mobile clients would:
   the first creates the game, the second joins, the first starts; then, until
   the game ends, the seat to act reads its view (``GET /games/{id}``, skipped when
   the previous answer already is that seat's view), picks one of
   ``you.legal_moves`` (a play when there is one, calling UNO with its
   second-to-last card) and sends it with the view's ``version`` to ``/moves``
   (``/challenge`` for challenge/accept). A finished game is followed by a new one.
   Only the move requests are measured: count, moves/s, latency percentiles. The
   games' other requests (about one view read per move) are reported beside them.
2. Floor. Each client creates one player and then sends ``POST /bench/floor``
   (bench/floor.py: the bearer-token lookup, then lock one row, update it, insert
   one row) back to back. It needs a server with ``BENCH_FLOOR=true``; without it
   the floor figures are null.

With `--rounds N` (default 3) each phase is cut into N slices and the slices take
turns (moves, floor, moves, floor, ...), so a drift in the machine's speed weighs on
both alike. Clients create their players before the clock starts. `ratio` is moves_per_s /
baseline_per_s and `p99_ratio` the move p99 over the floor's. A move answered with
any non-2xx status other than a 409 race (``stale_version``, ``not_your_turn``) is
an error and is counted by status and error code; no request is retried. The
phases stop by themselves after `--seconds` (requests in flight are let finish) and
every loop is bounded. The exit status is 1 when no move was made.

With `--spawn`, the CPU milliseconds per measured request are reported too, for
the load generator, gunicorn and the PostgreSQL backends (`cpu_ms_per_move`,
`cpu_ms_per_floor`): a move's share includes its phase's view reads and game
set-ups. On a machine shared with other work they vary less than the rates do.

Only the server at `--url` is ever contacted. With `--spawn`, bench/serve.py first
starts gunicorn on a free 127.0.0.1 port with a fresh database (see there), and
stops it at the end.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

API = "/api/v1"
FLOOR_PATH = "/bench/floor"
MAX_MOVES_PER_GAME = 3000  # a 2-player round takes ~30-150; this only bounds a bug
MAX_FAILURES_PER_GAME = 5  # unexpected answers before a client gives a game up
SETUP_TIMEOUT = 60.0  # seconds for every client to create its players
REQUEST_TIMEOUT = 30.0
# 409s that are races, not errors: another request moved the game on first.
RACE_CODES = frozenset({"stale_version", "not_your_turn"})
JSON_KEYS = ("moves_per_s", "p50_ms", "p95_ms", "p99_ms", "baseline_per_s", "ratio")


class TransportError(Exception):
    """The connection failed (refused, reset, timed out): no HTTP answer."""


class SetupError(Exception):
    """A request outside the measured ones (players, games) was not answered 2xx."""


class Connection:
    """One keep-alive HTTP/1.1 connection to the server under test."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise SystemExit(f"--url must be http://host:port, not {url!r}")
        self.host = parts.hostname
        self.port = parts.port or 80
        self.prefix = parts.path.rstrip("/")
        self._conn: http.client.HTTPConnection | None = None

    def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        headers = {"Accept": "application/json"}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if self._conn is None:
            self._conn = http.client.HTTPConnection(self.host, self.port, timeout=REQUEST_TIMEOUT)
        try:
            self._conn.request(method, self.prefix + path, body=payload, headers=headers)
            response = self._conn.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException) as error:
            self.close()
            raise TransportError(f"{method} {path}: {type(error).__name__}: {error}") from None
        if response.will_close:
            self.close()
        try:
            data = json.loads(raw) if raw else None
        except ValueError:
            data = None
        return response.status, data

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


@dataclass
class Tally:
    """What one client saw; merged after the phase."""

    latencies: list[float] = field(default_factory=list)  # measured requests, seconds
    conflicts: int = 0  # 409 stale_version / not_your_turn answers to measured requests
    errors: Counter[str] = field(default_factory=Counter)  # measured: "422 illegal_move"
    other_errors: Counter[str] = field(default_factory=Counter)  # setup, reads, transport
    other_requests: int = 0
    read_latencies: list[float] = field(default_factory=list)  # GET /games/{id}
    games_started: int = 0
    games_finished: int = 0

    def merge(self, other: Tally) -> None:
        self.latencies += other.latencies
        self.conflicts += other.conflicts
        self.errors.update(other.errors)
        self.other_errors.update(other.other_errors)
        self.other_requests += other.other_requests
        self.read_latencies += other.read_latencies
        self.games_started += other.games_started
        self.games_finished += other.games_finished


def _error_code(data: Any) -> str | None:
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        code = data["error"].get("code")
        return code if isinstance(code, str) else None
    return None


def _error_key(status: int, data: Any) -> str:
    return f"{status} {_error_code(data) or '-'}"


def _is_race(status: int, data: Any) -> bool:
    return status == 409 and _error_code(data) in RACE_CODES


def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile of `values` in milliseconds."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return round(ordered[rank - 1] * 1000, 2)


# -- the move phase -------------------------------------------------------------------


def choose_move(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One of the viewer's legal moves: a play when there is one (calling UNO with
    the second-to-last card), else a move that ends the turn (draw, pass, ...)."""
    you = view["you"]
    moves = you["legal_moves"]
    plays = [m for m in moves if m["action"] == "play"]
    if plays:
        move = dict(rng.choice(plays))
        if len(you["hand"]) == 2:
            move["uno"] = True
        return move
    # Calling UNO or catching does not end a turn: prefer moves that do.
    others = [m for m in moves if m["action"] not in ("call_uno", "catch_uno")]
    return dict(rng.choice(others or moves))


def actor_of(view: dict[str, Any]) -> int:
    """The seat that must act now: the one a pending decision waits for, else the
    current seat."""
    seat: int = view["pending"]["seat"] if view["pending"] else view["current_seat"]
    return seat


def move_request(game_id: str, view: dict[str, Any], move: dict[str, Any]) -> tuple[str, Any]:
    """Path and body of `move` (challenge/accept go to /challenge)."""
    if move["action"] in ("challenge", "accept"):
        body = {"version": view["version"], "challenge": move["action"] == "challenge"}
        return f"{API}/games/{game_id}/challenge", body
    return f"{API}/games/{game_id}/moves", {"version": view["version"], **move}


class MoveClient:
    """Plays 2-player games as both players over one connection."""

    def __init__(self, url: str, index: int, seed: int) -> None:
        self.conn = Connection(url)
        self.index = index
        self.rng = random.Random(seed * 1000 + index)
        self.tally = Tally()
        self.tokens: list[str] = []

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        """An unmeasured request that must succeed."""
        self.tally.other_requests += 1
        try:
            status, data = self.conn.request(method, path, body, token)
        except TransportError:
            self.tally.other_errors["transport"] += 1
            raise
        if not 200 <= status < 300:
            self.tally.other_errors[f"{method} {_error_key(status, data)}"] += 1
            raise SetupError(f"{method} {path} -> {status} {data}")
        return data

    def setup(self) -> None:
        for name in ("Ann", "Bob"):
            player = self.call("POST", f"{API}/players", {"name": f"{name}{self.index}"})
            self.tokens.append(player["token"])

    def read(self, game_id: str, seat: int) -> dict[str, Any]:
        started = time.perf_counter()
        view: dict[str, Any] = self.call("GET", f"{API}/games/{game_id}", token=self.tokens[seat])
        self.tally.read_latencies.append(time.perf_counter() - started)
        return view

    def send(self, game_id: str, seat: int, view: dict[str, Any]) -> dict[str, Any] | None:
        """Send one move for `seat`; return its new view, or None after a rejection."""
        path, body = move_request(game_id, view, choose_move(view, self.rng))
        started = time.perf_counter()
        try:
            status, data = self.conn.request("POST", path, body, self.tokens[seat])
        except TransportError:
            self.tally.errors["transport"] += 1
            return None
        elapsed = time.perf_counter() - started
        if 200 <= status < 300:
            self.tally.latencies.append(elapsed)
            game: dict[str, Any] = data["game"]
            return game
        if _is_race(status, data):
            self.tally.conflicts += 1
        else:
            self.tally.errors[_error_key(status, data)] += 1
        return None

    def play_game(self, deadline: float) -> None:
        host, guest = self.tokens
        game = self.call(
            "POST",
            f"{API}/games",
            {"max_players": 2, "target_score": 0, "seed": self.rng.getrandbits(31)},
            host,
        )
        game_id = game["id"]
        self.call("POST", f"{API}/games/{game_id}/join", token=guest)
        view = self.call("POST", f"{API}/games/{game_id}/start", token=host)
        self.tally.games_started += 1
        failures = 0
        for _ in range(MAX_MOVES_PER_GAME):
            if view["status"] != "playing":
                self.tally.games_finished += view["status"] == "finished"
                return
            if time.monotonic() >= deadline:
                return
            actor = actor_of(view)
            you = view.get("you")
            if you is None or you["seat"] != actor:
                view = self.read(game_id, actor)
            moved = self.send(game_id, actor, view)
            if moved is None:
                failures += 1
                if failures >= MAX_FAILURES_PER_GAME:
                    return  # give the game up; the errors are counted
                view = self.read(game_id, actor)
            else:
                view = moved
        self.tally.other_errors["game too long"] += 1

    def run(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            try:
                self.play_game(deadline)
            except (SetupError, TransportError):
                time.sleep(0.05)  # counted already; a new game
            except (KeyError, TypeError):
                self.tally.other_errors["malformed answer"] += 1
                time.sleep(0.05)


# -- the floor phase ------------------------------------------------------------------


class FloorClient:
    def __init__(self, url: str, index: int, seed: int) -> None:
        self.conn = Connection(url)
        self.index = index
        self.tally = Tally()
        self.token = ""
        self.available = True

    def setup(self) -> None:
        status, data = self.conn.request("POST", f"{API}/players", {"name": f"Floor{self.index}"})
        self.tally.other_requests += 1
        if status != 201:
            raise SetupError(f"POST /players -> {status} {data}")
        self.token = data["token"]
        status, data = self.conn.request("POST", FLOOR_PATH, {}, self.token)  # creates its row
        self.tally.other_requests += 1
        if status == 404:
            self.available = False
        elif status != 200:
            raise SetupError(f"POST {FLOOR_PATH} -> {status} {data}")

    def run(self, deadline: float) -> None:
        if not self.available:
            return
        while time.monotonic() < deadline:
            started = time.perf_counter()
            try:
                status, data = self.conn.request("POST", FLOOR_PATH, {}, self.token)
            except TransportError:
                self.tally.errors["transport"] += 1
                time.sleep(0.05)
                continue
            if 200 <= status < 300:
                self.tally.latencies.append(time.perf_counter() - started)
            elif _is_race(status, data):
                self.tally.conflicts += 1
            else:
                self.tally.errors[_error_key(status, data)] += 1


# -- running a phase ------------------------------------------------------------------


@dataclass
class PhaseResult:
    tally: Tally
    seconds: float
    available: bool
    setup_failures: int


def run_phase(
    make_client: Callable[[int], MoveClient | FloorClient], clients: int, seconds: float
) -> PhaseResult:
    """Set every client up, then let them all loose for `seconds` together."""
    workers = [make_client(i) for i in range(clients)]
    clock: list[float] = []
    setup_failed = [False] * clients

    def start_clock() -> None:  # run by one thread once all are set up, before any goes on
        clock.append(time.monotonic())

    barrier = threading.Barrier(clients, action=start_clock)

    def body(i: int) -> None:
        worker = workers[i]
        try:
            try:
                worker.setup()
            except (SetupError, TransportError, KeyError, TypeError):
                setup_failed[i] = True
            barrier.wait(timeout=SETUP_TIMEOUT)
            if not setup_failed[i]:
                worker.run(clock[0] + seconds)
        except threading.BrokenBarrierError:
            setup_failed[i] = True
        finally:
            worker.conn.close()

    threads = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=SETUP_TIMEOUT + seconds + REQUEST_TIMEOUT)
    # At least `seconds`: when every client failed to set up, nothing ran at all.
    elapsed = max(time.monotonic() - clock[0], seconds) if clock else seconds
    tally = Tally()
    for worker in workers:
        tally.merge(worker.tally)
    available = all(getattr(w, "available", True) for w in workers)
    return PhaseResult(tally, elapsed, available, sum(setup_failed))


class CpuProbe(Protocol):
    """What bench/serve.py's Server offers: the CPU its processes use in a block."""

    def cpu_meter(self) -> AbstractContextManager[dict[str, float]]: ...


def measured_phase(
    make_client: Callable[[int], MoveClient | FloorClient],
    clients: int,
    seconds: float,
    probe: CpuProbe | None,
) -> tuple[PhaseResult, dict[str, float]]:
    """A phase, with the CPU seconds the load generator (and the server) used."""
    with probe.cpu_meter() if probe is not None else nullcontext({}) as used:
        started = time.process_time()
        result = run_phase(make_client, clients, seconds)
        cpu = {"client_cpu_s": time.process_time() - started}
    return result, {**cpu, **used}


def _pool(
    parts: list[tuple[PhaseResult, dict[str, float]]],
) -> tuple[PhaseResult, dict[str, float]]:
    """Several slices of one kind of phase, counted as one."""
    tally = Tally()
    cpu: dict[str, float] = {}
    for result, used in parts:
        tally.merge(result.tally)
        for key, value in used.items():
            cpu[key] = cpu.get(key, 0.0) + value
    pooled = PhaseResult(
        tally,
        sum(result.seconds for result, _ in parts),
        all(result.available for result, _ in parts),
        sum(result.setup_failures for result, _ in parts),
    )
    return pooled, cpu


def run(
    url: str,
    clients: int,
    seconds: float,
    seed: int = 1,
    floor: bool = True,
    probe: CpuProbe | None = None,
    rounds: int = 1,
) -> dict[str, Any]:
    """Both phases against the server at `url`; the figures as one dict. With a
    `probe` (a spawned server), also the CPU milliseconds per measured request.

    With `rounds` > 1 each phase is cut into that many slices, moves and floor
    taking turns, so that a drift in the machine's speed (a busy neighbour, a
    slower core) weighs on both sides alike instead of on whichever ran second.
    """
    slice_seconds = seconds / rounds
    move_parts: list[tuple[PhaseResult, dict[str, float]]] = []
    floor_parts: list[tuple[PhaseResult, dict[str, float]]] = []
    for r in range(rounds):
        round_seed = seed + 7919 * r
        move_parts.append(
            measured_phase(
                lambda i, s=round_seed: MoveClient(url, i, s), clients, slice_seconds, probe
            )
        )
        if floor:
            floor_parts.append(
                measured_phase(
                    lambda i, s=round_seed: FloorClient(url, i, s), clients, slice_seconds, probe
                )
            )
    moves, move_cpu = _pool(move_parts)
    base = None
    if floor:
        base, base_cpu = _pool(floor_parts)
    t = moves.tally
    result: dict[str, Any] = {
        "clients": clients,
        "seconds": round(moves.seconds, 2),
        "moves": len(t.latencies),
        "moves_per_s": round(len(t.latencies) / moves.seconds, 1),
        "p50_ms": percentile(t.latencies, 50),
        "p95_ms": percentile(t.latencies, 95),
        "p99_ms": percentile(t.latencies, 99),
        "max_ms": percentile(t.latencies, 100),
        "move_errors": dict(t.errors),
        "move_conflicts": t.conflicts,
        "other_requests": t.other_requests,
        "other_errors": dict(t.other_errors),
        "reads_per_s": round(len(t.read_latencies) / moves.seconds, 1),
        "read_p50_ms": percentile(t.read_latencies, 50),
        "read_p99_ms": percentile(t.read_latencies, 99),
        "requests_per_s": round(
            (len(t.latencies) + t.conflicts + sum(t.errors.values()) + t.other_requests)
            / moves.seconds,
            1,
        ),
        "games_started": t.games_started,
        "games_finished": t.games_finished,
        "setup_failures": moves.setup_failures,
        "cpu_ms_per_move": _per_request(move_cpu, len(t.latencies)),
        "baseline_per_s": None,
        "baseline_p50_ms": None,
        "baseline_p95_ms": None,
        "baseline_p99_ms": None,
        "baseline_errors": {},
        "ratio": None,
        "p99_ratio": None,
    }
    if base is not None and base.available and base.tally.latencies:
        b = base.tally
        result["cpu_ms_per_floor"] = _per_request(base_cpu, len(b.latencies))
        baseline_per_s = len(b.latencies) / base.seconds
        result.update(
            {
                "baseline_per_s": round(baseline_per_s, 1),
                "baseline_p50_ms": percentile(b.latencies, 50),
                "baseline_p95_ms": percentile(b.latencies, 95),
                "baseline_p99_ms": percentile(b.latencies, 99),
                "baseline_errors": dict(b.errors),
                "ratio": round(result["moves_per_s"] / baseline_per_s, 3),
            }
        )
        if result["p99_ms"] is not None and result["baseline_p99_ms"]:
            result["p99_ratio"] = round(result["p99_ms"] / result["baseline_p99_ms"], 2)
    elif base is not None:
        result["baseline_errors"] = dict(base.tally.errors)
        if not base.available:
            result["baseline_errors"]["404 floor not mounted (BENCH_FLOOR off)"] = 1
        if base.setup_failures:
            result["baseline_errors"]["client set-up failed"] = base.setup_failures
    return result


def _per_request(cpu: dict[str, float], count: int) -> dict[str, float | None]:
    """CPU milliseconds per measured request, by process group (a move's share
    includes the view reads and game set-up of the move phase)."""
    return {
        key.replace("_cpu_s", ""): round(value * 1000 / count, 2) if count else None
        for key, value in cpu.items()
    }


def report(result: dict[str, Any]) -> str:
    def ms(key: str) -> str:
        value = result[key]
        return "-" if value is None else f"{value:.1f}"

    lines = [
        f"{result['clients']} clients, {result['seconds']} s per phase",
        f"moves:     {result['moves']} ({result['moves_per_s']}/s), "
        f"p50 {ms('p50_ms')} ms, p95 {ms('p95_ms')} ms, p99 {ms('p99_ms')} ms, "
        f"max {ms('max_ms')} ms",
        f"           {result['games_finished']} games finished; "
        f"view reads {result['reads_per_s']}/s (p50 {ms('read_p50_ms')} ms, "
        f"p99 {ms('read_p99_ms')} ms); all requests {result['requests_per_s']}/s",
        f"           errors {result['move_errors'] or 'none'}, "
        f"409 races {result['move_conflicts']}, other errors {result['other_errors'] or 'none'}",
    ]
    if result["baseline_per_s"] is None:
        lines.append(f"floor:     unavailable {result['baseline_errors'] or ''}")
    else:
        lines += [
            f"floor:     {result['baseline_per_s']}/s, p50 {ms('baseline_p50_ms')} ms, "
            f"p95 {ms('baseline_p95_ms')} ms, p99 {ms('baseline_p99_ms')} ms, "
            f"errors {result['baseline_errors'] or 'none'}",
            f"ratio:     moves/s / floor/s = {result['ratio']}; "
            f"p99 move / p99 floor = {result['p99_ratio']}",
        ]
    for key, label in (("cpu_ms_per_move", "move"), ("cpu_ms_per_floor", "floor")):
        if key in result:
            parts = ", ".join(f"{name} {value}" for name, value in result[key].items())
            lines.append(f"CPU ms per {label:<5} {parts}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the server under test")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30.0, help="per phase")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-floor", action="store_true", help="skip the floor phase")
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="cut each phase into this many slices, moves and floor taking turns",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--spawn",
        action="store_true",
        help="start the server on a free 127.0.0.1 port with a fresh database (bench/serve.py) "
        "and stop it afterwards; --url is then ignored",
    )
    parser.add_argument(
        "--server",
        choices=["uno", "gthread"],
        default="uno",
        help="with --spawn: the service's own command (default, what ships) or the "
        "WSGI-only gunicorn gthread server, the baseline it replaced",
    )
    parser.add_argument("--database-url", default=None, help="with --spawn (bench/serve.py)")
    parser.add_argument("--workers", type=int, default=None, help="with --spawn")
    parser.add_argument("--threads", type=int, default=None, help="with --spawn")
    args = parser.parse_args(argv)
    if args.clients < 1 or args.seconds <= 0 or args.rounds < 1:
        parser.error("--clients, --seconds and --rounds must be positive")

    if args.spawn:
        import signal

        from bench import serve

        # A plain `kill` stops the spawned server too (SystemExit runs its cleanup).
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(143))
        options = {
            key: value
            for key, value in (
                ("database_url", args.database_url),
                ("workers", args.workers),
                ("threads", args.threads),
                ("kind", args.server),
            )
            if value is not None
        }
        with serve.server(**options) as server:
            result = run(
                server.url,
                args.clients,
                args.seconds,
                args.seed,
                floor=not args.no_floor,
                probe=server,
                rounds=args.rounds,
            )
            result["server"] = server.description
    else:
        result = run(
            args.url,
            args.clients,
            args.seconds,
            args.seed,
            floor=not args.no_floor,
            rounds=args.rounds,
        )
    print(json.dumps(result) if args.json else report(result))
    return 0 if result["moves"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
