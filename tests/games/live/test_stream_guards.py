"""What Django checks of its own routes, checked of the routes served outside it too
(the game stream, the lobby stream, the long poll): the Host header, numbers no
conversion can choke on, nosniff, and an unexpected error answered as JSON and
logged once."""

from __future__ import annotations

import json
import logging

import pytest
import requests

from games.live import sse
from tests.games.live.conftest import LiveServer, auth
from unoservice.observability import JsonFormatter

pytestmark = pytest.mark.django_db(transaction=True)

# Past Python's limit on converting digits to an int (4,300).
LONG_NUMBER = "9" * 4301
GAME_PATHS = ["/api/v1/games/{game}/stream", "/api/v1/games/{game}/events?wait=5"]


def get(live: LiveServer, path: str, **kwargs: object) -> requests.Response:
    return requests.get(live.url + path, timeout=20, **kwargs)  # type: ignore[arg-type]


def assert_shape(response: requests.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text[:300]
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.json()["error"]["code"] == code


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/games/{game}/events?wait=" + LONG_NUMBER,
        "/api/v1/games/{game}/events?wait=5&after=" + LONG_NUMBER,
        "/api/v1/games/{game}/stream?after=" + LONG_NUMBER,
        "/api/v1/games?page=" + LONG_NUMBER,
    ],
    ids=["wait", "after on a long poll", "after on a stream", "page"],
)
def test_a_number_of_thousands_of_digits_is_a_400_in_the_error_shape(
    live: LiveServer, host, two_players, path
):
    response = get(live, path.format(game=two_players), headers=auth(host))
    assert response.status_code in (400, 404), response.text[:300]
    assert response.headers["Content-Type"].startswith("application/json")
    code = response.json()["error"]["code"]
    assert code == ("not_found" if "page=" in path else "invalid_request")


def test_a_last_event_id_of_thousands_of_digits_is_a_400(live: LiveServer, host, two_players):
    response = get(
        live,
        f"/api/v1/games/{two_players}/stream",
        headers={**auth(host), "Last-Event-ID": LONG_NUMBER},
    )
    assert_shape(response, 400, "invalid_request")


@pytest.mark.parametrize(
    "path", [*GAME_PATHS, "/api/v1/players/me/stream"], ids=["stream", "long poll", "lobby"]
)
def test_a_host_the_service_does_not_serve_is_refused_on_the_routes_outside_django(
    live: LiveServer, host, two_players, path
):
    response = get(
        live, path.format(game=two_players), headers={**auth(host), "Host": "evil.example"}
    )
    assert_shape(response, 400, "invalid_request")


def test_a_stream_says_nosniff(live: LiveServer, host, two_players):
    with requests.get(
        live.url + f"/api/v1/games/{two_players}/stream",
        headers=auth(host),
        stream=True,
        timeout=20,
    ) as response:
        assert response.status_code == 200
        assert response.headers["Content-Type"].startswith("text/event-stream")
        assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_a_stream_refusal_says_nosniff(live: LiveServer, two_players):
    response = get(live, f"/api/v1/games/{two_players}/stream")
    assert_shape(response, 401, "not_authenticated")
    assert response.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("path", GAME_PATHS, ids=["stream", "long poll"])
def test_an_unexpected_error_on_a_stream_path_is_a_json_500_logged_once(
    live: LiveServer, host, two_players, path, monkeypatch, caplog
):
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the hub fell over")

    monkeypatch.setattr(sse, "stream", broken)
    monkeypatch.setattr(sse, "long_poll", broken)
    with caplog.at_level(logging.ERROR, logger="unoservice.asgi"):
        response = get(live, path.format(game=two_players), headers=auth(host))
    assert_shape(response, 500, "internal_error")
    records = [record for record in caplog.records if record.name == "unoservice.asgi"]
    assert len(records) == 1
    # In production the line is one JSON object, traceback included.
    line = JsonFormatter().format(records[0])
    assert "\n" not in line
    assert "the hub fell over" in json.loads(line)["exc_info"]
