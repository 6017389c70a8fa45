"""Local server processes for the benchmarks and the tests that run servers of their
own: a free port, a process started in a session of its own with its output in a log
file, waiting for it to answer, and stopping it with whatever it started."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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
    raises OSError, as a connection to a server not listening yet does, is false; so
    is one that reads no HTTP answer: a free port is an ephemeral one, and until the
    server binds it a connection to it may get it as its own source port and connect
    to itself (TCP's simultaneous open), reading back its own request."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(every)
    message = f"{what}: not within {seconds} s"
    raise TimeoutError(message if details is None else f"{message}\n{details()}")


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
