"""What a connection may cost the server before it has sent a valid request: the
attacks of a client without a login, repeated against the real server command in
production settings, each with the worker's memory read before and after it and
/healthz asked on other connections throughout."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

import pytest
import uvicorn
from uvicorn.server import ServerState

from tests import attacks
from tests.served import Client, Served, serving
from unoservice.connections import GuardedHttpToolsProtocol

# The server works on the test database: the tests ask for it, and commit.
pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

HEAD_TIMEOUT = 2
BODY_TIMEOUT = 2
BODY_LIMIT = 2_621_440  # Django's DATA_UPLOAD_MAX_MEMORY_SIZE
BODIES_BUFFERED = 32 * 1024 * 1024
MB = 1024 * 1024
# What an attack may leave behind in the worker.
MOST_GROWTH = 5 * MB
T = TypeVar("T")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, django_db_setup: None) -> Iterator[Served]:
    env = {"HTTP_HEAD_TIMEOUT": str(HEAD_TIMEOUT), "HTTP_BODY_TIMEOUT": str(BODY_TIMEOUT)}
    with serving(tmp_path_factory.mktemp("connections"), env) as api:
        yield api


def health(api: Served, source: str = "127.0.0.1") -> int:
    """The status of /healthz asked from the loopback address `source`."""
    return Client(api.port, source).get("/healthz").status


@pytest.fixture
def worker(server: Served) -> int:
    (pid,) = server.worker_pids()
    # Warm: the first requests of a worker load what it keeps.
    for _ in range(20):
        health(server)
    return pid


def settle(server: Served) -> None:
    """Let the server finish with an attack: a few requests after it."""
    time.sleep(0.5)
    for _ in range(5):
        health(server)


def assert_healthy_throughout(watch: attacks.HealthWatch) -> None:
    assert watch.statuses, "no health check ran"
    assert set(watch.statuses) == {200}, watch.statuses


def attacked(server: Served, worker: int, attack: Callable[[], T]) -> tuple[T, attacks.Growth]:
    """What `attack` got, and the worker's growth over it, with /healthz asked on
    other connections throughout (and asserted healthy)."""
    got: list[T] = []
    with attacks.HealthWatch(server.port) as watch:
        growth = attacks.memory_growth(worker, lambda: got.append(attack()), lambda: settle(server))
    assert_healthy_throughout(watch)
    return got[0], growth


@pytest.mark.parametrize(
    ("attack", "status", "code"),
    [
        (attacks.endless_headers, 431, "headers_too_large"),
        (attacks.long_request_line, 414, "uri_too_long"),
    ],
    ids=["header lines sent for ever, past 16 KiB", "a 40 MB request line, past 8 KiB"],
)
def test_an_endless_head_is_refused_and_costs_the_worker_nothing(
    server, worker, attack, status, code
):
    outcome, growth = attacked(server, worker, lambda: attack(server.port))
    assert outcome.status == status
    assert f'"code": "{code}"'.encode() in outcome.answer
    assert outcome.closed
    # Refused long before the attacker's tens of MB (what went was mostly the sockets'
    # buffers).
    assert outcome.sent < 16 * MB
    assert growth.after < MOST_GROWTH, growth
    assert growth.peak < MOST_GROWTH, growth


def test_a_body_declared_over_the_limit_is_refused_before_a_byte_of_it_is_sent(server):
    sock = attacks.connect(server.port)
    sock.sendall(
        b"POST /api/v1/players HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % (BODY_LIMIT + 1)
    )
    outcome = attacks._finish(sock, attacks.Outcome(), 10)
    assert outcome.status == 413
    assert b'"code": "payload_too_large"' in outcome.answer
    assert outcome.closed


def test_a_chunked_body_is_cut_off_at_the_limit(server):
    def chunks() -> Iterator[bytes]:
        yield (
            b"POST /api/v1/players HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        piece = b"x" * 60_000
        while True:
            yield b"%x\r\n%s\r\n" % (len(piece), piece)

    outcome = attacks._send_until_refused(attacks.connect(server.port), chunks(), 20 * MB)
    assert outcome.status == 413
    assert outcome.closed
    assert outcome.sent < 16 * MB  # the limit, and what the sockets buffered meanwhile


def test_thirty_stalled_bodies_are_answered_and_leave_nothing_behind(server, worker):
    outcomes, growth = attacked(
        server,
        worker,
        lambda: attacks.stalled_bodies(
            server.port, declared=BODY_LIMIT, sent=BODY_LIMIT - 1024, wait=30
        ),
    )
    statuses = sorted({outcome.status for outcome in outcomes})
    # Stalled bodies time out; those that would go over what a process holds at once
    # are turned away before that.
    assert set(statuses) <= {408, 503}, statuses
    assert 408 in statuses
    assert all(outcome.closed for outcome in outcomes)
    assert growth.after < MOST_GROWTH, growth
    assert growth.peak < BODIES_BUFFERED + 16 * MB, growth


def test_connections_that_send_nothing_are_closed(server):
    outcomes = attacks.silent_connections(server.port, count=5, half_head=False, wait=30)
    assert all(outcome.closed for outcome in outcomes)
    assert all(outcome.answer == b"" for outcome in outcomes)


def test_connections_that_send_half_a_head_are_answered_408_and_closed(server):
    outcomes = attacks.silent_connections(server.port, count=5, half_head=True, wait=30)
    assert all(outcome.closed for outcome in outcomes)
    assert {outcome.status for outcome in outcomes} == {408}
    assert all(b'"code": "request_timeout"' in outcome.answer for outcome in outcomes)


def test_an_idle_keep_alive_connection_is_closed(server):
    sock = attacks.connect(server.port)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    outcome = attacks._finish(sock, attacks.Outcome(), 30)
    assert outcome.status == 200
    assert outcome.closed


def test_a_request_that_is_not_http_is_answered_400_in_the_error_shape(server):
    sock = attacks.connect(server.port)
    sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
    outcome = attacks._finish(sock, attacks.Outcome(), 10)
    assert outcome.status == 400
    assert b'"code": "invalid_request"' in outcome.answer


def test_one_address_at_its_connection_cap_leaves_the_others_served(tmp_path):
    env = {
        "MAX_CONNECTIONS_PER_ADDRESS": "20",
        "HTTP_HEAD_TIMEOUT": "60",
        "CORS_ALLOWED_ORIGINS": "https://cards.example",
    }
    with serving(tmp_path, env) as api:
        held = [attacks.connect(api.port, source="127.0.0.2") for _ in range(20)]
        try:
            over = attacks._finish(
                attacks.connect(api.port, source="127.0.0.2"), attacks.Outcome(), 10
            )
            status = health(api, source="127.0.0.3")
        finally:
            for sock in held:
                sock.close()
        assert over.status == 503
        assert b'"code": "service_unavailable"' in over.answer
        assert b"retry-after: 1" in over.answer
        # Before any request: no origin to check, and nothing in it but the error.
        assert b"access-control-allow-origin: *" in over.answer
        assert status == 200


def test_the_connection_cap_keeps_files_for_the_process_under_its_open_file_limit(tmp_path):
    with serving(tmp_path, {"HTTP_HEAD_TIMEOUT": "60"}, open_files=400) as api:
        # Opened before the flood: the process still serves it at its cap.
        kept = socket.create_connection(("127.0.0.1", api.port), timeout=10)
        flood = [attacks.connect(api.port, source="127.0.0.2") for _ in range(400)]
        try:
            refused = [attacks._finish(sock, attacks.Outcome(), 0.5) for sock in flood[300:]]
            kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            answer = attacks._finish(kept, attacks.Outcome(), 20)
        finally:
            for sock in flood:
                sock.close()
        # 400 open files leave 300 connections: the process keeps a quarter for itself.
        assert {outcome.status for outcome in refused} == {503}
        assert answer.status == 200, answer.answer
        # Once the flood is gone, everyone is served again.
        time.sleep(0.5)
        assert health(api) == 200


class _Peer:
    """A transport as asyncio hands a protocol one, from the peer `address`."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.written = b""
        self.closed = False

    def get_extra_info(self, name: str, default: object = None) -> object:
        return {"peername": (self.address, 40000), "sockname": ("::1", 8000)}.get(name, default)

    def write(self, data: bytes) -> None:
        self.written += data

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed


async def _never_called(scope: object, receive: object, send: object) -> None:
    raise AssertionError("no request was sent")


def test_the_addresses_of_one_ipv6_network_share_a_connection_cap(settings):
    settings.MAX_CONNECTIONS_PER_ADDRESS = 3
    settings.NUM_PROXIES = 0
    loop = asyncio.new_event_loop()
    config = uvicorn.Config(app=_never_called, lifespan="off")
    state = ServerState()

    def connect(address: str) -> tuple[GuardedHttpToolsProtocol, _Peer]:
        protocol = GuardedHttpToolsProtocol(config, state, {}, _loop=loop)
        peer = _Peer(address)
        protocol.connection_made(peer)  # type: ignore[arg-type]
        return protocol, peer

    try:
        held = [connect(f"2001:db8:1:2::{n + 1}") for n in range(3)]
        refused, over = connect("2001:db8:1:2:ffff::1")
        _, elsewhere = connect("2001:db8:1:3::1")
        _, ipv4 = connect("203.0.113.9")
        assert not any(peer.closed for _, peer in held)
        assert over.closed
        assert b"503" in over.written.split(b"\r\n")[0]
        assert b'"code": "service_unavailable"' in over.written
        assert not elsewhere.closed
        assert not ipv4.closed
        # A connection of the network that closes leaves a place for another (the
        # refused one closes too, as its transport tells it).
        refused.connection_lost(None)
        held[0][0].connection_lost(None)
        _, again = connect("2001:db8:1:2::abcd")
        assert not again.closed
    finally:
        for protocol in list(state.connections):
            protocol.connection_lost(None)
        loop.close()
