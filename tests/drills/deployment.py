"""A private deployment for fault drills: its own PostgreSQL cluster and Redis on
free ports, gunicorn with production settings, a Celery worker and beat. Each part
can be stopped, killed and started again while clients talk to it over HTTP."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support import (
    celery_beat,
    celery_worker,
    free_port,
    log_tails,
    run_python,
    spawn,
    stop_groups,
    wait_until,
)

START_TIMEOUT = 60.0


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL's binaries (Debian's layout), if any."""
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: p.parts)
    return versions[-1].parent if versions else None


def live_processes(where: Callable[[list[str]], bool]) -> list[int]:
    """The ids of the processes whose /proc stat fields after the name (state, parent,
    process group, ...) `where` accepts."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if where(fields):
            pids.append(int(stat.parent.name))
    return pids


def group_members(pgid: int) -> list[int]:
    """The live processes of process group `pgid` (zombies left out)."""
    return live_processes(lambda fields: int(fields[2]) == pgid and fields[0] != "Z")


class PrivatePostgres:
    """A throwaway cluster (trust auth, superuser "postgres"), run as the postgres
    user when this process is root, since PostgreSQL refuses to run as root. With
    `primary`, a streaming replica of that running cluster (a hot standby), copied
    from it by `pg_basebackup -R` (initdb's defaults let it: `wal_level` replica and
    a trusted replication entry in pg_hba.conf for 127.0.0.1)."""

    def __init__(self, primary: PrivatePostgres | None = None) -> None:
        binaries = postgres_bin()
        assert binaries is not None, "PostgreSQL is not installed"
        self.bin = binaries
        # A folder of its own under /tmp: the postgres user must be able to reach it.
        self.folder = Path(tempfile.mkdtemp(prefix="uno-drill-pg-"))
        self.data = self.folder / "pgdata"
        self.socket_dir = self.folder / "socket"
        self.log = self.folder / "postgres.log"
        self.port = free_port()
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        self.socket_dir.mkdir()
        if os.geteuid() == 0:
            for path in (self.folder, self.socket_dir):
                shutil.chown(path, "postgres")
        if primary is None:
            auth = ("-U", "postgres", "--auth=trust", "-E", "UTF8")
            self._run("initdb", "-D", str(self.data), *auth)
        else:
            self._run(
                "pg_basebackup",
                *("-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres"),
                # A fast checkpoint: the default spreads the one the copy starts
                # with over minutes, the primary being freshly migrated.
                *("-D", str(self.data), "-R", "-X", "stream", "--checkpoint=fast"),
            )

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run(
            [*self.as_user, str(self.bin / tool), *args],
            check=True,
            capture_output=True,
            cwd="/tmp",
        )

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/uno"

    def start(self) -> None:
        options = f"-p {self.port} -k {self.socket_dir} -c listen_addresses=127.0.0.1"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.log), "-w", "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def create_database(self) -> None:
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "uno")


class PrivateRedis:
    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(self._answers, "Redis", START_TIMEOUT)

    def _answers(self) -> bool:
        with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@dataclass
class Answer:
    status: int
    body: Any


@dataclass
class Deployment:
    """The service and its parts. `processes` holds gunicorn, the worker and beat."""

    folder: Path
    postgres: PrivatePostgres
    redis: PrivateRedis
    port: int = field(default_factory=free_port)
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    # How long a bot thinks before its move (the worker's pace, so the games' too).
    think_seconds: float = 0.05
    # More settings of the service's processes (e.g. REPLICA_DATABASE_URL).
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "DATABASE_URL": self.postgres.url,
            "CELERY_BROKER_URL": self.redis.url,
            "SECRET_KEY": "drill-" + "k" * 50,
            "DEBUG": "false",
            "ALLOWED_HOSTS": "127.0.0.1",
            "BOT_THINK_SECONDS": str(self.think_seconds),
            "THROTTLE_RATE_PLAYER": "1000000/min",
            "THROTTLE_RATE_ANONYMOUS": "1000000/min",
            "DJANGO_SETTINGS_MODULE": "unoservice.settings",
            **self.extra_env,
        }

    def manage(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_python("manage.py", *args, env=self.env, timeout=None)

    def _spawn(self, name: str, argv: list[str]) -> None:
        self.processes[name] = spawn(argv, log=self.folder / f"{name}.log", env=self.env)

    def start_api(self) -> None:
        self._spawn(
            "api",
            [
                sys.executable,
                "-m",
                "unoservice.serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--workers",
                "1",
                "--threads",
                "4",
            ],
        )
        wait_until(
            lambda: self.request("GET", "/healthz").status in (200, 503), "the API", START_TIMEOUT
        )

    def start_worker(self) -> None:
        self._spawn("worker", celery_worker(f"drill-{uuid.uuid4().hex[:6]}@%h"))

    def start_beat(self) -> None:
        self._spawn("beat", celery_beat(self.folder / "beat-schedule"))

    def api_worker_pids(self) -> list[int]:
        """gunicorn's worker processes: the children of its master."""
        master = self.processes["api"].pid
        return live_processes(lambda fields: int(fields[1]) == master)

    def stop_api(self, *, kill: bool = False, grace: float = 20.0) -> None:
        """Stop the API as an orchestrator would: SIGTERM to gunicorn's master (which
        lets its workers close their streams), or, with `kill`, SIGKILL to the master and
        its workers at once. Returns once no process of the API is left."""
        process = self.processes.pop("api")
        if kill:
            os.killpg(process.pid, signal.SIGKILL)
        else:
            os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        wait_until(lambda: not group_members(process.pid), "the API's processes gone", grace)

    def restart_api(self, *, kill: bool = False) -> None:
        """Stop the API (see `stop_api`) and start it again on the same port."""
        self.stop_api(kill=kill)
        self.start_api()

    def stop(self) -> None:
        stop_groups(self.processes.values())

    def logs(self) -> str:
        return log_tails(self.folder)

    # -- HTTP --------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        key: str | None = None,
        timeout: float = 30.0,
        port: int | None = None,
    ) -> Answer:
        """One request on a fresh connection (raises OSError when the connection dies),
        to the service's port or to `port`."""
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if key:
            headers["Idempotency-Key"] = key
        conn = http.client.HTTPConnection("127.0.0.1", port or self.port, timeout=timeout)
        try:
            conn.request(method, path, body=data, headers=headers)
            answer = conn.getresponse()
            raw = answer.read()
        finally:
            conn.close()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode(errors="replace")
        return Answer(answer.status, parsed)


@contextmanager
def migrated_deployment(folder: Path, *, think_seconds: float = 0.05) -> Iterator[Deployment]:
    """A deployment's PostgreSQL, migrated, and Redis, with none of the service's
    processes started yet; all of it stopped and removed afterwards."""
    postgres = PrivatePostgres()
    redis = PrivateRedis()
    service = Deployment(folder, postgres, redis, think_seconds=think_seconds)
    try:
        postgres.start()
        postgres.create_database()
        redis.start()
        migrated = service.manage("migrate", "--noinput")
        assert migrated.returncode == 0, migrated.stderr
        yield service
    finally:
        service.stop()
        redis.stop()
        with contextlib.suppress(subprocess.CalledProcessError):
            postgres.stop()
        postgres.remove()


@contextmanager
def running_deployment(folder: Path, *, think_seconds: float = 0.05) -> Iterator[Deployment]:
    """A migrated deployment with the API, a worker and beat running; all of it
    stopped and removed afterwards."""
    with migrated_deployment(folder, think_seconds=think_seconds) as service:
        service.start_api()
        service.start_worker()
        service.start_beat()
        yield service
