"""Web pages on other origins (docs/api.md, "Web clients"): the origins let in
(`CORS_ALLOWED_ORIGINS`), preflights answered before authentication and rate limits
on every API path, the headers a page may read, no credentials, and nothing of it
outside the API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import Client

from tests.factories import Persona
from unoservice import connections, cors
from unoservice.errors import ServiceUnavailable

pytestmark = pytest.mark.django_db

PAGE = "https://cards.example"
ELSEWHERE = "https://evil.example"


@pytest.fixture(autouse=True)
def allowed_origins(settings: Any) -> None:
    """One origin let in, and not the development's local ones."""
    settings.CORS_ALLOWED_ORIGINS = [PAGE]
    settings.CORS_ALLOWED_ORIGIN_REGEXES = []
    settings.CORS_ALLOW_ALL_ORIGINS = False


def preflight(path: str, origin: str, method: str = "POST", **headers: str) -> Any:
    return Client().options(
        path,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
            **headers,
        },
    )


def test_a_preflight_of_a_stream_ticket_from_a_page_let_in_is_answered_without_a_token(
    host: Persona,
):
    from tests.factories import start_game

    game = start_game(host, "random", seed=5)
    answer = preflight(f"/api/v1/games/{game.pk}/stream-ticket", PAGE)
    assert answer.status_code == 200
    assert answer["Access-Control-Allow-Origin"] == PAGE
    methods = {"GET", "HEAD", "POST", "PATCH", "DELETE"}
    assert set(answer["Access-Control-Allow-Methods"].split(", ")) == methods
    allowed_headers = set(answer["Access-Control-Allow-Headers"].split(", "))
    assert {"authorization", "content-type", "idempotency-key", "x-request-id"} <= allowed_headers
    assert answer["Access-Control-Max-Age"] == "86400"
    assert "Access-Control-Allow-Credentials" not in answer
    assert "WWW-Authenticate" not in answer


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/players",
        "/api/v1/players/me",
        "/api/v1/games",
        "/api/v1/games/00000000-0000-0000-0000-000000000000/moves",
        "/api/v1/games/00000000-0000-0000-0000-000000000000/stream",
        "/api/v1/matchmaking",
        "/api/v1/nonexistent",
    ],
)
def test_every_api_path_answers_a_preflight_before_authentication(path):
    answer = preflight(path, PAGE)
    assert answer.status_code == 200
    assert answer["Access-Control-Allow-Origin"] == PAGE


def test_a_preflight_is_not_counted_against_the_rate_limit_of_its_address(monkeypatch):
    from unoservice.throttling import AnonymousRateThrottle

    monkeypatch.setattr(AnonymousRateThrottle, "THROTTLE_RATES", {"anonymous": "2/min"})
    for _ in range(5):
        assert preflight("/api/v1/players", PAGE).status_code == 200
    signed_up = Client().post(
        "/api/v1/players", {"name": "Ann"}, content_type="application/json", HTTP_ORIGIN=PAGE
    )
    assert signed_up.status_code == 201
    assert signed_up["Access-Control-Allow-Origin"] == PAGE


def test_a_page_of_an_origin_not_let_in_gets_no_cors_headers(host: Persona):
    answer = preflight("/api/v1/games", ELSEWHERE)
    assert "Access-Control-Allow-Origin" not in answer
    games = host.client.get("/api/v1/games", HTTP_ORIGIN=ELSEWHERE)
    assert games.status_code == 200
    assert "Access-Control-Allow-Origin" not in games
    assert "origin" in games["Vary"].lower()


def test_an_answer_to_a_page_let_in_exposes_the_headers_a_client_reads(host: Persona):
    def create() -> Any:
        return host.client.post(
            "/api/v1/games",
            {"target_score": 0},
            format="json",
            HTTP_ORIGIN=PAGE,
            HTTP_IDEMPOTENCY_KEY="create-1",
        )

    answer = create()
    assert answer.status_code == 201
    assert answer["Access-Control-Allow-Origin"] == PAGE
    assert "Access-Control-Allow-Credentials" not in answer
    exposed = set(answer["Access-Control-Expose-Headers"].split(", "))
    assert exposed == {"Retry-After", "X-Request-ID", "Idempotent-Replayed", "WWW-Authenticate"}
    assert "origin" in answer["Vary"].lower()
    replayed = create()
    assert replayed["Idempotent-Replayed"] == "true"
    assert replayed["Access-Control-Allow-Origin"] == PAGE


def test_errors_carry_the_origin_too_so_that_a_page_can_read_them():
    refused = Client().get("/api/v1/players/me", HTTP_ORIGIN=PAGE)
    assert refused.status_code == 401
    assert refused["Access-Control-Allow-Origin"] == PAGE
    assert "WWW-Authenticate" in refused["Access-Control-Expose-Headers"]
    unknown = Client().get("/api/v1/nonexistent", HTTP_ORIGIN=PAGE)
    assert unknown.status_code == 404
    assert unknown["Access-Control-Allow-Origin"] == PAGE


@pytest.mark.parametrize("path", ["/healthz", "/admin/login/"])
def test_nothing_outside_the_api_is_opened_to_other_origins(path):
    answer = Client().get(path, HTTP_ORIGIN=PAGE)
    assert "Access-Control-Allow-Origin" not in answer
    assert preflight(path, PAGE, method="GET").get("Access-Control-Allow-Origin") is None


def test_the_servers_early_answers_let_every_page_read_them_when_some_origin_is_let_in(
    settings: Any,
):
    answer = connections._answer(ServiceUnavailable("busy", retry_after=1))
    assert b"access-control-allow-origin: *\r\n" in answer
    assert b"access-control-expose-headers: Retry-After, X-Request-ID" in answer
    settings.CORS_ALLOWED_ORIGINS = []
    assert not cors.allows_any()
    assert b"access-control-" not in connections._answer(ServiceUnavailable("busy"))


def origin_settings(**env: str) -> dict[str, Any]:
    """The CORS settings a process started with `env` reads."""
    probe = (
        "import django, json; django.setup(); from django.conf import settings as s; "
        "print(json.dumps([s.CORS_ALLOWED_ORIGINS, s.CORS_ALLOWED_ORIGIN_REGEXES, "
        "s.CORS_ALLOW_ALL_ORIGINS]))"
    )
    names = ("DEBUG", "CORS_ALLOWED_ORIGINS", "SECRET_KEY")
    base = {key: value for key, value in os.environ.items() if key not in names}
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=Path(django_settings.BASE_DIR),
        env={**base, "DJANGO_SETTINGS_MODULE": "unoservice.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    origins, regexes, every = json.loads(done.stdout.strip().splitlines()[-1])
    return {
        "CORS_ALLOWED_ORIGINS": origins,
        "CORS_ALLOWED_ORIGIN_REGEXES": regexes,
        "CORS_ALLOW_ALL_ORIGINS": every,
    }


def allowed(origin: str) -> bool:
    answer = Client().get("/api/v1/nonexistent", HTTP_ORIGIN=origin)
    return "Access-Control-Allow-Origin" in answer


@pytest.mark.slow
def test_production_lets_no_origin_in_unless_told_and_development_lets_in_local_pages(
    settings: Any,
):
    production = {"DEBUG": "false", "SECRET_KEY": "p" * 50}
    for name, value in origin_settings(**production).items():
        setattr(settings, name, value)
    assert not cors.allows_any()
    assert not allowed("http://localhost:5173")

    told = origin_settings(
        **production, CORS_ALLOWED_ORIGINS="https://cards.example, https://uno.example:8443"
    )
    for name, value in told.items():
        setattr(settings, name, value)
    assert allowed("https://uno.example:8443")
    assert not allowed("https://uno.example")
    assert not allowed("http://localhost:5173")

    for name, value in origin_settings(**production, CORS_ALLOWED_ORIGINS="*").items():
        setattr(settings, name, value)
    assert (
        Client().get("/api/v1/nonexistent", HTTP_ORIGIN=ELSEWHERE)["Access-Control-Allow-Origin"]
        == "*"
    )

    for name, value in origin_settings(DEBUG="true").items():
        setattr(settings, name, value)
    for local in ("http://localhost:5173", "http://127.0.0.1:8080", "http://[::1]:3000"):
        assert allowed(local), local
    assert allowed("http://localhost")
    assert not allowed("http://localhost.evil.example")
    assert not allowed("https://cards.example")
