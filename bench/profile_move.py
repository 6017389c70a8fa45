"""Where the time of one move request goes: the full Django stack in one process.

    python -m bench.profile_move [--moves 1000] [--database-url postgres://...] [--top 30]
        [--profile move|view read|stream ticket|floor] [--sort cumulative|tottime]

With ``CACHE_URL`` in the environment the cache is that Redis, as production runs
it; without, the memory cache of one process.

It recreates a local PostgreSQL database (default ``uno_bench_profile``), migrates
it with the benchmark server's settings (bench/serve.py: DEBUG off, BENCH_FLOOR on,
no rate limits) and then plays 2-player games as bench/load.py does, calling
Django's WSGI handler directly (everything gunicorn runs, minus HTTP parsing), with
one floor request (``POST /bench/floor``) after each move.

Every tenth move is followed by a stream ticket of the player who moved (``POST
/games/{id}/stream-ticket``, what a browser asks before it opens a stream).

A view read is made as the server answers it, beside Django (`games.live.reads`:
its blocking part, called on this thread), and then, as "view, Django", through
Django's handler as before.

It reports, per request kind (move, view read, view through Django, stream ticket,
floor): wall time, time
waiting for PostgreSQL (every psycopg round trip: queries, the connection health
check, COMMIT with its WAL flush) by statement, the rest, the CPU time of the
serving thread, the SQL statements and PostgreSQL round trips per request, and the
Redis round trips (each command or pipeline redis-py sends, but for a new
connection's handshake); then a cProfile of one kind's requests (`--profile`, the
moves by default): own time by package, and the functions with the largest
cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from bench import serve
from bench.load import API, FLOOR_PATH, actor_of, choose_move, move_request

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/uno_bench_profile"

T = TypeVar("T")

# Own time (cProfile tottime) is summed by the first of these found in the path.
PACKAGES = (
    ("games/engine/", "games.engine (rules, snapshot)"),
    ("games/", "games (services, selectors, api)"),
    ("players/", "players (auth)"),
    ("unoservice/", "unoservice (errors, idempotency, throttling)"),
    ("rest_framework/", "DRF"),
    ("django/db/", "Django ORM"),
    ("django/", "Django (other: handler, middleware, ...)"),
    ("psycopg/", "psycopg (Python side)"),
    ("psycopg_binary/", "psycopg (C side)"),
    ("json/", "json"),
    ("uuid", "uuid"),
)


KINDS = ("move", "view read", "view, Django", "stream ticket", "floor")
# What redis-py sends once per new connection, not per request.
REDIS_HANDSHAKE = (b"HELLO", b"CLIENT", b"SELECT", b"AUTH")


@dataclass
class Kind:
    wall: list[float] = field(default_factory=list)
    sql: list[float] = field(default_factory=list)
    queries: list[int] = field(default_factory=list)
    statements: list[int] = field(default_factory=list)
    redis: list[int] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    by_statement: dict[str, float] = field(default_factory=lambda: defaultdict(float))


class RedisCounter:
    """Round trips to Redis: each send of a command or a pipeline."""

    def __init__(self) -> None:
        self.sends = 0

    @contextmanager
    def counting(self) -> Iterator[None]:
        from redis.connection import AbstractConnection

        original = AbstractConnection.send_packed_command
        counter = self

        def send(connection: Any, command: Any, check_health: bool = True) -> None:
            first = bytes(command[0] if isinstance(command, list) else command)
            if first.split(b"\r\n")[2].upper() not in REDIS_HANDSHAKE:
                counter.sends += 1
            original(connection, command, check_health)

        AbstractConnection.send_packed_command = send  # type: ignore[method-assign]
        try:
            yield
        finally:
            AbstractConnection.send_packed_command = original  # type: ignore[method-assign]


class SqlTimer:
    """Statements through Django (an execute-wrapper), and the time psycopg waits
    for PostgreSQL: every round trip, the health check and COMMIT included."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.round_trips = 0
        self.statements: list[str] = []
        self.current = "other"
        self.by_statement: dict[str, float] = defaultdict(float)

    def __call__(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        label = sql.split(None, 1)[0].upper()
        if " FOR UPDATE" in sql:
            label += " FOR UPDATE"
        elif label == "SELECT" and " FROM " in sql:
            table = sql.split(" FROM ", 1)[1].split(None, 1)[0].strip('"')
            label += f" {table}"
        elif label == "SELECT":
            # A call with no table, such as the pg_notify of a seat taken.
            label += " " + sql.split(None, 2)[1].split("(", 1)[0]
        elif label in ("UPDATE", "INSERT"):
            label += " " + sql.split(None, 3)[2 if label == "INSERT" else 1].strip('"')
        self.statements.append(label)
        return self.labelled(label, execute, sql, params, many, context)

    def labelled(self, label: str, call: Callable[..., Any], *args: Any) -> Any:
        previous, self.current = self.current, label
        try:
            return call(*args)
        finally:
            self.current = previous

    @contextmanager
    def waits(self) -> Iterator[None]:
        import psycopg
        from django.db.backends.postgresql.base import DatabaseWrapper

        timer = self
        originals = (psycopg.Connection.wait, DatabaseWrapper._commit, DatabaseWrapper.is_usable)

        def wait(conn: Any, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return originals[0](conn, *args, **kwargs)
            finally:
                elapsed = time.perf_counter() - started
                timer.seconds += elapsed
                timer.round_trips += 1
                timer.by_statement[timer.current] += elapsed

        def commit(wrapper: Any) -> Any:
            return timer.labelled("COMMIT", originals[1], wrapper)

        def is_usable(wrapper: Any) -> Any:
            return timer.labelled("SELECT 1 (health check)", originals[2], wrapper)

        psycopg.Connection.wait = wait  # type: ignore[method-assign]
        DatabaseWrapper._commit = commit  # type: ignore[method-assign]
        DatabaseWrapper.is_usable = is_usable  # type: ignore[method-assign]
        try:
            yield
        finally:
            psycopg.Connection.wait = originals[0]  # type: ignore[method-assign]
            DatabaseWrapper._commit = originals[1]  # type: ignore[method-assign]
            DatabaseWrapper.is_usable = originals[2]  # type: ignore[method-assign]


class Driver:
    """Requests straight into Django's WSGI handler."""

    def __init__(self) -> None:
        from django.core.handlers.wsgi import WSGIHandler

        self.handler = WSGIHandler()
        self.kinds: dict[str, Kind] = defaultdict(Kind)
        self.profile: cProfile.Profile | None = None
        self.profiled = "move"
        self.redis = RedisCounter()
        self.last_statements: dict[str, list[str]] = {}

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None, kind: str = ""
    ) -> tuple[int, Any]:
        payload = b"" if body is None else json.dumps(body).encode()
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "127.0.0.1",
            "HTTP_ACCEPT": "application/json",
            "CONTENT_TYPE": "application/json" if body is not None else "",
            "CONTENT_LENGTH": str(len(payload)),
            "wsgi.input": io.BytesIO(payload),
            "wsgi.url_scheme": "http",
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
            "wsgi.version": (1, 0),
        }
        if token is not None:
            environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"
        status: list[str] = []

        def start_response(line: str, headers: Any, exc_info: Any = None) -> None:
            status.append(line)

        def answer() -> bytes:
            result = self.handler(environ, start_response)
            raw = b"".join(result)
            if hasattr(result, "close"):
                result.close()  # request_finished: what gunicorn does after each answer
            return raw

        raw = self.measured(kind, answer)
        code = int(status[0].split()[0])
        return code, json.loads(raw) if raw else None

    def read_beside_django(self, game_id: str, token: str, kind: str) -> tuple[int, Any]:
        """A view read as the server answers it, beside Django (`games.live.reads`):
        its blocking part, on this thread, as on an API thread."""
        from games.live import reads

        meta = {"REMOTE_ADDR": "127.0.0.1"}
        answered = self.measured(kind, lambda: reads.read(game_id, f"Bearer {token}", None, meta))
        if answered is None:
            raise SystemExit("the view read was left to Django")
        return answered[1], json.loads(answered[2])

    def measured(self, kind: str, work: Callable[[], T]) -> T:
        from django.db import connection

        timer = SqlTimer()
        profile = self.profile if kind == self.profiled else None
        sends = self.redis.sends
        started = time.perf_counter()
        cpu_started = time.thread_time()
        with connection.execute_wrapper(timer), timer.waits(), self.redis.counting():
            if profile is not None:
                profile.enable()
            try:
                result = work()
            finally:
                if profile is not None:
                    profile.disable()
        elapsed = time.perf_counter() - started
        cpu = time.thread_time() - cpu_started
        if kind:
            record = self.kinds[kind]
            record.wall.append(elapsed)
            record.sql.append(timer.seconds)
            record.queries.append(timer.round_trips)
            record.statements.append(len(timer.statements))
            record.redis.append(self.redis.sends - sends)
            record.cpu.append(cpu)
            for label, seconds in timer.by_statement.items():
                record.by_statement[label] += seconds
            self.last_statements[kind] = timer.statements
        return result

    def ok(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        code, data = self.call(method, path, body, token)
        if not 200 <= code < 300:
            raise SystemExit(f"{method} {path} -> {code} {data}")
        return data


def play(driver: Driver, moves: int, rng: random.Random, floor_token: str | None = None) -> None:
    """Play `moves` moves; with `floor_token`, each move is followed by one floor
    request, so that both see the same conditions on a busy machine."""
    tokens = [driver.ok("POST", f"{API}/players", {"name": n})["token"] for n in ("Ann", "Bob")]
    made = 0
    while made < moves:
        body = {"max_players": 2, "target_score": 0, "seed": rng.getrandbits(31)}
        game_id = driver.ok("POST", f"{API}/games", body, tokens[0])["id"]
        driver.ok("POST", f"{API}/games/{game_id}/join", token=tokens[1])
        view = driver.ok("POST", f"{API}/games/{game_id}/start", token=tokens[0])
        while view["status"] == "playing" and made < moves:
            actor = actor_of(view)
            if view["you"] is None or view["you"]["seat"] != actor:
                # As the server answers it, then as Django would.
                code, view = driver.read_beside_django(game_id, tokens[actor], "view read")
                driver.call(
                    "GET", f"{API}/games/{game_id}", token=tokens[actor], kind="view, Django"
                )
            path, body = move_request(game_id, view, choose_move(view, rng))
            code, answer = driver.call("POST", path, body, tokens[actor], kind="move")
            if code != 200:
                raise SystemExit(f"move -> {code} {answer}")
            view = answer["game"]
            made += 1
            if made % 10 == 0:
                driver.call(
                    "POST",
                    f"{API}/games/{game_id}/stream-ticket",
                    token=tokens[actor],
                    kind="stream ticket",
                )
            if floor_token is not None:
                driver.call("POST", FLOOR_PATH, {}, floor_token, kind="floor")


def floor_player(driver: Driver) -> str:
    """A player for the floor, with its row made."""
    token: str = driver.ok("POST", f"{API}/players", {"name": "Floor"})["token"]
    driver.ok("POST", FLOOR_PATH, {}, token)
    return token


def ms(values: list[float]) -> float:
    return round(statistics.fmean(values) * 1000, 2) if values else 0.0


def summary(driver: Driver) -> str:
    lines = [
        f"{'request':<13} {'n':>6} {'wall ms':>8} {'p50 ms':>7} {'DB ms':>7} "
        f"{'other ms':>8} {'CPU ms':>7} {'SQL':>5} {'trips':>6} {'Redis':>6}"
        "  statements through Django (last request)"
    ]
    for name in KINDS:
        k = driver.kinds.get(name)
        if k is None or not k.wall:
            continue
        lines.append(
            f"{name:<13} {len(k.wall):>6} {ms(k.wall):>8} "
            f"{round(statistics.median(k.wall) * 1000, 2):>7} {ms(k.sql):>7} "
            f"{round(ms(k.wall) - ms(k.sql), 2):>8} {ms(k.cpu):>7} "
            f"{statistics.fmean(k.statements):>5.1f} {statistics.fmean(k.queries):>6.1f} "
            f"{statistics.fmean(k.redis):>6.2f}  "
            f"{' '.join(driver.last_statements.get(name, []))}"
        )
    lines.append("\nDB wait by statement (ms per request; 'other' = BEGIN, rollback, ...):")
    for name in KINDS:
        k = driver.kinds.get(name)
        if k is None or not k.wall:
            continue
        parts = sorted(k.by_statement.items(), key=lambda item: -item[1])
        lines.append(
            f"  {name}: "
            + ", ".join(f"{label} {seconds * 1000 / len(k.wall):.2f}" for label, seconds in parts)
        )
    return "\n".join(lines)


def by_package(stats: pstats.Stats) -> list[tuple[str, float]]:
    totals: dict[str, float] = defaultdict(float)
    for (filename, _line, _name), row in stats.stats.items():  # type: ignore[attr-defined]
        tottime = row[2]
        label = "other (stdlib, C built-ins)"
        for needle, name in PACKAGES:
            if needle in filename:
                label = name
                break
        totals[label] += tottime
    return sorted(totals.items(), key=lambda item: -item[1])


@contextmanager
def django_for(database_url: str) -> Iterator[None]:
    serve.recreate_database(database_url)
    env = serve.bench_environment(database_url)
    env["ALLOWED_HOSTS"] = "127.0.0.1"
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=serve.BASE_DIR,
        env=env,
        check=True,
    )
    os.environ.update(env)
    import django

    django.setup()
    yield


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=1000)
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", choices=KINDS, default="move", help="the kind profiled")
    parser.add_argument("--sort", choices=("cumulative", "tottime"), default="cumulative")
    args = parser.parse_args(argv)
    with django_for(args.database_url):
        driver = Driver()
        floor_token = floor_player(driver)
        play(driver, 50, random.Random(0), floor_token)  # warm up: imports, connections
        driver.kinds.clear()
        play(driver, args.moves, random.Random(args.seed), floor_token)
        print("Without the profiler (mean per request):")
        print(summary(driver))
        driver.kinds.clear()
        # CPU time of this thread, not wall time: waiting for PostgreSQL is left out.
        driver.profile = cProfile.Profile(time.thread_time)
        driver.profiled = args.profile
        play(
            driver,
            args.moves,
            random.Random(args.seed + 1),
            floor_token if args.profile == "floor" else None,
        )
        stats = pstats.Stats(driver.profile)
        total = sum(row[2] for row in stats.stats.values())  # type: ignore[attr-defined]
        count = len(driver.kinds[args.profile].wall)
        each = f"ms per {args.profile}, profiled"
        print(f"\ncProfile of {count} x {args.profile}: own CPU time by package ({each})")
        for label, seconds in by_package(stats):
            print(f"  {seconds / count * 1000:7.2f}  {seconds / total:5.1%}  {label}")
        print(f"\nLargest {args.sort} times ({each}; total {total / count * 1000:.2f}):")
        out = io.StringIO()
        pstats.Stats(driver.profile, stream=out).sort_stats(args.sort).print_stats(args.top)
        print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
