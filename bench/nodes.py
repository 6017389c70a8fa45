"""The set-ups of the cluster benchmark (bench/cluster.py), started on 127.0.0.1: server
nodes, Debian's PgBouncer in front of PostgreSQL (bench/pgbouncer.py) and Debian's
HAProxy in front of the nodes (deploy/haproxy.cfg, bench/haproxy.py), each on free
ports, with the settings compose gives them; and what they use while the load runs."""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg

from bench import haproxy, serve
from bench.pgbouncer import PgBouncer
from bench.processes import free_port, spawn, stop_groups, wait_until

START_TIMEOUT = 60.0
SAMPLE_SECONDS = 0.25


@dataclass(frozen=True)
class Setup:
    label: str
    nodes: int
    pooler: bool
    balancer: bool = True


SETUPS = {
    "one_direct": Setup("1 node, direct", 1, pooler=False, balancer=False),
    "one_pooled": Setup("1 node, HAProxy + PgBouncer", 1, pooler=True),
    "three_pooled": Setup("3 nodes, HAProxy + PgBouncer", 3, pooler=True),
    "three_direct": Setup("3 nodes, HAProxy, no PgBouncer", 3, pooler=False),
}


@dataclass
class Running:
    """A set-up, started: where the clients go and which processes serve them."""

    url: str
    roots: dict[str, list[int]]  # "nodes", "haproxy", "pgbouncer" -> pids
    pooler: PgBouncer | None = None


@contextlib.contextmanager
def started(
    setup: Setup,
    env: dict[str, str],
    direct_url: str,
    workers: int,
    threads: int,
    pool_size: int,
    folder: Path,
) -> Iterator[Running]:
    """The nodes of `setup`, with its pooler and balancer, stopped when the block ends."""
    with contextlib.ExitStack() as stack:
        node_env = dict(env)
        roots: dict[str, list[int]] = {"nodes": []}
        pooler = None
        if setup.pooler:
            database = urlsplit(direct_url)
            pooler = PgBouncer(
                database.hostname or "127.0.0.1",
                database.port or 5432,
                folder / "pgbouncer.log",
                pool_size=pool_size,
            )
            stack.callback(pooler.remove)
            pooler.start()
            assert pooler.process is not None
            roots["pgbouncer"] = [pooler.process.pid]
            node_env.update(
                DATABASE_URL=pooler.url(direct_url),
                DATABASE_POOLER="transaction",
                LISTEN_DATABASE_URL=direct_url,
            )
        if setup.balancer:
            # As compose runs the nodes: one proxy in front, whose checks send `Host: api`.
            node_env.update(NUM_PROXIES="1", ALLOWED_HOSTS="127.0.0.1,api")
        ports = [free_port() for _ in range(setup.nodes)]
        nodes: list[subprocess.Popen[bytes]] = []
        stack.callback(stop_nodes, nodes)
        for n, port in enumerate(ports, 1):
            command = serve.server_command("uno", port, workers, threads)
            nodes.append(serve.start(command, node_env, folder / f"node{n}.log"))
        for n, (node, port) in enumerate(zip(nodes, ports, strict=True), 1):
            serve.wait_answering(node, port, folder / f"node{n}.log")
            roots["nodes"].append(node.pid)
        url = f"http://127.0.0.1:{ports[0]}"
        if setup.balancer:
            url, pid = stack.enter_context(balancer(ports, folder))
            roots["haproxy"] = [pid]
        yield Running(url, roots, pooler)


def stop_nodes(nodes: list[subprocess.Popen[bytes]]) -> None:
    """Stop every node, together: each ends its streams before it exits."""
    for node in nodes:
        if node.poll() is None:
            node.send_signal(signal.SIGTERM)
    for node in nodes:
        serve.stop(node)


@contextlib.contextmanager
def balancer(ports: list[int], folder: Path) -> Iterator[tuple[str, int]]:
    """Debian's HAProxy with deploy/haproxy.cfg in front of the local `ports`, once
    every node has answered through it: its URL and pid."""
    binary = haproxy.haproxy()
    if binary is None:
        raise SystemExit("haproxy is not installed (apt-get install haproxy)")
    port = free_port()
    config = folder / "haproxy.cfg"
    config.write_text(haproxy.local_config(port, ports))
    process = spawn([binary, "-db", "-f", str(config)], log=folder / "haproxy.log", env=os.environ)
    try:
        seen: set[str] = set()

        def every_node_answered() -> bool:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            try:
                conn.request("GET", "/healthz")
                response = conn.getresponse()
                response.read()
                if response.status == 200:
                    seen.add(response.getheader("X-Served-By", ""))
            finally:
                conn.close()
            return len(seen) == len(ports)

        wait_until(every_node_answered, "every node through HAProxy", START_TIMEOUT)
        yield f"http://127.0.0.1:{port}", process.pid
    finally:
        stop_groups([process], grace=5)


# -- what the servers use ---------------------------------------------------------------


class Meter:
    """While the load runs: the PostgreSQL connections to the database (peak), PgBouncer's
    clients (peak), and the CPU seconds of every process serving the load."""

    def __init__(self, direct_url: str, running: Running) -> None:
        self.direct_url = direct_url
        self.database = urlsplit(direct_url).path.lstrip("/")
        self.running = running
        self.connections = 0
        self.pooler_clients = 0
        self.backends: dict[int, float] = {}
        self.first: dict[int, float] = {}
        self.stop = threading.Event()

    def _sample(self, conn: psycopg.Connection[Any]) -> None:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [self.database],
        ).fetchall()
        self.connections = max(self.connections, len(rows))
        for (pid,) in rows:
            stat = serve._stat(pid)
            if stat is not None:
                self.backends[pid] = stat[1]
        if self.running.pooler is not None:
            clients = len(self.running.pooler.show("CLIENTS", self.database))
            self.pooler_clients = max(self.pooler_clients, clients)

    @contextlib.contextmanager
    def measuring(self) -> Iterator[dict[str, float]]:
        """The CPU seconds by group, filled in when the block ends."""
        used: dict[str, float] = {}
        with psycopg.connect(self.direct_url, autocommit=True) as conn:
            self._sample(conn)
            # What the backends open already had used; one opened later used it all here.
            self.first = dict(self.backends)
            roots = self.running.roots
            before = {group: self._tree_cpu(pids) for group, pids in roots.items()}
            client = time.process_time()

            def sample() -> None:
                while not self.stop.wait(SAMPLE_SECONDS):
                    self._sample(conn)

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            try:
                yield used
            finally:
                self.stop.set()
                sampler.join()
                self._sample(conn)
                used["client"] = time.process_time() - client
                for group, pids in roots.items():
                    used[group] = self._tree_cpu(pids) - before[group]
                used["postgres"] = sum(
                    cpu - self.first.get(pid, 0.0) for pid, cpu in self.backends.items()
                )

    @staticmethod
    def _tree_cpu(pids: list[int]) -> float:
        return sum(serve.process_tree_cpu(pid) for pid in pids)


def database_connections(direct_url: str) -> int:
    with psycopg.connect(direct_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [urlsplit(direct_url).path.lstrip("/")],
        ).fetchone()
    return int(row[0]) if row else 0
