"""A real Celery worker and beat for the tests marked ``worker``: subprocesses on the
test database and the configured broker."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection

from tests.support import celery_beat, celery_worker, log_tails, spawn, stop_groups, wait_until

# The marks of a test that runs a real worker (and beat) on PostgreSQL and Redis:
# the worker reads what the test committed, so the test's own transaction is real.
WITH_A_WORKER = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]


def database_url() -> str:
    db = settings.DATABASES["default"]
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


class CeleryProcesses:
    """A worker and beat on the test database; logs go to files under `folder`."""

    def __init__(
        self, folder: Path, think_seconds: float, env: Mapping[str, str] | None = None
    ) -> None:
        self.folder = folder
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "CELERY_BROKER_URL": str(settings.CELERY_BROKER_URL),
            "BOT_THINK_SECONDS": str(think_seconds),
            "DJANGO_SETTINGS_MODULE": "unoservice.settings",
            **(env or {}),
        }
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.started = 0
        self.worker_names: list[str] = []

    def _spawn(self, name: str, argv: list[str]) -> None:
        self.started += 1
        log = self.folder / f"{name}-{self.started}.log"
        self.processes[name] = spawn(argv, log=log, env=self.env)

    def start_worker(self) -> None:
        """The worker of bots, timers and sweeps, and the push queue's own, as
        deployed: whichever of the two is not running (after `kill_worker`), so that
        none is left behind unstopped, consuming a later test's tasks."""
        name = uuid.uuid4().hex[:8]
        if "worker" not in self.processes:
            self.worker_names = [f"test-{name}@{socket.gethostname()}"]
            self._spawn("worker", celery_worker(f"test-{name}@%h", queues=["celery"]))
        if "push-worker" not in self.processes:
            self._spawn("push-worker", celery_worker(f"push-{name}@%h", queues=["push"]))

    def wait_for_the_worker(self, seconds: float = 60) -> None:
        """Wait until the worker of bots and timers answers a ping: for a test whose
        timing starts when the worker takes a task, not when its process starts."""
        from unoservice.celery import app

        self.wait_until(
            lambda: app.control.ping(destination=self.worker_names, timeout=0.5),
            "the worker did not start",
            seconds,
        )

    def start_beat(self) -> None:
        schedule = self.folder / f"beat-schedule-{self.started}"
        self._spawn("beat", celery_beat(schedule))

    def kill_worker(self, name: str = "worker") -> None:
        process = self.processes.pop(name)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)

    def stop(self) -> None:
        stop_groups(self.processes.values())
        self.processes.clear()

    def logs(self) -> str:
        return log_tails(self.folder)

    def wait_until(self, predicate: Callable[[], object], what: str, seconds: float) -> None:
        """Wait for the worker or beat to make `predicate` true; if they do not, fail
        with their logs."""
        wait_until(predicate, what, seconds, every=0.05, details=self.logs)


def purge_broker() -> None:
    from unoservice.celery import app

    app.control.purge()


@pytest.fixture
def celery_processes(tmp_path: Path, settings: Any) -> Iterator[Callable[..., CeleryProcesses]]:
    """Start a worker and beat with the given bot think time (the test's own too),
    and `env` over the test's environment (beat=False: the worker alone)."""
    running: list[CeleryProcesses] = []

    def start(
        think_seconds: float = 0.0, *, env: Mapping[str, str] | None = None, beat: bool = True
    ) -> CeleryProcesses:
        settings.BOT_THINK_SECONDS = think_seconds
        purge_broker()
        processes = CeleryProcesses(tmp_path, think_seconds, env)
        running.append(processes)
        processes.start_worker()
        if beat:
            processes.start_beat()
        return processes

    yield start
    for processes in running:
        processes.stop()
    connection.close()
