"""Run the API, a Celery worker and Celery beat together in the foreground.

Each runs in its own process group with its output prefixed by its name. Ctrl-C
(SIGINT) or SIGTERM stops all three the way each expects; a second signal kills
them at once. When one of them exits on its own, the others are stopped too and
its exit code is returned.

    .venv/bin/python scripts/run_all.py [--port 8000]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
STOP_GRACE_SECONDS = 30.0


@dataclass
class Child:
    name: str
    argv: list[str]
    # The server's master runs its workers as child processes: signal the whole
    # group, as a terminal would. Celery's main process stops its own pool.
    signal_group: bool
    process: subprocess.Popen[bytes] | None = None

    def start(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            self.argv,
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # the terminal's Ctrl-C reaches only this runner
        )
        assert self.process.stdout is not None
        threading.Thread(target=self._pump, args=(self.process.stdout,), daemon=True).start()

    def _pump(self, stream: IO[bytes]) -> None:
        prefix = f"{self.name:<6} | ".encode()
        for line in iter(stream.readline, b""):
            sys.stdout.buffer.write(prefix + line)
            sys.stdout.buffer.flush()

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def send(self, signum: int, *, group: bool | None = None) -> None:
        if not self.running():
            return
        assert self.process is not None
        try:
            if self.signal_group if group is None else group:
                os.killpg(self.process.pid, signum)
            else:
                self.process.send_signal(signum)
        except ProcessLookupError:
            pass


def children(port: int) -> list[Child]:
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
                "0.0.0.0",
                "--port",
                str(port),
                "--workers",
                "1",
            ],
            signal_group=True,
        ),
        Child("worker", [*celery, "worker", "--loglevel=WARNING"], signal_group=False),
        Child("beat", [*celery, "beat", "--loglevel=WARNING"], signal_group=False),
    ]


def run(procs: Sequence[Child]) -> int:
    received: list[int] = []

    def on_signal(signum: int, _frame: object) -> None:
        received.append(signum)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    for child in procs:
        child.start(env)

    exit_code = 0
    while not received and all(child.running() for child in procs):
        time.sleep(0.2)
    if not received:
        ended = next(child for child in procs if not child.running())
        assert ended.process is not None
        exit_code = ended.process.returncode or 1
        print(f"run_all: {ended.name} exited with {ended.process.returncode}; stopping the others")

    stop_signal = received[0] if received else signal.SIGTERM
    print("run_all: stopping (press Ctrl-C again to kill at once)", flush=True)
    for child in procs:
        child.send(signal.SIGINT if child.signal_group else stop_signal)

    deadline = time.monotonic() + STOP_GRACE_SECONDS
    handled = len(received)
    while any(child.running() for child in procs):
        if len(received) > handled or time.monotonic() > deadline:
            for child in procs:
                child.send(signal.SIGKILL, group=True)
            break
        time.sleep(0.2)
    for child in procs:
        if child.process is not None:
            child.process.wait()
    return exit_code


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000, help="API port (default 8000)")
    args = parser.parse_args(argv)
    return run(children(args.port))


if __name__ == "__main__":
    sys.exit(main())
