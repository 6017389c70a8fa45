"""Django's Redis cache, with one redis-py client per connection pool.

Django's client makes a new ``redis.Redis`` on every cache call, and making one (its
table of reply callbacks) costs more CPU than the round trip's own sending and
parsing. A redis-py client is safe to share between threads: the pool hands each
call a connection of its own.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends import redis as django_redis


class _ClientPerPool(django_redis.RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[Any, Any] = {}  # connection pool -> its client

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        django_client: Any = self  # (the type stubs leave its private parts out)
        pool = django_client._get_connection_pool(write)
        client = self._clients.get(pool)
        if client is None:
            client = self._clients[pool] = django_client._client(connection_pool=pool)
        return client


class RedisCache(django_redis.RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _ClientPerPool
