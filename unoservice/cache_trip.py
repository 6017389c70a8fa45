"""A request's one round trip to the shared cache (Redis): every counter it adds to,
the presence keys due to be written, and the keys it will read, in one Lua script.

Each call to Redis blocks the request's thread for a network round trip; a move
used to make three or four of them (two per rate-limit scope, a presence write, a
presence read). The script runs them all at once, and atomically: a counter is
incremented and given its lifetime in one step, so that counts racing in several
processes are exact, as the cache's ``add`` then ``incr`` were.

Only for the Redis cache: with the memory cache of development every call is a
call in the process, and the callers use the cache as before (`shared` is None).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import NoScriptError

# KEYS: the counters, then the keys to mark present, then the keys to read.
# ARGV: how many counters, how many marks, the marks' lifetime, then each counter's.
# A counter without a lifetime gets its own (a new one, or one a late decrement
# made again after it lapsed), so that none outlives its window.
SCRIPT = """
local counters = tonumber(ARGV[1])
local marks = tonumber(ARGV[2])
local counts = {}
for i = 1, counters do
  counts[i] = redis.call('INCR', KEYS[i])
  if redis.call('TTL', KEYS[i]) == -1 then
    redis.call('EXPIRE', KEYS[i], ARGV[3 + i])
  end
end
for i = counters + 1, counters + marks do
  redis.call('SET', KEYS[i], 1, 'EX', ARGV[3])
end
local found = {}
if #KEYS > counters + marks then
  found = redis.call('MGET', unpack(KEYS, counters + marks + 1))
end
return {counts, found}
"""
SCRIPT_SHA = hashlib.sha1(SCRIPT.encode()).hexdigest()


@dataclass
class Trip:
    """What one round trip does: `counters` (key, lifetime in seconds) each counted
    up by one, `marks` set to 1 for `mark_seconds`, `reads` read."""

    counters: list[tuple[str, int]] = field(default_factory=list)
    marks: list[str] = field(default_factory=list)
    mark_seconds: int = 0
    reads: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.counters or self.marks or self.reads)


@dataclass(frozen=True)
class Answer:
    """Each counter's count after the trip, in order, and the keys read that exist
    (an integer value as an int, others as Redis returned them)."""

    counts: list[int]
    found: dict[str, Any]


def shared() -> RedisCache | None:
    """The default cache when it is Redis (shared by every process), else None."""
    backend = caches["default"]
    return backend if isinstance(backend, RedisCache) else None


def run(backend: RedisCache, trip: Trip) -> Answer:
    """Do `trip` in one round trip (a second only the first time a Redis server sees
    the script). Raises what the Redis client raises when it cannot be reached."""
    keys = [backend.make_key(key) for key, _ in trip.counters]
    keys += [backend.make_key(key) for key in trip.marks]
    keys += [backend.make_key(key) for key in trip.reads]
    args = [len(trip.counters), len(trip.marks), trip.mark_seconds]
    args += [lifetime for _, lifetime in trip.counters]
    client = _client(backend)
    try:
        counts, values = client.evalsha(SCRIPT_SHA, len(keys), *keys, *args)
    except NoScriptError:
        counts, values = client.eval(SCRIPT, len(keys), *keys, *args)
    return Answer([int(n) for n in counts], _found(trip.reads, values))


def _client(backend: RedisCache) -> Any:
    # One per connection pool (`unoservice.redis_cache`); made per call otherwise.
    return backend._cache.get_client(write=True)


def _found(keys: Sequence[str], values: Sequence[Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in zip(keys, values, strict=True):
        if value is None:
            continue
        try:
            found[key] = int(value)
        except ValueError:  # not a number the cache stored as one
            found[key] = value
    return found
