"""A real Celery worker and beat for the tests marked ``worker``: subprocesses on the
test database and the configured broker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]


def database_url() -> str:
    db = settings.DATABASES["default"]
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


class CeleryProcesses:
    """A worker and beat on the test database; logs go to files under `folder`."""

    def __init__(self, folder: Path, think_seconds: float) -> None:
        self.folder = folder
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "CELERY_BROKER_URL": str(settings.CELERY_BROKER_URL),
            "BOT_THINK_SECONDS": str(think_seconds),
            "DJANGO_SETTINGS_MODULE": "unoservice.settings",
        }
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.started = 0

    def _spawn(self, name: str, *argv: str) -> None:
        self.started += 1
        log = (self.folder / f"{name}-{self.started}.log").open("wb")
        self.processes[name] = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "unoservice", *argv],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: a kill reaches the pool too
        )

    def start_worker(self) -> None:
        self._spawn(
            "worker",
            "worker",
            "--loglevel=INFO",
            "--concurrency=2",
            "--without-gossip",
            "--without-mingle",
            "--hostname",
            f"test-{uuid.uuid4().hex[:8]}@%h",
        )

    def start_beat(self) -> None:
        schedule = self.folder / f"beat-schedule-{self.started}"
        self._spawn("beat", "beat", "--loglevel=INFO", "--schedule", str(schedule))

    def kill_worker(self) -> None:
        process = self.processes.pop("worker")
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)

    def stop(self) -> None:
        stop_groups(self.processes.values())
        self.processes.clear()

    def logs(self) -> str:
        return log_tails(self.folder)


def wait_for(predicate: Callable[[], bool], seconds: float, what: str, procs: Any) -> None:
    """Fail with the processes' logs unless `predicate` holds within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    pytest.fail(f"{what}: not within {seconds} s\n{procs.logs()}")


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


def purge_broker() -> None:
    from unoservice.celery import app

    app.control.purge()


@pytest.fixture
def celery_processes(tmp_path: Path, settings: Any) -> Iterator[Callable[[float], CeleryProcesses]]:
    """Start a worker and beat with the given bot think time (the test's own too)."""
    running: list[CeleryProcesses] = []

    def start(think_seconds: float = 0.0) -> CeleryProcesses:
        settings.BOT_THINK_SECONDS = think_seconds
        purge_broker()
        processes = CeleryProcesses(tmp_path, think_seconds)
        running.append(processes)
        processes.start_worker()
        processes.start_beat()
        return processes

    yield start
    for processes in running:
        processes.stop()
    connection.close()
