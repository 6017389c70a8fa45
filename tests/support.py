"""Processes, ports and waiting, for the tests that run servers of their own (the live
ASGI server, a Celery worker and beat, a fault drill's deployment) or read the
settings in a fresh Python process."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
SETTINGS_MODULE = "unoservice.settings"


def free_port() -> int:
    """A local TCP port nothing listens on (free when asked: bind it soon)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(
    predicate: Callable[[], object],
    what: str,
    seconds: float,
    *,
    every: float = 0.1,
    details: Callable[[], str] | None = None,
) -> None:
    """Return as soon as `predicate()` is true; after `seconds`, raise TimeoutError
    naming `what`, followed by `details()` (a server's logs, say). A predicate that
    raises OSError, as a connection to a server not listening yet does, is false."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except OSError:
            pass
        time.sleep(every)
    message = f"{what}: not within {seconds} s"
    raise TimeoutError(message if details is None else f"{message}\n{details()}")


# -- server processes --------------------------------------------------------------


def spawn(argv: list[str], *, log: Path, env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """Start `argv` at the project's root, its output appended to `log`, in a session
    of its own: signalling its process group reaches its children (a pool, workers)."""
    with log.open("ab") as output:
        return subprocess.Popen(
            argv,
            cwd=ROOT,
            env=dict(env),
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def celery_worker(hostname: str) -> list[str]:
    """The command of a Celery worker of the service named `hostname`: two pool
    processes, and no gossip or mingle, as there are no other workers to meet."""
    return [
        *_celery(),
        "worker",
        "--loglevel=INFO",
        "--concurrency=2",
        "--without-gossip",
        "--without-mingle",
        "--hostname",
        hostname,
    ]


def celery_beat(schedule: Path) -> list[str]:
    """The command of Celery beat, its schedule kept in the file `schedule`."""
    return [*_celery(), "beat", "--loglevel=INFO", "--schedule", str(schedule)]


def _celery() -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "unoservice"]


def stop_groups(processes: Iterable[subprocess.Popen[bytes]], grace: float = 20.0) -> None:
    """SIGTERM each process group (each started in a session of its own), then
    SIGKILL whatever has not exited after `grace` seconds."""
    processes = list(processes)
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def log_tails(folder: Path, chars: int = 4000) -> str:
    """The end of every log file in `folder`, for a failing test's message."""
    return "\n".join(
        f"--- {path.name}\n{path.read_text(errors='replace')[-chars:]}"
        for path in sorted(folder.glob("*.log"))
    )


# -- fresh Python processes --------------------------------------------------------


def run_python(
    *args: str, env: Mapping[str, str], timeout: float | None = 120
) -> subprocess.CompletedProcess[str]:
    """`python *args` in a fresh process at the project's root, with the environment
    `env` and the service's settings: what a deployment with that environment does,
    untouched by anything the test process changed."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": SETTINGS_MODULE},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def settings_with(env: Mapping[str, str], expression: str) -> Any:
    """`expression`, over the settings as `s`, when the service starts with the
    environment `env`: read in a fresh process, as JSON."""
    code = (
        "import django, json; django.setup(); from django.conf import settings as s; "
        f"print(json.dumps({expression}))"
    )
    done = run_python("-c", code, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def database_url_named(name: str) -> str:
    """DATABASE_URL with its database swapped for `name`: a benchmark's own database,
    dropped and made again by every run (not the test database, and not the
    `uno_bench` of a full benchmark someone may be running by hand)."""
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit((*parts[:2], f"/{name}", "", ""))
