"""The live streams for web pages on other origins, over the real ASGI server: the
streams, the long poll and their refusals (served outside Django) carry the origin
when it is let in, and the ASGI layer answers their preflights itself, before the
refusals it gives early (docs/api.md, "Web clients")."""

from __future__ import annotations

import http.client
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest

from games import services
from tests.factories import Persona, start_game
from tests.games.live.conftest import LiveServer, auth
from unoservice import shedding
from unoservice.throttling import AnonymousRateThrottle

pytestmark = pytest.mark.django_db(transaction=True)

PAGE = "https://cards.example"
ELSEWHERE = "https://evil.example"
EXPOSED = {"Retry-After", "X-Request-ID", "Idempotent-Replayed", "WWW-Authenticate"}


@pytest.fixture(autouse=True)
def one_origin_let_in(settings: Any) -> None:
    settings.CORS_ALLOWED_ORIGINS = [PAGE]
    settings.CORS_ALLOWED_ORIGIN_REGEXES = []


@dataclass
class Answer:
    status: int
    headers: dict[str, str]

    def lets_in(self, origin: str) -> bool:
        return self.headers.get("access-control-allow-origin") == origin

    @property
    def exposed(self) -> set[str]:
        return set(self.headers.get("access-control-expose-headers", "").split(", "))


def ask(url: str, method: str = "GET", headers: dict[str, str] | None = None) -> Answer:
    """The status and headers of one request; a stream that opens is closed unread."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    try:
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        connection.request(method, path, headers=headers or {})
        response = connection.getresponse()
        found = {name.lower(): value for name, value in response.getheaders()}
        if not found.get("content-type", "").startswith("text/event-stream"):
            response.read()
        return Answer(response.status, found)
    finally:
        connection.close()


def ticket_for(persona: Persona, game_id: str) -> str:
    answer = persona.post(f"/games/{game_id}/stream-ticket")
    assert answer.status_code == 201, answer.json()
    return str(answer.json()["ticket"])


def test_a_stream_opened_with_a_ticket_carries_the_origin_of_a_page_let_in(
    live: LiveServer, host: Persona
):
    game_id = str(start_game(host, "random", seed=8).pk)
    url = live.stream_url(game_id, f"ticket={ticket_for(host, game_id)}")
    opened = ask(url, headers={"Origin": PAGE, "Accept": "text/event-stream"})
    assert opened.status == 200
    assert opened.headers["content-type"].startswith("text/event-stream")
    assert opened.lets_in(PAGE)
    assert opened.exposed == EXPOSED
    assert "origin" in opened.headers["vary"].lower()
    assert "access-control-allow-credentials" not in opened.headers

    elsewhere = ask(
        live.stream_url(game_id, f"ticket={ticket_for(host, game_id)}"),
        headers={"Origin": ELSEWHERE},
    )
    assert elsewhere.status == 200
    assert "access-control-allow-origin" not in elsewhere.headers


def test_the_streams_refusals_carry_the_origin_so_that_a_page_reads_them(
    live: LiveServer, host: Persona, settings: Any
):
    game_id = str(start_game(host, "random", seed=8).pk)
    page = {"Origin": PAGE}
    bad_ticket = ask(live.stream_url(game_id, "ticket=used-or-never-issued"), headers=page)
    assert bad_ticket.status == 401
    assert bad_ticket.lets_in(PAGE)
    assert "WWW-Authenticate" in bad_ticket.exposed
    no_game = ask(
        live.stream_url("00000000-0000-0000-0000-000000000000"),
        headers={
            **page,
            **auth(host),
        },
    )
    assert no_game.status == 404
    assert no_game.lets_in(PAGE)
    lobby = ask(f"{live.url}/api/v1/players/me/stream?ticket=nope", headers=page)
    assert lobby.status == 401
    assert lobby.lets_in(PAGE)

    settings.MAX_STREAMS_PER_PLAYER = 0
    capped = ask(live.stream_url(game_id), headers={**page, **auth(host)})
    assert capped.status == 429
    assert capped.lets_in(PAGE)
    assert "Retry-After" in capped.exposed
    assert capped.headers["retry-after"]


def test_a_long_poll_carries_the_origin_whether_it_waited_or_was_refused(
    live: LiveServer, host: Persona, settings: Any
):
    game = start_game(host, "random", seed=8)
    events = f"{live.url}/api/v1/games/{game.pk}/events"
    page = {"Origin": PAGE, **auth(host)}
    waited = ask(f"{events}?after={game.last_seq}&wait=1", headers=page)
    assert waited.status == 200
    assert waited.lets_in(PAGE)
    assert waited.exposed == EXPOSED

    settings.MAX_STREAMS_PER_PLAYER = 0
    refused = ask(f"{events}?after={game.last_seq}&wait=5", headers=page)
    assert refused.status == 429
    assert refused.lets_in(PAGE)
    services.game_abandon(game_id=str(game.pk), reason="test over")


def test_a_preflight_is_answered_before_the_refusals_of_a_flooding_address(
    live: LiveServer, host: Persona
):
    # The ASGI layer refuses this address's requests without credentials itself.
    shedding.addresses.refuse(AnonymousRateThrottle.key_for("127.0.0.1"), time.time() + 60)
    game_id = str(start_game(host, "random", seed=8).pk)
    for url in (f"{live.url}/api/v1/games/{game_id}/stream-ticket", live.stream_url(game_id)):
        answered = ask(
            url,
            "OPTIONS",
            {
                "Origin": PAGE,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization",
            },
        )
        assert answered.status == 200, url
        assert answered.lets_in(PAGE)
        assert "authorization" in answered.headers["access-control-allow-headers"]
        assert answered.headers["access-control-max-age"] == "86400"
        assert "x-request-id" in answered.headers
    refused = ask(f"{live.url}/api/v1/games", headers={"Origin": PAGE})
    assert refused.status == 429
    assert refused.lets_in(PAGE)
    assert "Retry-After" in refused.exposed
    # The player behind that address still plays.
    token = ask(f"{live.url}/api/v1/games/{game_id}/stream-ticket", "POST", {**auth(host)})
    assert token.status == 201


def test_a_preflight_naming_a_host_not_served_here_is_refused(live: LiveServer):
    refused = ask(
        f"{live.url}/api/v1/games",
        "OPTIONS",
        {"Origin": PAGE, "Access-Control-Request-Method": "GET", "Host": "evil.example"},
    )
    assert refused.status == 400


def test_outside_the_api_nothing_is_opened_to_other_origins(live: LiveServer):
    health = ask(f"{live.url}/healthz", headers={"Origin": PAGE})
    assert "access-control-allow-origin" not in health.headers
