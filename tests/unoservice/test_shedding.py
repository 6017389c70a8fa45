"""Floods from clients without a valid token, against the server command: past its
limit an address is refused 429 by the ASGI layer itself, before a thread or Django
is involved, while a player at the same address keeps playing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.served import Client, Served, serving

# The server works on the test database: the tests ask for it, and commit.
pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

LIMIT = 5
# On every answer of Django's (its clickjacking middleware), on none of the ASGI layer's.
DJANGO_MARK = "x-frame-options"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, django_db_setup: None) -> Iterator[Served]:
    env = {"THROTTLE_RATE_ANONYMOUS": f"{LIMIT}/day", "THROTTLE_RATE_HEALTH": f"{LIMIT}/day"}
    with serving(tmp_path_factory.mktemp("shedding"), env) as api:
        yield api


def test_a_flood_of_health_checks_is_refused_before_django_past_its_limit(server):
    flooder, other = server.client(), server.client()
    answers = [flooder.get("/healthz") for _ in range(LIMIT + 3)]
    assert [answer.status for answer in answers] == [200] * LIMIT + [429] * 3
    first_refusal, *again = answers[LIMIT:]
    assert DJANGO_MARK in first_refusal.headers  # refused by the API, which tells the process
    for answer in again:
        assert DJANGO_MARK not in answer.headers  # ... which refuses the next ones itself
        assert answer.body["error"]["code"] == "rate_limited"
        assert int(answer.headers["retry-after"]) >= 1
    assert other.get("/healthz").status == 200


def test_a_flood_of_a_bad_token_is_refused_before_django_and_a_player_there_plays_on(server):
    address = server.client()
    player = address.sign_up("Ann")  # the address's first request without a token
    flooder = Client(server.port, address.address, "not-a-token")
    answers = [flooder.get("/games") for _ in range(LIMIT + 2)]
    assert [answer.status for answer in answers] == [401] * (LIMIT - 1) + [429] * 3
    assert DJANGO_MARK not in answers[-1].headers
    # Requests with no token at all from that address are refused early too.
    bare = Client(server.port, address.address).get("/games")
    assert bare.status == 429
    assert DJANGO_MARK not in bare.headers
    # A valid token from the same address is the API's to check: it plays on.
    assert player.get("/players/me").status == 200
    # Another bad token is looked up (and refused 429 by the API, not early).
    other = Client(server.port, address.address, "another-bad-token").get("/games")
    assert other.status == 429
    assert DJANGO_MARK in other.headers


def test_a_flood_of_bad_tokens_on_the_lobby_stream_is_limited_like_the_api(server):
    flooder = Client(server.port, server.client().address, "not-a-token")
    answers = [flooder.get("/api/v1/players/me/stream") for _ in range(LIMIT + 2)]
    assert [answer.status for answer in answers] == [401] * LIMIT + [429] * 2
    assert answers[-1].body["error"]["code"] == "rate_limited"
