"""A client that goes before its answer is complete, against the server command: its
request is logged and counted as 499 (nginx's "client closed request"), never as a
500 (docs/operations.md, "Metrics" and "Logs")."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.factories import Persona, start_game
from tests.served import Served, serving
from tests.support import wait_until
from unoclient.sse import close, connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

TOKEN = "client-gone-scrape"
LONG_POLL_ROUTE = "api/v1/games/<str:game_id>/events?wait"
STREAM_ROUTE = "api/v1/games/<str:game_id>/stream"


@pytest.fixture(scope="module")
def logging_server(
    tmp_path_factory: pytest.TempPathFactory, django_db_setup: None
) -> Iterator[Served]:
    env = {"LOG_REQUESTS": "true", "LOG_FORMAT": "json", "METRICS_TOKEN": TOKEN}
    with serving(tmp_path_factory.mktemp("gone"), env, workers=2) as served:
        yield served


@pytest.fixture
def server(logging_server: Served, transactional_db: None) -> Served:
    return logging_server


@pytest.fixture
def two_players(host: Persona, guest: Persona) -> str:
    """A started game of the host and the guest, in which nothing happens; its id."""
    return str(start_game(host, guest, seed=21).pk)


def request_lines(server: Served, route: str) -> list[dict[str, Any]]:
    """The request lines the server logged for `route`, parsed."""
    lines = (server.folder / "api.log").read_text(errors="replace").splitlines()
    parsed = [json.loads(line) for line in lines if line.startswith("{")]
    return [
        line
        for line in parsed
        if line.get("logger") == "unoservice.requests" and line.get("route") == route
    ]


def sample(server: Served, name: str, labels: dict[str, str]) -> float:
    """The sample `name` with `labels` on the server's metrics page (0 when missing)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request("GET", "/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        response = connection.getresponse()
        assert response.status == 200
        page = response.read().decode()
    finally:
        connection.close()
    for family in text_string_to_metric_families(page):
        for found in family.samples:
            if found.name == name and found.labels == labels:
                return float(found.value)
    return 0.0


def counted(server: Served, route: str, status: int) -> float:
    """`uno_http_requests_total` of `route` (GET) with `status`."""
    labels = {"route": route, "method": "GET", "status": str(status)}
    return sample(server, "uno_http_requests_total", labels)


def polls_waiting(server: Served) -> float:
    return sample(server, "uno_long_polls_waiting", {"resource": "events"})


def assert_gone(server: Served, route: str, before_499: float, before_500: float) -> None:
    wait_until(lambda: counted(server, route, 499) == before_499 + 1, f"499 for {route}", 10)
    assert counted(server, route, 500) == before_500
    wait_until(lambda: request_lines(server, route), f"the line of {route}", 10)
    [line] = request_lines(server, route)
    assert line["status"] == 499
    assert line["message"].startswith(f"GET {route} 499 ")


def test_a_long_poll_whose_client_goes_while_it_waits_is_a_499(
    server: Served, host: Persona, two_players: str
) -> None:
    before_499, before_500 = (counted(server, LONG_POLL_ROUTE, s) for s in (499, 500))
    last_seq = host.get(f"/games/{two_players}").json()["last_seq"]
    path = f"/api/v1/games/{two_players}/events?after={last_seq}&wait=30"
    with socket.create_connection(("127.0.0.1", server.port)) as client:
        client.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {host.token}\r\n\r\n".encode()
        )
        wait_until(lambda: polls_waiting(server) == 1, "the poll waits", 10)
    assert_gone(server, LONG_POLL_ROUTE, before_499, before_500)


def test_a_stream_its_client_leaves_is_a_499(
    server: Served, host: Persona, two_players: str
) -> None:
    before_499, before_500 = (counted(server, STREAM_ROUTE, s) for s in (499, 500))
    connection, response = connect(
        f"{server.url}/api/v1/games/{two_players}/stream",
        {"Authorization": f"Bearer {host.token}"},
    )
    assert response.readline().startswith(b"retry:")  # open, its first frame read
    close(connection, response)
    assert_gone(server, STREAM_ROUTE, before_499, before_500)


def test_a_client_that_goes_before_its_body_is_whole_is_a_499(server: Served) -> None:
    with socket.create_connection(("127.0.0.1", server.port)) as client:
        client.sendall(
            b"POST /api/v1/players HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )

    def line() -> list[dict[str, Any]]:
        return [entry for entry in request_lines(server, "unmatched") if entry["method"] == "POST"]

    wait_until(line, "the line of the unfinished POST", 10)
    assert [entry["status"] for entry in line()] == [499]
