"""Run the API, a Celery worker, the push queue's worker and Celery beat together in
the foreground.

Each runs in a session (and process group) of its own, with its output prefixed by
its name. Ctrl-C (SIGINT), SIGTERM or SIGHUP stops all four, and so does the
runner's output going away (``run_all.py | head``: the reader exited). Each leader
is asked to stop with SIGTERM; whatever still runs after ``GRACE_SECONDS`` is
killed, process group and all, and a second signal kills at once. When one of the
four exits on its own, the others are stopped too and the runner exits with its
code (128 + the signal that killed it; 1 for a clean exit).
Either way nothing is left behind: once a leader has exited, what is left of its
group (children it abandoned) is killed.

    .venv/bin/python scripts/run_all.py [--host 127.0.0.1] [--port 8000]

The API listens on 127.0.0.1 unless ``--host`` or the environment's ``HOST`` names
another address: with DEBUG on (the development default) Django's debug pages list
every URL pattern, which the local network need not read.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_HOST = "127.0.0.1"
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# How long the four get to stop on their own (the API gives open streams 3 s, a
# worker finishes the task in hand) before their process groups are killed, so that
# a stop takes less than 10 s in all.
GRACE_SECONDS = 6.0
# How long a killed group gets to disappear before the runner gives up waiting.
KILL_WAIT_SECONDS = 2.0
POLL_SECONDS = 0.1
READER_GONE = select.POLLERR | select.POLLHUP | select.POLLNVAL


class Output:
    """The runner's standard output, shared by the relays of the four.

    Once nobody reads it (a pipe whose reader exited: writes fail with EPIPE, and
    it polls as an error even before anything is written), it is pointed at
    /dev/null and `on_gone` is called, once. The relays then go on draining the
    children's output, since a child blocked on a full pipe could not stop.
    """

    def __init__(self, on_gone: Callable[[], None], fd: int = 1) -> None:
        self.fd = fd
        self.gone = False
        self._on_gone = on_gone
        self._writing = threading.Lock()  # one line at a time
        self._losing = threading.Lock()

    def write(self, data: bytes) -> None:
        """All of `data`, waiting for a slow reader (a relay may wait)."""
        with self._writing:
            self._write(data)

    def say(self, message: str) -> None:
        """A notice of the runner's own, dropped rather than waited for: the main
        thread must never block on a reader that stopped reading."""
        if not self._writing.acquire(timeout=POLL_SECONDS):
            return
        try:
            if self._poll(select.POLLOUT) & select.POLLOUT:
                self._write(f"run_all: {message}\n".encode())
        finally:
            self._writing.release()

    def check_reader(self) -> None:
        if not self.gone and self._poll(0) & READER_GONE:
            self._lose()

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view and not self.gone:
            try:
                view = view[os.write(self.fd, view) :]
            except OSError:  # EPIPE, EBADF, EIO from a vanished terminal
                self._lose()

    def _poll(self, events: int) -> int:
        poller = select.poll()
        poller.register(self.fd, events)  # errors and hang-ups are always reported
        ready = 0
        for _, happened in poller.poll(0):
            ready |= happened
        return ready

    def _lose(self) -> None:
        with self._losing:
            if self.gone:
                return
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.fd)
            os.close(devnull)
            self.gone = True
        self._on_gone()


@dataclass
class Child:
    name: str
    argv: list[str]
    process: subprocess.Popen[bytes] | None = field(default=None, init=False)
    returncode: int | None = field(default=None, init=False)
    _relay: threading.Thread | None = field(default=None, init=False)

    def start(self, env: dict[str, str], output: Output) -> None:
        self.process = subprocess.Popen(
            self.argv,
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            # A session of its own: the terminal's Ctrl-C and hang-up reach only the
            # runner, which stops the four in order; and one process group holds
            # the child's own children (the server's workers, Celery's pool), so
            # that one kill reaches them all.
            start_new_session=True,
        )
        assert self.process.stdout is not None
        self._relay = threading.Thread(
            target=self._forward, args=(self.process.stdout, output), daemon=True
        )
        self._relay.start()

    def _forward(self, stream: IO[bytes], output: Output) -> None:
        prefix = f"{self.name:<6} | ".encode()
        for line in iter(stream.readline, b""):
            output.write(prefix + line)

    def exited(self) -> bool:
        """Whether the leader has exited. It is not reaped here: as long as it is a
        zombie its pid, the group's id, cannot be reused, so killing the group
        cannot hit anyone else."""
        if self.returncode is not None:
            return True
        assert self.process is not None
        try:
            state = os.waitid(os.P_PID, self.process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return True
        return state is not None

    def terminate(self) -> None:
        """Ask the leader to stop; it stops its own children its own way."""
        if not self.exited():
            self._send(os.kill, signal.SIGTERM)

    def kill(self) -> None:
        """Kill the whole process group."""
        if self.returncode is None:
            self._send(os.killpg, signal.SIGKILL)

    def finish(self) -> int:
        """Once the leader has exited: kill what is left of its group, reap the
        leader and return its exit code (negative: the signal that killed it)."""
        if self.returncode is None:
            self.kill()
            assert self.process is not None
            self.returncode = self.process.wait()
        return self.returncode

    def join_relay(self) -> None:
        if self._relay is not None:
            self._relay.join(timeout=1.0)  # the last lines of its output

    def _send(self, send: Callable[[int, int], None], signum: int) -> None:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):  # already gone
            send(self.process.pid, signum)


def children(host: str, port: int) -> list[Child]:
    python = sys.executable
    celery = [python, "-m", "celery", "-A", "unoservice"]
    # Warnings and errors only from the worker and beat: at INFO they print two lines
    # for every sweep (every 2 s) and every bot move. The API logs each request.
    return [
        Child(
            "api",
            [
                python,
                "-m",
                "unoservice.serve",
                "--host",
                host,
                "--port",
                str(port),
                "--workers",
                "1",
            ],
        ),
        Child("worker", [*celery, "worker", "--loglevel=WARNING", "-Q", "celery"]),
        # Pushes wait on services outside: a worker of their own (docs/operations.md).
        Child(
            "push-worker",
            [*celery, "worker", "--loglevel=WARNING", "-Q", "push", "-n", "push@%h"],
        ),
        Child("beat", [*celery, "beat", "--loglevel=WARNING"]),
    ]


def web_client_url(host: str, port: int) -> str:
    """Where a browser on this machine opens the web client: localhost for the
    loopback and for every interface (0.0.0.0 is no address to open)."""
    if host in ("0.0.0.0", "::", "127.0.0.1", "::1", "localhost", ""):
        host = "localhost"
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/play/"


def run(procs: Sequence[Child], web_client: str | None = None) -> int:
    # Why to stop, in order of arrival. Appending to a list is all that a signal
    # handler or a relay does here: no lock that the main thread might be holding.
    reasons: list[str] = []

    def on_signal(signum: int, _frame: object) -> None:
        reasons.append(signal.Signals(signum).name)

    for signum in STOP_SIGNALS:
        signal.signal(signum, on_signal)
    output = Output(on_gone=lambda: reasons.append("output closed"))

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    exit_code = 0
    try:
        for child in procs:
            child.start(env, output)
        if web_client is not None:
            output.say(f"the web client: {web_client} (once the API is up)")
        while not reasons:
            ended = next((child for child in procs if child.exited()), None)
            if ended is not None:
                # As a shell reports it: 128 + the signal that killed it; and one that
                # exited by itself with 0 has still failed to keep running.
                code = ended.finish()
                exit_code = 128 - code if code < 0 else code or 1
                output.say(f"{ended.name} exited with {ended.returncode}; stopping the others")
                break
            output.check_reader()
            time.sleep(POLL_SECONDS)
        else:
            output.say(f"{reasons[0]}: stopping (Ctrl-C again to kill at once)")
    finally:
        stop([child for child in procs if child.process is not None], reasons, output)
    return exit_code


def stop(procs: Sequence[Child], reasons: list[str], output: Output) -> None:
    """SIGTERM every leader, then kill every group still there after the grace (or
    at a further stop request), and reap them all."""
    for child in procs:
        child.terminate()
    asked = len(reasons)
    deadline = time.monotonic() + GRACE_SECONDS
    killed_at: float | None = None
    while True:
        for child in procs:
            if child.exited():
                child.finish()
        waiting = [child for child in procs if child.returncode is None]
        if not waiting:
            break
        names = ", ".join(child.name for child in waiting)
        now = time.monotonic()
        if killed_at is None and (now > deadline or len(reasons) > asked):
            output.say(f"{names} still running: killing")
            for child in waiting:
                child.kill()
            killed_at = now
        elif killed_at is not None and now > killed_at + KILL_WAIT_SECONDS:
            output.say(f"{names} would not die")
            break
        output.check_reader()
        time.sleep(POLL_SECONDS)
    for child in procs:
        child.join_relay()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--host",
        default=os.environ.get("HOST") or DEFAULT_HOST,
        help=f"the API's address (default: HOST, else {DEFAULT_HOST}; 0.0.0.0 for every interface)",
    )
    parser.add_argument("--port", type=int, default=8000, help="API port (default 8000)")
    args = parser.parse_args(argv)
    return run(children(args.host, args.port), web_client_url(args.host, args.port))


if __name__ == "__main__":
    sys.exit(main())
