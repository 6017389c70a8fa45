"""The service as it ships, for tests that attack it from outside: the production
server command (``python -m unoservice.serve``, gunicorn with uvicorn workers) with
DEBUG off, in a process of its own, on the test database (PostgreSQL only: an
in-memory SQLite test database cannot be shared).

`serving(...)` starts one with the environment, workers, threads and open-file limit
a test needs. The `served` fixture is one started once per test module (tests using
it commit: it takes `transactional_db`). Counters that live in the server's cache
(rate limits) are kept apart between tests by the client's address: every
`Served.client()` sends from an address of the loopback network that no other client
used, so a test starts with nobody's counts but its own. Its processes share a cache
in Redis (`shared_cache_url`), as a deployment's do, emptied when a server starts."""

from __future__ import annotations

import http.client
import itertools
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
from django.conf import settings

from tests.support import free_port, log_tails, spawn, stop_groups, wait_until
from tests.workers import database_url

API = "/api/v1"
START_TIMEOUT = 60.0
# Wrong invite codes in the served service: per day, so that a window cannot end
# in the middle of a test (a minute's could, and split its counts).
INVITE_CODE_RATE = 10
INVITE_CODE_ADDRESS_RATE = 30
# The loopback network is 127.0.0.0/8 on Linux: each client gets an address of its own.
_ADDRESSES = (f"127.0.{n // 250}.{n % 250 + 2}" for n in itertools.count(1))


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: Any
    raw: bytes


@dataclass
class Client:
    """Requests to the served service from one client address, with a token or none."""

    port: int
    address: str
    token: str | None = None

    def as_player(self, token: str) -> Client:
        """The same address, sending `token`."""
        return Client(self.port, self.address, token)

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        headers: dict[str, str] | None = None,
        timeout: float = 60.0,
    ) -> Answer:
        """One request on a fresh connection from this client's address; `path` is
        under /api/v1 unless it is /healthz, /livez or starts with /api/. A stream that
        opens is not read: its answer has no body."""
        sent = {"Accept": "application/json", **(headers or {})}
        if self.token is not None:
            sent["Authorization"] = f"Bearer {self.token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        connection = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=timeout, source_address=(self.address, 0)
        )
        try:
            url = path if path.startswith(("/api/", "/healthz", "/livez")) else API + path
            connection.request(method, url, body=data, headers=sent)
            response = connection.getresponse()
            answer_headers = {name.lower(): value for name, value in response.getheaders()}
            if answer_headers.get("content-type", "").startswith("text/event-stream"):
                return Answer(response.status, answer_headers, None, b"")
            raw = response.read()
        finally:
            connection.close()
        parsed = json.loads(raw) if raw and raw[:1] in (b"{", b"[") else None
        return Answer(response.status, answer_headers, parsed, raw)

    def get(self, path: str) -> Answer:
        return self.request("GET", path)

    def post(self, path: str, body: Any = None) -> Answer:
        return self.request("POST", path, body)

    def sign_up(self, name: str) -> Client:
        """A new player, signed up over HTTP from this address; the client that
        sends their token."""
        answer = Client(self.port, self.address).post("/players", {"name": name})
        assert answer.status == 201, answer.body
        return self.as_player(answer.body["token"])


@dataclass
class Served:
    port: int
    folder: Path
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def request(
        self, method: str, path: str, *, token: str | None = None, body: Any = None
    ) -> tuple[int, dict[str, str], Any]:
        """One request from 127.0.0.1 to the full `path`: (status, headers, JSON body)."""
        answer = Client(self.port, "127.0.0.1", token).request(method, path, body)
        return answer.status, answer.headers, answer.body

    def client(self, token: str | None = None) -> Client:
        """A client at an address no other client of this run used."""
        return Client(self.port, next(_ADDRESSES), token)

    def logs(self) -> str:
        return log_tails(self.folder)

    def worker_pids(self) -> list[int]:
        """gunicorn's worker processes: the children of its master."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in children.read_text().split()]


def rss_bytes(pid: int) -> int:
    """The resident memory of process `pid`."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise LookupError(f"no VmRSS for {pid}")


def together(calls: Sequence[Callable[[], Answer]]) -> list[Answer]:
    """Make every call at once, each on a thread of its own released by one barrier:
    the answers, in the calls' order."""
    barrier = threading.Barrier(len(calls))
    answers: list[Answer | BaseException | None] = [None] * len(calls)

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=60)
            answers[index] = calls[index]()
        except BaseException as error:  # reported in the test's thread
            answers[index] = error

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    done = [answer for answer in answers if isinstance(answer, Answer)]
    assert len(done) == len(calls), [a for a in answers if not isinstance(a, Answer)][:3]
    return done


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


ENV = {
    "DJANGO_SETTINGS_MODULE": "unoservice.settings",
    "DEBUG": "false",
    "SECRET_KEY": "served-" + "k" * 50,
    "ALLOWED_HOSTS": "127.0.0.1",
    "CLIENT_SEEDS": "false",
    "LOG_REQUESTS": "false",
    "THROTTLE_RATE_PLAYER": "1000000/min",
    "THROTTLE_RATE_ANONYMOUS": "1000000/min",
    "THROTTLE_RATE_INVITE_CODE": f"{INVITE_CODE_RATE}/day",
    "THROTTLE_RATE_INVITE_CODE_ADDRESS": f"{INVITE_CODE_ADDRESS_RATE}/day",
}


@contextmanager
def serving(
    folder: Path,
    env: Mapping[str, str] | None = None,
    *,
    workers: int = 1,
    threads: int = 16,
    open_files: int | None = None,
    port: int | None = None,
    options: Sequence[str] = (),
) -> Iterator[Served]:
    """The server command on the test database with `ENV` and `env` over this
    process's environment, `workers` processes of `threads` API threads each, and at
    most `open_files` open files per process when given, on `port` (a free one when
    not given) with the command's `options`; stopped on leaving.

    More API threads than the default 4: requests sent together are served together,
    as on a busier deployment, so that a race in the service shows."""
    # The processes count rate limits and stream places together, as a deployment's
    # do; what an earlier server counted there is gone.
    cache_url = shared_cache_url()
    if "CACHE_URL" not in os.environ:
        redis.Redis.from_url(cache_url).flushdb()
    base = {**os.environ, "DATABASE_URL": database_url(), "CACHE_URL": cache_url}
    # A port free when asked may be some connection's own port a moment later (it is
    # in the ephemeral range): a server that could not bind it tries another.
    for attempt in range(1, PORT_ATTEMPTS + 1):
        if attempt > 1:
            (folder / "api.log").unlink(missing_ok=True)  # the log of this attempt alone
        bound = port or free_port()
        argv = [sys.executable, "-m", "unoservice.serve", "--port", str(bound)]
        argv += ["--workers", str(workers), "--threads", str(threads), *options]
        if open_files is not None:
            # prlimit runs the server under that limit (which it lifts no further).
            argv = ["prlimit", f"--nofile={open_files}:{open_files}", *argv]
        process = spawn(argv, log=folder / "api.log", env={**base, **ENV, **(env or {})})
        served = Served(bound, folder, process)
        try:
            wait_until(_healthy(served), "the served API", START_TIMEOUT, details=served.logs)
        except BaseException as error:
            stop_groups([process], grace=10)
            taken = "Address already in use" in served.logs()
            retry = port is None and attempt < PORT_ATTEMPTS
            if retry and taken and isinstance(error, AssertionError):
                continue
            raise
        break
    try:
        yield served
    finally:
        stop_groups([process], grace=10)


PORT_ATTEMPTS = 3


def _healthy(served: Served) -> Callable[[], bool]:
    def healthy() -> bool:
        assert served.process.poll() is None, f"the server exited\n{served.logs()}"
        answer = Client(served.port, "127.0.0.1").request("GET", "/healthz", timeout=5)
        return answer.status in (200, 503) and bool(served.worker_pids())

    return healthy


@pytest.fixture(scope="module")
def served_process(
    tmp_path_factory: pytest.TempPathFactory, django_db_setup: None
) -> Iterator[Served]:
    with serving(tmp_path_factory.mktemp("served")) as served:
        yield served


@pytest.fixture
def served(served_process: Served, transactional_db: None) -> Served:
    """The production server on the test database (see the module's docstring)."""
    return served_process
