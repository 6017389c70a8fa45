"""A game's view read with a bearer token is answered beside Django (games.live.reads)
with exactly what Django answers: status, body and headers, for every reader, every
refusal and every origin. Django's own answer to the same request is had from the
same server by sending it with an (empty) chunked body, which the view read leaves
to Django."""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from unittest import mock

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.utils import timezone

from games.live import reads
from tests.factories import Persona, seat_table, start_game
from tests.games.live.conftest import LiveServer, auth
from unoservice.throttling import PlayerRateThrottle

pytestmark = pytest.mark.django_db(transaction=True)

PAGE = "https://cards.example"
# Headers that differ between any two answers, whoever gives them.
PER_ANSWER = {"date", "x-request-id"}


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def ask(live: LiveServer, path: str, headers: dict[str, str], *, by_django: bool) -> Answer:
    connection_ = http.client.HTTPConnection("127.0.0.1", live.port, timeout=30)
    try:
        sent = dict(headers)
        body = None
        if by_django:
            sent["Transfer-Encoding"] = "chunked"
            body = b"0\r\n\r\n"
        connection_.request("GET", path, body=body, headers=sent)
        response = connection_.getresponse()
        found = {name.lower(): value for name, value in response.getheaders()}
        return Answer(response.status, found, response.read())
    finally:
        connection_.close()


@pytest.fixture
def served_beside_django() -> Iterator[list[Any]]:
    """What each view read looked at beside Django was answered with there (None:
    left to Django)."""
    answered: list[Any] = []
    original = reads.read

    def recording(*args: Any) -> Any:
        answered.append(original(*args))
        return answered[-1]

    with mock.patch.object(reads, "read", recording):
        yield answered


def same_answer(live: LiveServer, path: str, headers: dict[str, str]) -> Answer:
    """Ask beside Django, then Django; assert both answers are the same."""
    fast = ask(live, "/api/v1" + path, headers, by_django=False)
    django = ask(live, "/api/v1" + path, headers, by_django=True)
    assert fast.status == django.status, (fast.body, django.body)
    assert fast.body == django.body
    kept = {name: value for name, value in fast.headers.items() if name not in PER_ANSWER}
    assert kept == {k: v for k, v in django.headers.items() if k not in PER_ANSWER}
    return fast


def test_players_and_spectators_get_djangos_view_beside_django(
    live: LiveServer, host: Persona, guest: Persona, outsider: Persona, served_beside_django: Any
) -> None:
    game = start_game(host, guest, seed=21)
    for reader in (host, guest, outsider):
        answer = same_answer(live, f"/games/{game.pk}", auth(reader))
        assert answer.status == 200
    assert len(served_beside_django) == 3
    assert None not in served_beside_django


def test_staff_read_a_private_game_they_do_not_sit_at_as_django_lets_them(
    live: LiveServer, host: Persona, guest: Persona, staff: Persona, served_beside_django: Any
) -> None:
    private = start_game(host, guest, seed=21, visibility="private")
    assert same_answer(live, f"/games/{private.pk}", auth(staff)).status == 200
    assert len(served_beside_django) == 1
    assert None not in served_beside_django


def test_the_views_refusals_are_djangos_own(
    live: LiveServer, host: Persona, guest: Persona, outsider: Persona, served_beside_django: Any
) -> None:
    private = seat_table(host, guest, max_players=3, visibility="private")
    code = private.invite_code
    cases = [
        ("/games/00000000-0000-0000-0000-000000000000", outsider, 404),
        ("/games/not-a-game", outsider, 404),
        (f"/games/{private.pk}", outsider, 404),
        (f"/games/{private.pk}?code=WRONG123", outsider, 404),
        (f"/games/{private.pk}?code={code}", outsider, 200),
        (f"/games/{private.pk}", guest, 200),
    ]
    for path, reader, status in cases:
        assert same_answer(live, path, auth(reader)).status == status, path
    assert len(served_beside_django) == len(cases)
    assert None not in served_beside_django


def test_a_refused_token_and_no_token_are_left_to_django(
    live: LiveServer, host: Persona, guest: Persona, served_beside_django: Any
) -> None:
    game = start_game(host, guest, seed=21)
    for headers in ({"Authorization": "Bearer unknown"}, {"Authorization": "Basic x"}, {}):
        answer = ask(live, f"/api/v1/games/{game.pk}", headers, by_django=False)
        assert answer.status == 401
    # The two with a token were looked at and left to Django; the third not even that.
    assert served_beside_django == [None, None]


def test_the_players_rate_counts_view_reads_beside_django_as_it_counts_djangos(
    live: LiveServer,
    host: Persona,
    guest: Persona,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = start_game(host, guest, seed=21)
    monkeypatch.setattr(PlayerRateThrottle, "THROTTLE_RATES", {"player": "4/min"})
    path = f"/api/v1/games/{game.pk}"
    with time_machine.travel(timezone.now(), tick=False):
        statuses = [
            ask(live, path, auth(guest), by_django=by_django).status
            for by_django in (False, True, False, True, False)
        ]
        assert statuses == [200, 200, 200, 200, 429]
        refused = same_answer(live, path.removeprefix("/api/v1"), auth(guest))
    assert refused.status == 429
    assert int(refused.headers["retry-after"]) >= 1
    # Another player's reads are theirs alone.
    assert ask(live, path, auth(host), by_django=False).status == 200


def test_a_page_of_a_let_in_origin_gets_the_same_cors_headers(
    live: LiveServer, host: Persona, guest: Persona, settings: Any
) -> None:
    settings.CORS_ALLOWED_ORIGINS = [PAGE]
    settings.CORS_ALLOWED_ORIGIN_REGEXES = []
    game = start_game(host, guest, seed=21)
    answer = same_answer(live, f"/games/{game.pk}", {**auth(host), "Origin": PAGE})
    assert answer.headers["access-control-allow-origin"] == PAGE


SECURITY = (
    "strict-transport-security",
    "x-frame-options",
    "referrer-policy",
    "cross-origin-opener-policy",
    "x-content-type-options",
)


def test_over_https_the_answer_carries_the_security_headers_django_gives(
    live: LiveServer, host: Persona, guest: Persona, settings: Any
) -> None:
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_HSTS_SECONDS = 3600
    game = start_game(host, guest, seed=21)
    # Django's middleware reads these settings when it is built: a new client's.
    django = Client(HTTP_AUTHORIZATION=f"Bearer {host.token}")
    for proto in ("https", "http"):
        fast = ask(
            live,
            f"/api/v1/games/{game.pk}",
            {**auth(host), "X-Forwarded-Proto": proto},
            by_django=False,
        )
        expected = django.get(f"/api/v1/games/{game.pk}", HTTP_X_FORWARDED_PROTO=proto)
        assert fast.status == expected.status_code == 200
        for name in SECURITY:
            assert fast.headers.get(name) == expected.headers.get(name), (proto, name)
    assert fast.headers.get("strict-transport-security") is None


@pytest.mark.postgres
def test_a_connection_found_broken_is_reopened_for_the_read(host: Persona, guest: Persona) -> None:
    game = start_game(host, guest, seed=21)
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    from django.db import connections

    other = connections.create_connection("default")
    with other.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    other.close()
    answered = reads.read(str(game.pk), f"Bearer {host.token}", None, {"REMOTE_ADDR": "127.0.0.1"})
    assert answered is not None
    assert answered[1] == 200


def scope_of_a_read(path: str) -> dict[str, Any]:
    return {"method": "GET", "path": path, "headers": [(b"authorization", b"Bearer t")]}


def test_games_join_is_no_game_and_is_left_to_django() -> None:
    game_id = "c4e2a9d1-7b35-4f08-a6c3-91d0e5b27f44"
    assert reads.game_id_read(scope_of_a_read(f"/api/v1/games/{game_id}")) == game_id
    assert reads.game_id_read(scope_of_a_read("/api/v1/games/join")) is None
    assert reads.game_id_read(scope_of_a_read("/api/v1/games/joiner")) == "joiner"
