"""The Redis cache keeps one redis-py client per connection pool
(`unoservice.redis_cache`), shared by every thread."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
import redis

from unoservice.redis_cache import RedisCache

pytestmark = pytest.mark.redis


@pytest.fixture
def cache() -> Iterator[RedisCache]:
    from tests.served import shared_cache_url

    url = shared_cache_url()
    redis.Redis.from_url(url).flushdb()
    yield RedisCache(url, {})
    redis.Redis.from_url(url).flushdb()


def test_every_call_of_a_cache_uses_the_same_client(cache: RedisCache) -> None:
    first = cache._cache.get_client(write=True)

    cache.set("a", 1)

    assert cache._cache.get_client(write=True) is first
    assert cache._cache.get_client() is first  # one server: reads go to it too
    assert cache.get("a") == 1


def test_threads_sharing_the_client_each_get_their_own_answers(cache: RedisCache) -> None:
    wrong: list[tuple[int, object]] = []

    def work(n: int) -> None:
        for round_ in range(50):
            cache.set(f"key-{n}", f"{n}-{round_}")
            found = cache.get(f"key-{n}")
            if found != f"{n}-{round_}":
                wrong.append((n, found))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert wrong == []
