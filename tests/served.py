"""The real server command (`python -m unoservice.serve`) in production settings, on
the test database, for tests that attack it from outside as a client would.

The server's processes see what the test commits: use it with `transactional_db`
(PostgreSQL only: an in-memory SQLite test database cannot be shared)."""

from __future__ import annotations

import http.client
import json
import os
import resource
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from tests.support import database_url_named, free_port, log_tails, spawn, stop_groups, wait_until

START_SECONDS = 60


@dataclass
class ServedAPI:
    process: subprocess.Popen[bytes]
    port: int
    folder: Path

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        source: str = "127.0.0.1",
        timeout: float = 10,
    ) -> tuple[int, dict[str, str], Any]:
        """One request on a connection of its own (from the loopback address
        `source`); the status, the headers and the JSON body (None when empty)."""
        connection = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=timeout, source_address=(source, 0)
        )
        try:
            payload = None if body is None else json.dumps(body)
            all_headers = {"Content-Type": "application/json", **(headers or {})}
            connection.request(method, path, body=payload, headers=all_headers)
            response = connection.getresponse()
            raw = response.read()
            answer_headers = {name.lower(): value for name, value in response.getheaders()}
            return response.status, answer_headers, json.loads(raw) if raw else None
        finally:
            connection.close()

    def worker_pids(self) -> list[int]:
        """gunicorn's worker processes: the children of its master."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in children.read_text().split()]

    def logs(self) -> str:
        return log_tails(self.folder)


def rss_bytes(pid: int) -> int:
    """The resident memory of process `pid`."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise LookupError(f"no VmRSS for {pid}")


def served_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a production deployment on the test database."""
    return {
        **os.environ,
        "DATABASE_URL": database_url_named(str(settings.DATABASES["default"]["NAME"])),
        "SECRET_KEY": "served-" + "k" * 50,
        "DEBUG": "false",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "BOT_THINK_SECONDS": "0",
        "DJANGO_SETTINGS_MODULE": "unoservice.settings",
        **(extra or {}),
    }


@contextmanager
def served(
    env: Mapping[str, str] | None = None, *, workers: int = 1, open_files: int | None = None
) -> Iterator[ServedAPI]:
    """The server command with `workers` processes, `env` over `served_env()`, and at
    most `open_files` open files per process when given; stopped on leaving."""
    folder = Path(tempfile.mkdtemp(prefix="uno-served-"))
    port = free_port()
    argv = [sys.executable, "-m", "unoservice.serve", "--host", "127.0.0.1", "--port", str(port)]
    argv += ["--workers", str(workers)]
    if open_files is not None:
        # Through prlimit: the server lifts its soft limit to the hard one.
        argv = ["prlimit", f"--nofile={open_files}:{open_files}", *argv]
    process = spawn(argv, log=folder / "api.log", env=served_env(env))
    api = ServedAPI(process, port, folder)
    try:
        wait_until(
            lambda: api.request("GET", "/healthz")[0] in (200, 503) and api.worker_pids(),
            "the server command",
            START_SECONDS,
            details=api.logs,
        )
        yield api
    finally:
        stop_groups([process])


def soft_open_files() -> int:
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]
