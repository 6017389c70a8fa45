"""Requests counted against their players' rates together (`throttling.refused_players`,
for streams that open together), in Redis as every server counts them, and in memory."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from tests.factories import Persona
from unoservice.throttling import PlayerRateThrottle, refused_player, refused_players

ADDRESS = {"REMOTE_ADDR": "198.18.9.1"}


@pytest.fixture(params=[pytest.param("redis", marks=pytest.mark.redis), "memory"])
def counted(
    request: pytest.FixtureRequest, settings, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Three requests a minute per player, counted in the tests' Redis or in memory."""
    monkeypatch.setattr(PlayerRateThrottle, "THROTTLE_RATES", {"player": "3/min"})
    if request.param == "memory":
        yield
        return
    from tests.served import shared_cache_url

    url = shared_cache_url()
    redis.Redis.from_url(url).flushdb()
    settings.CACHES = {"default": {"BACKEND": "unoservice.redis_cache.RedisCache", "LOCATION": url}}
    yield
    redis.Redis.from_url(url).flushdb()


def test_each_request_of_a_batch_counts_as_one_of_its_players_requests(
    counted: None, host: Persona, guest: Persona
) -> None:
    assert refused_player(host.player, ADDRESS) is None  # one counted alone first

    waits = refused_players([(host.player, ADDRESS)] * 3 + [(guest.player, ADDRESS)])

    assert waits[:2] == [None, None]
    assert waits[2] is not None  # the host's fourth
    assert 1 <= waits[2] <= 60
    assert waits[3] is None  # the guest's first
    assert refused_player(guest.player, ADDRESS) is None
    assert refused_player(host.player, ADDRESS) is not None


def test_a_batch_counts_nothing_when_players_have_no_rate(
    host: Persona, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(PlayerRateThrottle, "THROTTLE_RATES", {"player": None})
    assert refused_players([(host.player, ADDRESS)] * 5) == [None] * 5
