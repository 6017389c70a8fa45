"""The server for the HTTP load benchmark: gunicorn, production settings, PostgreSQL.

    python -m bench.serve [--port 8000] [--workers 2] [--threads 3]   # until Ctrl-C
    python -m bench.load --spawn ...                                 # uses server() below

It recreates the database (default ``postgres://postgres@127.0.0.1:5432/uno_bench``;
its name must contain "bench", as it is dropped first), migrates it, and runs the
equivalent of::

    DEBUG=false SECRET_KEY=bench ALLOWED_HOSTS=127.0.0.1 BENCH_FLOOR=true \\
    THROTTLE_RATE_PLAYER=1000000/min THROTTLE_RATE_ANONYMOUS=1000000/min \\
    MAX_STREAMS_PER_ADDRESS=1000000 MAX_CONNECTIONS_PER_ADDRESS=1000000 \\
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/uno_bench \\
    .venv/bin/gunicorn unoservice.wsgi -w 2 -k gthread --threads 3 -b 127.0.0.1:8000

Why 2 workers x 3 threads: the benchmark machine has 2 cores, shared by gunicorn,
PostgreSQL and the load generator, and the server's CPU is the bottleneck. A
request is mostly Python, and the GIL runs one thread per process at a time, so
one worker process per core uses both cores; a third or fourth process only adds
context switches (server CPU per move rose from ~11-12 to ~14 ms with 3 workers).
A move waits for PostgreSQL for about half its time (9 round trips), so a second
and third thread per worker keep its core busy meanwhile; a fourth only makes
threads fight for the GIL. Measured at 16 clients (docs/benchmarks.md): 2x3 and 2x2 best and
within noise of each other, 2x4, 3x2, 4x2 and 1x8 lower by 15-25 %.

Only 127.0.0.1 is used: the server binds to it and the database must be on it.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bench.processes import free_port

BASE_DIR = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/uno_bench"
DEFAULT_WORKERS = 2
DEFAULT_THREADS = 3
START_TIMEOUT = 60.0
STOP_TIMEOUT = 15.0
LOG_FILE = BASE_DIR / "var" / "bench-serve.log"
NO_LIMIT = "1000000/min"


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _process_clock(pid: int) -> int:
    """Linux's CPU-time clock of another process (what `clock_getcpuclockid` gives
    in C, which Python does not wrap): the scheduler's count, to the nanosecond, of
    every thread the process has had, ended ones too."""
    return (~pid << 3) | 2  # MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds used: user + system) of a process. /proc counts in
    clock ticks (10 ms), too coarse for a few dozen stream openings, so the seconds
    come from the process's CPU clock where it can be read."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()  # after "pid (comm) "
    try:
        used = time.clock_gettime(_process_clock(pid))
    except OSError:
        used = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return int(fields[1]), used


def process_tree_cpu(root: int) -> float:
    """CPU seconds of `root` and its children (gunicorn's master and workers)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        stat = _stat(int(entry.name))
        if stat is not None and (int(entry.name) == root or stat[0] == root):
            total += stat[1]
    return total


@dataclass
class Server:
    """A running benchmark server."""

    url: str
    pid: int
    description: dict[str, object]
    database_url: str = ""

    @contextlib.contextmanager
    def cpu_meter(self, interval: float = 0.5) -> Iterator[dict[str, float]]:
        """CPU seconds used during the block by gunicorn (master and workers) and by
        the PostgreSQL backends serving its database. The backends are sampled every
        `interval` seconds, since one that ends (connections are kept 60 s) takes its
        CPU along: at most `interval` seconds of its work go uncounted."""
        import psycopg

        used: dict[str, float] = {}
        name = urlsplit(self.database_url).path.lstrip("/")
        with psycopg.connect(self.database_url, autocommit=True) as conn:

            def backends() -> dict[int, float]:
                rows = conn.execute(
                    "SELECT pid FROM pg_stat_activity"
                    " WHERE datname = %s AND pid <> pg_backend_pid()",
                    [name],
                ).fetchall()
                found = {pid: _stat(pid) for (pid,) in rows}
                return {pid: stat[1] for pid, stat in found.items() if stat is not None}

            server_started = process_tree_cpu(self.pid)
            first = backends()
            last = dict(first)
            stop = threading.Event()

            def sample() -> None:
                while not stop.wait(interval):
                    last.update(backends())

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            try:
                yield used
            finally:
                stop.set()
                sampler.join()
                last.update(backends())
                used["server_cpu_s"] = process_tree_cpu(self.pid) - server_started
                used["database_cpu_s"] = sum(cpu - first.get(pid, 0.0) for pid, cpu in last.items())


def bench_environment(database_url: str) -> dict[str, str]:
    """The process environment of the benchmark server (production-like settings)."""
    env = dict(os.environ)
    env.update(
        {
            "DEBUG": "false",
            "SECRET_KEY": "bench-" + secrets.token_urlsafe(32),
            "ALLOWED_HOSTS": "127.0.0.1",
            "BENCH_FLOOR": "true",
            "THROTTLE_RATE_PLAYER": NO_LIMIT,
            "THROTTLE_RATE_ANONYMOUS": NO_LIMIT,
            # Every client of a benchmark comes from 127.0.0.1: the caps on the streams
            # and connections one address holds open are lifted with the rates (a
            # player's cap and a process's stay).
            "MAX_STREAMS_PER_ADDRESS": "1000000",
            "MAX_CONNECTIONS_PER_ADDRESS": "1000000",
            # The load clients deal from seeds of their own, so runs repeat.
            "CLIENT_SEEDS": "true",
            "DATABASE_URL": database_url,
            "DJANGO_SETTINGS_MODULE": "unoservice.settings",
        }
    )
    if not env.get("CACHE_URL"):
        # As the figures were measured: each process counts the limits (lifted above)
        # alone, with no round trip to Redis for them.
        env["PER_PROCESS_LIMITS"] = "true"
    return env


def recreate_database(database_url: str) -> None:
    """Drop and create the database of `database_url` (a local one named *bench*)."""
    import psycopg
    from psycopg import sql

    parts = urlsplit(database_url)
    name = parts.path.lstrip("/")
    if parts.hostname != "127.0.0.1":
        raise SystemExit(f"the benchmark database must be on 127.0.0.1, not {parts.hostname}")
    if "bench" not in name:
        raise SystemExit(f"refusing to drop {name!r}: a benchmark database's name contains 'bench'")
    admin_url = urlunsplit((*parts[:2], "/postgres", *parts[3:]))
    with psycopg.connect(admin_url) as conn:
        conn.autocommit = True
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


# The servers the benchmark can start: the service's own command (what ships), and
# the WSGI-only gunicorn it replaced, kept as the baseline of the REST figures.
SERVERS = ("uno", "gthread")


def server_command(kind: str, port: int, workers: int, threads: int) -> list[str]:
    if kind == "gthread":
        return [
            sys.executable,
            "-m",
            "gunicorn",
            "unoservice.wsgi",
            "-w",
            str(workers),
            "-k",
            "gthread",
            "--threads",
            str(threads),
            "-b",
            f"127.0.0.1:{port}",
        ]
    return [
        sys.executable,
        "-m",
        "unoservice.serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--threads",
        str(threads),
    ]


def _answers(port: int) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        conn.request("GET", "/healthz")
        conn.getresponse().read()
        return True
    except OSError:
        return False
    finally:
        conn.close()


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)  # gunicorn's master stops its workers
    try:
        process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=STOP_TIMEOUT)


def migrated_environment(database_url: str, env: dict[str, str] | None = None) -> dict[str, str]:
    """A fresh database at `database_url`, migrated, and the servers' environment:
    the benchmark's, with `env` over it."""
    recreate_database(database_url)
    env = {**bench_environment(database_url), **(env or {})}
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=BASE_DIR,
        env={**env, "DATABASE_URL": database_url},
        check=True,
    )
    return env


def start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """`command` at the project's root, its output in the file `log`."""
    log.parent.mkdir(exist_ok=True)
    with log.open("wb") as output:
        return subprocess.Popen(command, cwd=BASE_DIR, env=env, stdout=output, stderr=output)


def wait_answering(process: subprocess.Popen[bytes], port: int, log: Path) -> None:
    """Wait for the server `process` to answer /healthz on `port`."""
    deadline = time.monotonic() + START_TIMEOUT
    while not _answers(port):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the server did not start; see {log}")
        time.sleep(0.2)


@contextlib.contextmanager
def server(
    database_url: str = DEFAULT_DATABASE_URL,
    workers: int = DEFAULT_WORKERS,
    threads: int = DEFAULT_THREADS,
    port: int | None = None,
    kind: str = "uno",
    env: dict[str, str] | None = None,
) -> Iterator[Server]:
    """A fresh database and the server (`kind`, see SERVERS) on 127.0.0.1, with `env`
    over the benchmark's environment, stopped when the block ends."""
    env = migrated_environment(database_url, env)
    port = port or free_port()
    process = start(server_command(kind, port, workers, threads), env, LOG_FILE)
    try:
        wait_answering(process, port, LOG_FILE)
        yield Server(
            url=f"http://127.0.0.1:{port}",
            pid=process.pid,
            description={
                "workers": workers,
                "threads": threads,
                "server": kind,
                "database": urlsplit(database_url).path.lstrip("/"),
            },
            database_url=database_url,
        )
    finally:
        stop(process)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS)
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS)
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    args = parser.parse_args(argv)
    # A plain `kill` stops gunicorn too (SystemExit runs the cleanup below).
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    with server(args.database_url, args.workers, args.threads, args.port) as running:
        print(f"serving {running.url} (pid {running.pid}, log {LOG_FILE}); Ctrl-C stops")
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
