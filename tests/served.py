"""The production server command (`python -m unoservice.serve`) on the test database,
for tests that attack the service from outside: a subprocess with DEBUG off, talking
to the same PostgreSQL database as the test (tests using it commit), and sharing the
cache (Redis) between its workers."""

from __future__ import annotations

import http.client
import json
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings

from tests.support import free_port, log_tails, spawn, stop_groups, wait_until
from tests.workers import database_url

START_SECONDS = 60.0


def shared_cache_url() -> str:
    """The Redis the server's processes share their cache in: CACHE_URL when the tests
    have one, else the tests' Redis (the broker's, or REDIS_URL) ten databases further
    on (never the broker's own database, which the tests purge)."""
    configured = os.environ.get("CACHE_URL")
    if configured:
        return configured
    broker = str(settings.CELERY_BROKER_URL)
    redis_url = broker if broker.startswith(("redis://", "rediss://")) else os.environ["REDIS_URL"]
    parts = urlsplit(redis_url)
    number = int(parts.path.strip("/") or 0) + 10
    return urlunsplit(parts._replace(path=f"/{number}"))


@dataclass
class Served:
    port: int
    folder: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def request(
        self, method: str, path: str, *, token: str | None = None, body: Any = None
    ) -> tuple[int, dict[str, str], Any]:
        """One request on a fresh connection: (status, headers, parsed JSON body)."""
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request(method, path, body=data, headers=headers)
            answer = conn.getresponse()
            raw = answer.read()
            found = {name.lower(): value for name, value in answer.getheaders()}
        finally:
            conn.close()
        return answer.status, found, json.loads(raw) if raw else None

    def logs(self) -> str:
        return log_tails(self.folder)


@contextmanager
def served(
    folder: Path, *, workers: int = 2, env: Mapping[str, str] | None = None
) -> Iterator[Served]:
    """Run the server command until the block ends (then SIGTERM, SIGKILL if need be)."""
    port = free_port()
    environment = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": str(settings.CELERY_BROKER_URL),
        "CACHE_URL": shared_cache_url(),
        "SECRET_KEY": "served-" + "k" * 50,
        "DEBUG": "false",
        "ALLOWED_HOSTS": "127.0.0.1",
        "THROTTLE_RATE_PLAYER": "1000000/min",
        "THROTTLE_RATE_ANONYMOUS": "1000000/min",
        "DJANGO_SETTINGS_MODULE": "unoservice.settings",
        **(env or {}),
    }
    argv = [sys.executable, "-m", "unoservice.serve", "--port", str(port)]
    process = spawn([*argv, "--workers", str(workers)], log=folder / "serve.log", env=environment)
    server = Served(port, folder)
    try:
        wait_until(
            lambda: (
                process.poll() is not None or server.request("GET", "/healthz")[0] in (200, 503)
            ),
            "the server command",
            START_SECONDS,
            details=server.logs,
        )
        assert process.poll() is None, server.logs()
        yield server
    finally:
        stop_groups([process], grace=10)
