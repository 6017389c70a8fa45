"""The balancer of docker-compose.yml, run here: Debian's haproxy with
deploy/haproxy.cfg (its servers two local API nodes instead of the replicas Docker's
DNS names, `bench.haproxy.local_config`) in front of two production servers on the
test database. Requests reach both nodes, a stream passes frame by frame, the nodes
count each client by the address the balancer forwards, and a stopped node is
skipped and then marked down by its /healthz checks."""

from __future__ import annotations

import http.client
import os
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from subprocess import Popen

import pytest

from bench import haproxy
from tests.served import Client, Served, serving
from tests.support import free_port, log_tails, spawn, stop_groups, wait_until

pytestmark = pytest.mark.slow

# Sign-ups per client address (per day: no window ends within the test).
SIGN_UPS = 2
# What compose gives the nodes: one proxy in front, and the Host its checks send.
NODE_ENV = {
    "NUM_PROXIES": "1",
    "ALLOWED_HOSTS": "127.0.0.1,api",
    "THROTTLE_RATE_ANONYMOUS": f"{SIGN_UPS}/day",
}
STREAM_READ_SECONDS = 10.0


@dataclass
class Balancer:
    port: int
    folder: Path
    process: Popen[bytes]
    nodes: list[Served]

    def client(self, address: str = "127.0.0.1") -> Client:
        return Client(self.port, address)

    def log(self) -> str:
        return log_tails(self.folder)


@pytest.fixture(scope="module")
def balancer(tmp_path_factory: pytest.TempPathFactory, django_db_setup: None) -> Iterator[Balancer]:
    binary = haproxy.haproxy()
    assert binary is not None, "haproxy is not installed (apt-get install haproxy)"
    with ExitStack() as stack:
        nodes = [
            stack.enter_context(
                serving(tmp_path_factory.mktemp(f"node{n}"), NODE_ENV, workers=1, threads=4)
            )
            for n in (1, 2)
        ]
        folder = tmp_path_factory.mktemp("balancer")
        port = free_port()
        config = folder / "haproxy.cfg"
        config.write_text(haproxy.local_config(port, [node.port for node in nodes]))
        checked = haproxy.check(config)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        process = spawn(
            [binary, "-db", "-f", str(config)], log=folder / "haproxy.log", env=os.environ
        )
        stack.callback(stop_groups, [process], grace=5)
        running = Balancer(port, folder, process, nodes)
        wait_until(
            lambda: running.client().get("/healthz").status == 200,
            "the balancer",
            30,
            details=running.log,
        )
        yield running


def test_haproxy_accepts_the_configuration_as_it_ships():
    """Docker's DNS is not asked yet: `init-addr none` leaves the slots empty until
    it answers."""
    checked = haproxy.check(haproxy.CONFIG)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_requests_through_the_balancer_reach_every_node(balancer, transactional_db):
    served_by = {balancer.client().get("/healthz").headers["x-served-by"] for _ in range(4)}
    assert served_by == {"node1", "node2"}


def test_a_stream_through_the_balancer_delivers_its_first_event_while_it_stays_open(
    balancer, transactional_db
):
    player = balancer.client("127.0.3.7").sign_up("Ada")
    connection = http.client.HTTPConnection("127.0.0.1", balancer.port, timeout=STREAM_READ_SECONDS)
    try:
        connection.request(
            "GET",
            "/api/v1/players/me/stream",
            headers={"Authorization": f"Bearer {player.token}", "Accept": "text/event-stream"},
        )
        response = connection.getresponse()
        assert response.status == 200
        assert response.getheader("content-type", "").startswith("text/event-stream")
        # A balancer that buffered would hold the frames of a stream that stays open:
        # reading would time out.
        line = b""
        while line.strip() != b"event: hello":
            line = response.readline()
            assert line, "the stream ended"
        assert response.readline().startswith(b"data: ")
    finally:
        connection.close()


def test_the_nodes_count_each_client_by_the_address_the_balancer_forwards(
    balancer, transactional_db
):
    """Every request comes to a node from the balancer; trusting one proxy, the nodes
    count the client's own address (X-Forwarded-For), in the cache they share."""
    first, second = balancer.client("127.0.6.1"), balancer.client("127.0.6.2")
    signed = [first.post("/players", {"name": f"Ann{n}"}) for n in range(SIGN_UPS + 1)]
    assert [a.status for a in signed] == [201] * SIGN_UPS + [429]
    assert {a.headers["x-served-by"] for a in signed} == {"node1", "node2"}
    assert second.post("/players", {"name": "Bea"}).status == 201


def test_a_stopped_node_is_skipped_at_once_and_then_marked_down(balancer, transactional_db):
    first, second = balancer.nodes
    stop_groups([first.process], grace=10)
    answers = [balancer.client().get("/healthz") for _ in range(6)]
    assert [a.status for a in answers] == [200] * 6
    assert {a.headers["x-served-by"] for a in answers} == {"node2"}
    wait_until(
        lambda: "nodes/node1 is DOWN" in balancer.log(),
        "the balancer's checks marking node1 down",
        20,
        details=balancer.log,
    )
    assert second.process.poll() is None
