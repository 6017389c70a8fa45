"""The places of open streams (`unoservice.stream_caps`), in Redis as every server
process shares them and in the memory of one process: a cap is never overshot, a
released place is free at once, and the places of a process that stopped renewing
them (it died) lapse."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest
import redis

from unoservice import stream_caps
from unoservice.errors import TooManyStreams
from unoservice.redis_cache import RedisCache

ADDRESS = "203.0.113.9"


@pytest.fixture(params=[pytest.param("redis", marks=pytest.mark.redis), "memory"])
def store(
    request: pytest.FixtureRequest, settings, monkeypatch: pytest.MonkeyPatch
) -> Iterator[redis.Redis | None]:
    """The sets in Redis (a database of the tests' Redis of its own), or in memory."""
    settings.MAX_STREAMS_PER_PLAYER = 3
    settings.MAX_STREAMS_PER_ADDRESS = 5
    if request.param == "memory":
        monkeypatch.setattr(stream_caps, "_store", lambda: stream_caps._memory)
        yield None
        return
    from tests.served import shared_cache_url

    url = shared_cache_url()
    client = redis.Redis.from_url(url)
    backend = RedisCache(url, {})
    monkeypatch.setattr(stream_caps, "_store", lambda: stream_caps._Redis(backend))
    client.flushdb()
    yield client
    client.flushdb()


def take(player: str | None = "p1", address: str = ADDRESS) -> stream_caps.Place:
    return stream_caps.take(player_id=player, address=address)


def lapse(store: redis.Redis | None, place: stream_caps.Place) -> None:
    """Make a place look as its process left it when it died, 30 s ago: unrenewed."""
    for key in place.keys:
        if store is None:
            stream_caps._memory.sets[key][place.member] = time.monotonic() - 1
        else:
            store.zadd(f":1:{key}", {place.member: time.time() - 1})


def test_a_player_holds_their_cap_of_places_and_no_more(store) -> None:
    held = [take() for _ in range(3)]
    with pytest.raises(TooManyStreams) as refused:
        take()
    assert refused.value.status == 429
    assert refused.value.details == {"retry_after": 10, "limit": 3, "per": "player"}
    assert len({place.member for place in held}) == 3
    take(player="p2")  # another player's are their own


def test_an_address_holds_its_cap_whichever_players_take_them(store) -> None:
    for player in ("a", "b", "c", "d", None):  # None: a staff session's stream
        take(player=player)
    with pytest.raises(TooManyStreams) as refused:
        take(player="e")
    assert refused.value.details["per"] == "address"
    take(player="e", address="198.51.100.1")


def test_a_refused_opening_takes_no_place_in_the_other_set(store) -> None:
    for _ in range(3):
        take()
    for _ in range(4):
        with pytest.raises(TooManyStreams):
            take()
    take(player="p2")
    take(player="p3")  # the address's 5: the refusals took none of its places
    with pytest.raises(TooManyStreams):
        take(player="p4")


def test_a_released_place_is_free_at_once(store) -> None:
    held = [take() for _ in range(3)]
    stream_caps.release([held[0]])
    take()
    with pytest.raises(TooManyStreams):
        take()


def test_the_places_of_a_process_that_stopped_renewing_them_lapse(store) -> None:
    held = [take() for _ in range(3)]
    lapse(store, held[0])
    lapse(store, held[1])
    stream_caps.renew([held[1]])  # still open in a live process: renewed
    take()
    with pytest.raises(TooManyStreams):
        take()


def test_renewing_does_not_bring_back_a_released_place(store) -> None:
    held = [take() for _ in range(3)]
    stream_caps.release([held[0]])
    stream_caps.renew(held)
    take()
    with pytest.raises(TooManyStreams):
        take()


def test_places_taken_at_once_never_overshoot_the_cap(store, settings) -> None:
    settings.MAX_STREAMS_PER_PLAYER = 32
    settings.MAX_STREAMS_PER_ADDRESS = 256
    outcomes: list[str] = []
    start = threading.Barrier(64)

    def open_one() -> None:
        start.wait()
        try:
            take()
            outcomes.append("open")
        except TooManyStreams:
            outcomes.append("refused")

    threads = [threading.Thread(target=open_one) for _ in range(64)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("open") == 32
    assert outcomes.count("refused") == 32


def test_an_unreachable_cache_refuses_no_stream(settings, monkeypatch) -> None:
    class Broken:
        def take(self, *args: object) -> int:
            raise redis.ConnectionError("down")

    monkeypatch.setattr(stream_caps, "_store", lambda: Broken())
    take()


def test_streams_opening_together_take_their_places_in_order_in_one_go(store) -> None:
    taken = stream_caps.take_many([("p1", ADDRESS)] * 4 + [("p2", ADDRESS)])
    assert [isinstance(t, stream_caps.Place) for t in taken] == [True, True, True, False, True]
    refused = taken[3]
    assert isinstance(refused, TooManyStreams)
    assert refused.details == {"retry_after": 10, "limit": 3, "per": "player"}
    take(player="p3")  # the address's fifth: the refusal took none
    with pytest.raises(TooManyStreams):
        take(player="p4")
    assert stream_caps.take_many([]) == []


def test_places_freed_while_a_removal_waits_its_turn_go_with_it(store) -> None:
    turns: list[Callable[[], None]] = []
    freeing = stream_caps.Freeing(turns.append)
    held = [take() for _ in range(3)]
    for place in held:
        freeing.free(place)
    assert len(turns) == 1  # one turn of the writer for the three
    with pytest.raises(TooManyStreams):
        take()  # not removed before the writer's turn
    turns.pop()()
    for _ in range(3):
        take()
    freeing.free(held[0])
    assert len(turns) == 1  # a place freed after the turn asks for another


@pytest.mark.parametrize("store", [pytest.param("redis", marks=pytest.mark.redis)], indirect=True)
def test_places_are_taken_after_redis_forgot_the_script(store: redis.Redis) -> None:
    take()
    store.script_flush()  # as a restarted Redis: the next take sends its script again

    place = take()

    assert store.zscore(f":1:{stream_caps.player_key('p1')}", place.member) is not None
