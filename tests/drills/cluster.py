"""The cluster of docker-compose.yml, built on this machine for drills: a private
PostgreSQL and Redis (tests/drills/deployment.py), Debian's PgBouncer in transaction
mode in front of PostgreSQL for the request path (bench/pgbouncer.py) while each
process LISTENs on PostgreSQL directly, API nodes (the server command, each on a free
port) behind Debian's haproxy with deploy/haproxy.cfg (bench/haproxy.py), a Celery
worker and beat. Nodes can be killed, and new ones added to the running balancer
through its runtime API, as compose's DNS discovery fills a `server-template` slot;
that API also tells what the balancer thinks of each node."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench import haproxy
from bench.pgbouncer import PgBouncer
from tests.drills.deployment import (
    START_TIMEOUT,
    Deployment,
    PrivatePostgres,
    PrivateRedis,
    group_members,
)
from tests.support import (
    celery_beat,
    celery_worker,
    free_port,
    log_tails,
    spawn,
    stop_groups,
    wait_until,
)

# Server connections per database and user, as compose's DEFAULT_POOL_SIZE: fewer
# than the nodes' threads.
POOL_SIZE = 20


@dataclass
class Node:
    name: str
    port: int
    process: subprocess.Popen[bytes]

    def pids(self) -> list[int]:
        """gunicorn's master and its workers."""
        return sorted(group_members(self.process.pid))


@dataclass
class Cluster:
    deployment: Deployment
    bouncer: PgBouncer
    nodes: dict[str, Node] = field(default_factory=dict)
    balancer: subprocess.Popen[bytes] | None = None
    others: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def folder(self) -> Path:
        return self.deployment.folder

    @property
    def port(self) -> int:
        """The balancer's: the one port clients know."""
        return self.deployment.port

    @property
    def admin_socket(self) -> Path:
        return self.folder / "haproxy.sock"

    def env(self) -> dict[str, str]:
        """What compose gives an API node, the worker and beat."""
        direct = self.deployment.postgres.url
        return {
            **self.deployment.env,
            "DATABASE_URL": self.bouncer.url(direct),
            "DATABASE_POOLER": "transaction",
            "LISTEN_DATABASE_URL": direct,
            "CACHE_URL": self.deployment.redis.url.rsplit("/", 1)[0] + "/1",
            "NUM_PROXIES": "1",
            "ALLOWED_HOSTS": "127.0.0.1,api",
            "LOG_REQUESTS": "false",
            # Every client of the drill comes from 127.0.0.1.
            "MAX_STREAMS_PER_ADDRESS": "100000",
        }

    def spawn_node(self, name: str) -> Node:
        port = free_port()
        argv = [sys.executable, "-m", "unoservice.serve", "--host", "127.0.0.1"]
        argv += ["--port", str(port), "--workers", "1", "--threads", "4"]
        process = spawn(argv, log=self.folder / f"{name}.log", env=self.env())
        self.nodes[name] = Node(name, port, process)
        return self.nodes[name]

    def wait_healthy(self, node: Node) -> None:
        def healthy() -> bool:
            assert node.process.poll() is None, f"{node.name} exited\n{self.logs()}"
            answer = self.deployment.request("GET", "/healthz", port=node.port, timeout=5)
            return answer.status == 200 and len(node.pids()) >= 2

        wait_until(healthy, node.name, START_TIMEOUT, details=self.logs)

    def start_node(self, name: str) -> Node:
        node = self.spawn_node(name)
        self.wait_healthy(node)
        return node

    def kill_node(self, name: str) -> None:
        """SIGKILL to the node's master and its workers at once, as a machine lost."""
        node = self.nodes.pop(name)
        os.killpg(node.process.pid, signal.SIGKILL)
        node.process.wait()
        wait_until(lambda: not group_members(node.process.pid), f"{name} gone", 20)

    def start_balancer(self) -> None:
        binary = haproxy.haproxy()
        assert binary is not None, "haproxy is not installed (apt-get install haproxy)"
        config = self.folder / "haproxy.cfg"
        servers = [node.port for node in self.nodes.values()]
        config.write_text(haproxy.local_config(self.port, servers, self.admin_socket))
        checked = haproxy.check(config)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        self.balancer = spawn(
            [binary, "-db", "-f", str(config)], log=self.folder / "haproxy.log", env=os.environ
        )
        wait_until(
            lambda: self.deployment.request("GET", "/healthz", timeout=5).status == 200,
            "the balancer",
            START_TIMEOUT,
            details=self.logs,
        )

    def join_balancer(self, node: Node) -> None:
        """Add a running node to the running balancer, as DNS discovery would: a new
        server of the backend, checked as the others, taking requests at once."""
        checks = "check inter 2s fall 2 rise 2"
        for command in (
            f"add server nodes/{node.name} 127.0.0.1:{node.port} {checks}",
            f"enable health nodes/{node.name}",
            f"enable server nodes/{node.name}",
        ):
            answer = haproxy.runtime(self.admin_socket, command)
            assert "rror" not in answer, (command, answer)
            assert "Unknown" not in answer, (command, answer)

    def server_states(self) -> dict[str, str]:
        """The balancer's view of each server of the backend ("UP", "DOWN", "UP 1/2"
        after one failed check...), from its runtime API's `show stat`."""
        header, *rows = haproxy.runtime(self.admin_socket, "show stat").splitlines()
        columns = header.lstrip("# ").split(",")
        states = {}
        for row in rows:
            fields = dict(zip(columns, row.split(","), strict=False))
            if fields.get("pxname") == "nodes" and fields["svname"] not in ("BACKEND",):
                states[fields["svname"]] = fields["status"]
        return states

    def start_workers(self) -> None:
        env = self.env()
        worker = celery_worker(f"drill-{uuid.uuid4().hex[:6]}@%h")
        self.others.append(spawn(worker, log=self.folder / "worker.log", env=env))
        beat = celery_beat(self.folder / "beat-schedule")
        self.others.append(spawn(beat, log=self.folder / "beat.log", env=env))

    def stop(self) -> None:
        processes = [node.process for node in self.nodes.values()] + self.others
        if self.balancer is not None:
            processes.append(self.balancer)
        stop_groups(processes, grace=10)

    def logs(self) -> str:
        return log_tails(self.folder, chars=2000)


@contextmanager
def running_cluster(folder: Path, nodes: int, *, think_seconds: float) -> Iterator[Cluster]:
    """A migrated cluster of `nodes` API nodes behind the balancer, with a worker and
    beat; all of it stopped and removed afterwards."""
    postgres = PrivatePostgres()
    redis = PrivateRedis()
    deployment = Deployment(folder, postgres, redis, think_seconds=think_seconds)
    bouncer = PgBouncer("127.0.0.1", postgres.port, folder / "pgbouncer.log", pool_size=POOL_SIZE)
    cluster = Cluster(deployment, bouncer)
    try:
        postgres.start()
        postgres.create_database()
        redis.start()
        bouncer.start()
        migrated = deployment.manage("migrate", "--noinput")
        assert migrated.returncode == 0, migrated.stderr
        started = [cluster.spawn_node(f"node{n}") for n in range(1, nodes + 1)]
        cluster.start_workers()
        for node in started:
            cluster.wait_healthy(node)
        cluster.start_balancer()
        yield cluster
    finally:
        cluster.stop()
        bouncer.remove()
        redis.stop()
        with contextlib.suppress(subprocess.CalledProcessError):
            postgres.stop()
        postgres.remove()
