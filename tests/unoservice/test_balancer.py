"""The balancer of docker-compose.yml, run here: Debian's haproxy with
deploy/haproxy.cfg (its servers two local API nodes instead of the replicas Docker's
DNS names, `bench.haproxy.local_config`) in front of two production servers on the
test database. Requests reach both nodes, a stream passes frame by frame, the nodes
count each client by the address the balancer forwards, and a stopped node is
skipped and then marked down by its /livez checks. In front of a node that dies in
the middle of requests, and then of none, the balancer's own answers (502, 503) are
in the API's error shape with `Retry-After`."""

from __future__ import annotations

import http.client
import json
import os
import re
import socketserver
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from subprocess import Popen
from unittest.mock import ANY

import pytest

from bench import haproxy
from bench.processes import ROOT
from tests.served import Answer, Client, Served, serving
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
API_DOC = ROOT / "docs" / "api.md"


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
    with ExitStack() as stack:
        nodes = [
            stack.enter_context(
                serving(tmp_path_factory.mktemp(f"node{n}"), NODE_ENV, workers=1, threads=4)
            )
            for n in (1, 2)
        ]
        folder = tmp_path_factory.mktemp("balancer")
        yield start_balancer(stack, folder, nodes, [node.port for node in nodes])


def start_balancer(
    stack: ExitStack, folder: Path, nodes: list[Served], ports: list[int]
) -> Balancer:
    """deploy/haproxy.cfg in front of the servers on `ports`, answering its own
    /livez checks and the clients' requests; stopped with `stack`."""
    binary = haproxy.haproxy()
    assert binary is not None, "haproxy is not installed (apt-get install haproxy)"
    port = free_port()
    config = folder / "haproxy.cfg"
    config.write_text(haproxy.local_config(port, ports))
    checked = haproxy.check(config)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    process = spawn([binary, "-db", "-f", str(config)], log=folder / "haproxy.log", env=os.environ)
    stack.callback(stop_groups, [process], grace=5)
    running = Balancer(port, folder, process, nodes)
    wait_until(
        lambda: running.client().get("/livez").status == 200,
        "the balancer",
        30,
        details=running.log,
    )
    return running


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


# -- the balancer's own answers ------------------------------------------------------------


class DyingNode(socketserver.ThreadingTCPServer):
    """A node that is alive to the balancer's checks (/livez) and dies in the middle
    of every other request: it reads the request and closes the connection without
    a word, as a node killed while it works."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), DyingRequest)
        self.port = self.server_address[1]
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class DyingRequest(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        line = self.rfile.readline()
        while self.rfile.readline() not in (b"\r\n", b""):
            pass
        if line.startswith(b"GET /livez "):
            body = b'{"status":"ok"}'
            head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            self.wfile.write(head.encode() + body)


@pytest.fixture(scope="module")
def dying(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Balancer, DyingNode]]:
    node = DyingNode()
    with ExitStack() as stack:
        stack.callback(node.stop)
        yield start_balancer(stack, tmp_path_factory.mktemp("dying"), [], [node.port]), node


def assert_the_balancers_own(answer: Answer, status: int, code: str) -> None:
    """An answer of HAProxy's (no node's `X-Served-By`) in the API's error shape,
    saying when to ask again."""
    assert answer.status == status, answer.raw
    assert "x-served-by" not in answer.headers
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["retry-after"] == "1"
    assert answer.body == {"error": {"code": code, "message": ANY, "details": {}}}


def test_a_node_that_dies_mid_request_is_a_502_in_the_api_shape_on_a_fresh_connection(dying):
    balancer, _node = dying
    moved = balancer.client().post("/games/0/moves", {"action": "draw", "version": 1})
    assert_the_balancers_own(moved, 502, "bad_gateway")


def test_a_node_that_dies_mid_request_closes_a_kept_alive_connection_with_no_answer(dying):
    """HAProxy lets the client send again, as it would after its own idle close: the
    client sees the connection closed, with no status, and retries with its
    Idempotency-Key (docs/operations.md)."""
    balancer, _node = dying
    connection = http.client.HTTPConnection("127.0.0.1", balancer.port, timeout=10)
    try:
        connection.request("GET", "/livez", headers={"Host": "api"})
        first = connection.getresponse()
        assert (first.status, first.read()) == (200, b'{"status":"ok"}')
        connection.request("POST", "/api/v1/games/0/moves", body=b"{}", headers={"Host": "api"})
        with pytest.raises(http.client.RemoteDisconnected):
            connection.getresponse()
    finally:
        connection.close()


def test_with_no_node_left_every_request_is_a_503_in_the_api_shape(dying):
    balancer, node = dying
    node.stop()
    answers = [balancer.client().get("/games") for _ in range(3)]
    for answer in answers:
        assert_the_balancers_own(answer, 503, "service_unavailable")
    wait_until(
        lambda: "nodes/node1 is DOWN" in balancer.log(),
        "the balancer's checks marking the node down",
        20,
        details=balancer.log,
    )
    assert_the_balancers_own(balancer.client().get("/games"), 503, "service_unavailable")


def test_every_answer_the_balancer_makes_is_in_the_api_shape_with_a_code_api_md_defines():
    """The statuses HAProxy itself answers from a request it has read (its parser's
    400 and 408 for a request it could not read are its built-in pages until
    HAProxy 3.2: docs/operations.md)."""
    defined = set(re.findall(r"^\| (\d{3}) \| `([a-z_]+)` \|", API_DOC.read_text(), re.M))
    errors = [
        line.split(maxsplit=2)
        for line in haproxy.sections()["defaults"]
        if line.startswith("http-error ")
    ]
    statuses = {}
    for _keyword, _status, rest in errors:
        found = re.fullmatch(
            r"(\d{3}) content-type application/json string '(.*)'(?: hdr Retry-After 1)?", rest
        )
        assert found is not None, rest
        status, text = found.group(1, 2)
        body = json.loads(text)
        assert set(body["error"]) == {"code", "message", "details"}, body
        assert (status, body["error"]["code"]) in defined, (status, body)
        statuses[status] = "hdr Retry-After 1" in rest
    assert statuses == {
        "400": False, "408": False, "500": False, "502": True, "503": True, "504": True
    }  # fmt: skip
