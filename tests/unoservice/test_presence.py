"""Presence kept in the cache (unoservice/presence.py): players seen lately, with at
most one cache write per player every few seconds, and spectator counts that every
process publishes under a slot of its own and that expire with the process."""

from __future__ import annotations

import datetime as dt
import uuid
from collections import Counter
from typing import Any

import pytest
import time_machine
from django.core.cache import cache
from django.utils import timezone

from unoservice import presence
from unoservice.presence import Presence, Publisher

GAME = uuid.uuid4()


class CountingCache:
    """The cache, with every call counted by method name."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.wrapped, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            return method(*args, **kwargs)

        return counted

    @property
    def writes(self) -> int:
        return sum(n for name, n in self.calls.items() if name not in ("get", "get_many"))


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> CountingCache:
    wrapper = CountingCache(cache)
    monkeypatch.setattr(presence, "cache", wrapper)
    return wrapper


def test_a_player_seen_is_online_and_offline_thirty_seconds_later() -> None:
    now = timezone.now()
    with time_machine.travel(now, tick=False):
        presence.seen("ann")
        assert presence.read(["ann", "bob"], GAME) == Presence(frozenset({"ann"}), 0)
    with time_machine.travel(now + dt.timedelta(seconds=29), tick=False):
        assert presence.read(["ann"], GAME).online == {"ann"}
    with time_machine.travel(now + dt.timedelta(seconds=31), tick=False):
        assert presence.read(["ann"], GAME).online == frozenset()


def test_a_player_seen_again_and_again_costs_one_cache_write_per_few_seconds(
    counting: CountingCache,
) -> None:
    now = timezone.now()
    with time_machine.travel(now, tick=False):
        for _ in range(50):
            presence.seen("ann")
    assert counting.writes == 1
    with time_machine.travel(now + dt.timedelta(seconds=presence.REFRESH_SECONDS - 0.5)):
        presence.seen("ann")
    assert counting.writes == 1
    with time_machine.travel(now + dt.timedelta(seconds=presence.REFRESH_SECONDS + 0.5)):
        presence.seen("ann")
        presence.seen("ann")
    assert counting.writes == 2


def test_reading_a_games_presence_is_one_cache_call(counting: CountingCache) -> None:
    presence.read(["ann", "bob", "cid"], GAME)
    assert counting.calls == {"get_many": 1}


def test_spectator_counts_of_two_processes_add_up() -> None:
    first, second = Publisher(), Publisher()
    first.count(str(GAME), 2)
    second.count(str(GAME), 3)
    assert first.slot != second.slot
    assert presence.read([], GAME).spectators == 5
    second.count(str(GAME), 0)
    assert presence.read([], GAME).spectators == 2
    assert presence.read([], uuid.uuid4()).spectators == 0


def test_the_spectators_of_a_process_that_died_expire_while_the_others_stay() -> None:
    now = timezone.now()
    with time_machine.travel(now, tick=False):
        dead, alive = Publisher(), Publisher()
        dead.count(str(GAME), 4)
        alive.count(str(GAME), 1)
        assert presence.read([], GAME).spectators == 5
    for seconds in (10, 20, 31):  # only the living process keeps its heartbeat
        with time_machine.travel(now + dt.timedelta(seconds=seconds), tick=False):
            alive.heartbeat([], {str(GAME): 1})
    with time_machine.travel(now + dt.timedelta(seconds=31), tick=False):
        assert presence.read([], GAME).spectators == 1
        newcomer = Publisher()
        newcomer.count(str(GAME), 2)
        assert newcomer.slot == dead.slot  # the dead process's slot is free again
        assert presence.read([], GAME).spectators == 3


def test_a_heartbeat_keeps_stream_players_online_and_drops_counts_that_fell_to_zero() -> None:
    other = uuid.uuid4()
    publisher = Publisher()
    publisher.count(str(GAME), 1)
    publisher.count(str(other), 2)
    publisher.heartbeat(["ann"], {str(GAME): 1})
    assert presence.read(["ann"], GAME) == Presence(frozenset({"ann"}), 1)
    assert presence.read([], other).spectators == 0


def test_a_process_that_stops_withdraws_its_counts_and_frees_its_slot() -> None:
    publisher = Publisher()
    publisher.count(str(GAME), 3)
    slot = publisher.slot
    publisher.withdraw()
    assert presence.read([], GAME).spectators == 0
    assert cache.get(presence.slot_key(slot)) is None


def test_a_cache_that_cannot_be_reached_reads_as_nobody_and_fails_no_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Down:
        def __getattr__(self, name: str) -> Any:
            raise ConnectionError("the cache is down")

    monkeypatch.setattr(presence, "cache", Down())
    presence.seen("ann")
    Publisher().count(str(GAME), 1)
    assert presence.read(["ann"], GAME) == presence.NOBODY


def test_a_process_sums_the_slots_of_other_processes_from_its_next_heartbeat_on() -> None:
    elsewhere, here = Publisher(), Publisher()
    elsewhere.count(str(GAME), 2)
    presence._slots_in_use.discard(elsewhere.slot)  # as another process's slot is: unknown
    here.count(str(GAME), 1)
    assert presence.read([], GAME).spectators == 1
    here.heartbeat([], {str(GAME): 1})
    assert presence.read([], GAME).spectators == 3
