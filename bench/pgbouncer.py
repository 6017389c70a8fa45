"""Debian's PgBouncer in transaction mode on a free port, in front of a PostgreSQL
server, for the tests and the cluster benchmark of the service behind a transaction
pooler. It can be stopped and started again on the same port while the service runs.

PgBouncer refuses to run as root: under root it runs as the postgres user (`-u`),
from a folder of its own that user can read. Clients log in as any user named in its
list with no password (trust), the databases' names passed on to the server."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg.rows import dict_row

from bench.processes import free_port, spawn, wait_until

START_TIMEOUT = 30.0
RUN_AS = "postgres"


def pgbouncer_binary() -> str | None:
    """Debian's pgbouncer (in /usr/sbin, which a user's PATH may lack), if installed."""
    return shutil.which("pgbouncer") or shutil.which("pgbouncer", path="/usr/sbin")


def through(url: str, port: int) -> str:
    """`url` with its host and port swapped for a local PgBouncer's."""
    parts = urlsplit(url)
    user = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    return urlunsplit(parts._replace(netloc=f"{user}127.0.0.1:{port}"))


@dataclass
class PgBouncer:
    """One PgBouncer for the server at `host`:`port`, logging to `log`."""

    host: str
    port: int
    log: Path
    users: tuple[str, ...] = ("postgres",)
    # Server connections per database and user: the point of a pooler is that this
    # is far below the clients' connections.
    pool_size: int = 2

    def __post_init__(self) -> None:
        binary = pgbouncer_binary()
        assert binary is not None, "PgBouncer is not installed (apt-get install pgbouncer)"
        self.binary = binary
        self.listen_port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="uno-pgbouncer-"))
        self.process: subprocess.Popen[bytes] | None = None
        (self.folder / "users.txt").write_text("".join(f'"{u}" ""\n' for u in self.users))
        (self.folder / "pgbouncer.ini").write_text(self.config())
        if os.geteuid() == 0:
            for path in (self.folder, *self.folder.iterdir()):
                shutil.chown(path, RUN_AS)

    def config(self) -> str:
        return "\n".join(
            [
                "[databases]",
                f"* = host={self.host} port={self.port}",
                "[pgbouncer]",
                "listen_addr = 127.0.0.1",
                f"listen_port = {self.listen_port}",
                "unix_socket_dir =",
                "auth_type = trust",
                f"auth_file = {self.folder / 'users.txt'}",
                f"admin_users = {self.users[0]}",
                "pool_mode = transaction",
                f"default_pool_size = {self.pool_size}",
                "min_pool_size = 0",
                "reserve_pool_size = 0",
                "max_client_conn = 1000",
                # Logs go to standard error, which `spawn` sends to `log`.
                "logfile =",
                "log_connections = 0",
                "log_disconnections = 0",
                "",
            ]
        )

    def url(self, direct: str) -> str:
        """The URL `direct` (to the server) through this PgBouncer."""
        return through(direct, self.listen_port)

    def start(self) -> None:
        as_user = ["-u", RUN_AS] if os.geteuid() == 0 else []
        argv = [self.binary, *as_user, str(self.folder / "pgbouncer.ini")]
        self.process = spawn(argv, log=self.log, env=os.environ)
        try:
            wait_until(self._answers, "PgBouncer", START_TIMEOUT, details=self.log.read_text)
        except BaseException:
            self.stop()
            raise

    def _answers(self) -> bool:
        assert self.process is not None
        assert self.process.poll() is None, f"PgBouncer exited\n{self.log.read_text()}"
        try:
            with self.admin() as console:
                console.execute("SHOW VERSION")
        except psycopg.OperationalError:  # not listening yet
            return False
        return True

    def stop(self) -> None:
        """Shut down at once (SIGINT would wait for every client to leave), closing
        every client's and server's connection."""
        if self.process is None:
            return
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.process = None

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def admin(self) -> psycopg.Connection[dict[str, object]]:
        """A connection to the admin console (the `pgbouncer` database), which speaks
        only the simple query protocol: a client-side cursor in autocommit."""
        return psycopg.connect(
            host="127.0.0.1",
            port=self.listen_port,
            user=self.users[0],
            dbname="pgbouncer",
            autocommit=True,
            cursor_factory=psycopg.ClientCursor,
            row_factory=dict_row,
            connect_timeout=5,
        )

    def show(self, what: str, database: str) -> list[dict[str, object]]:
        """The rows of ``SHOW <what>`` (CLIENTS, SERVERS, POOLS) for `database`."""
        with self.admin() as console:
            rows = console.execute(f"SHOW {what}").fetchall()
        return [row for row in rows if row.get("database") == database]
