"""Caps on what one player, and one client address, hold open: game streams, lobby
streams and long polls that wait, together (`MAX_STREAMS_PER_PLAYER`,
`MAX_STREAMS_PER_ADDRESS`).

Each open stream holds a *place*: a member of a sorted set per player and per
address, ``streams:player:<id>`` and ``streams:address:<group>``, scored by the
time it lapses. Taking a place is one Lua script on Redis (the shared cache), so
that streams opening at once in several processes cannot overshoot a cap: it drops
the lapsed members of both sets, refuses when either is full, else adds the place
to both; the places of streams opening together are taken in turn in one call. A
stream that closes removes its place at once. The process that holds a
place renews it on the live hub's presence heartbeat (`unoservice.presence` keeps
the players of open streams the same way), every `PRESENCE_HEARTBEAT_SECONDS`, for
`TTL_SECONDS`: a process that dies stops renewing, and its places lapse.

With the per-process memory cache of development, the sets are kept in this
process's memory instead, with the same rules: each process counts its own.
"""

from __future__ import annotations

import collections
import functools
import hashlib
import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import NoScriptError

from unoservice.errors import TooManyStreams

log = logging.getLogger(__name__)

# A place lapses this long after it was taken or last renewed (as presence's keys).
TTL_SECONDS = 30
# What a refused client is told to wait: a place frees the moment a stream closes,
# but nothing says when that will be.
RETRY_AFTER_SECONDS = 10

# Every place of a batch (the streams admitted together) in one call, in order.
# KEYS: each place's sets, place after place; ARGV: the lifetime, then for each place
# its member, its number of sets and each set's cap. Answers, for each place, 0 when
# it was taken, else the (1-based) number of its set that was full.
TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local ttl = tonumber(ARGV[1])
local answers = {}
local k, a = 1, 2
while a <= #ARGV do
  local member, sets = ARGV[a], tonumber(ARGV[a + 1])
  local full = 0
  for i = 0, sets - 1 do
    redis.call('ZREMRANGEBYSCORE', KEYS[k + i], '-inf', now)
    if redis.call('ZCARD', KEYS[k + i]) >= tonumber(ARGV[a + 2 + i]) then
      full = i + 1
      break
    end
  end
  if full == 0 then
    for i = 0, sets - 1 do
      redis.call('ZADD', KEYS[k + i], now + ttl, member)
      redis.call('EXPIRE', KEYS[k + i], ttl)
    end
  end
  answers[#answers + 1] = full
  k, a = k + sets, a + 2 + sets
end
return answers
"""

# KEYS: sets; ARGV: the place to remove from each.
RELEASE = """
for i, key in ipairs(KEYS) do
  redis.call('ZREM', key, ARGV[i])
end
return 0
"""

# KEYS: sets; ARGV: the lifetime, then one place per key. Renews only what is there:
# a place released meanwhile stays released.
RENEW = """
local t = redis.call('TIME')
local expires = tonumber(t[1]) + tonumber(t[2]) / 1000000 + tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'XX', expires, ARGV[1 + i])
  redis.call('EXPIRE', key, tonumber(ARGV[1]))
end
return 0
"""


@dataclass(frozen=True)
class Place:
    """One open stream's place in its player's and its address's sets."""

    member: str
    keys: tuple[str, ...]


def player_key(player_id: object) -> str:
    return f"streams:player:{player_id}"


def address_key(address: str) -> str:
    return f"streams:address:{address}"


def _caps(player_id: object | None, address: str) -> list[tuple[str, int, str]]:
    """(set, cap, what is capped) for the player, if any, and the address."""
    caps = [(address_key(address), int(settings.MAX_STREAMS_PER_ADDRESS), "address")]
    if player_id is not None:
        caps.insert(0, (player_key(player_id), int(settings.MAX_STREAMS_PER_PLAYER), "player"))
    return caps


def take(*, player_id: object | None, address: str) -> Place:
    """A place for one more stream of `player_id` (None: a staff session's, counted
    by address only) from `address`, the group its client address counts in
    (`unoservice.client_address.group_in`: an IPv6 address's /64); raises
    `TooManyStreams` when either is full. A cache that cannot be reached refuses
    nothing (the cap is a guard, not a rule of play). Blocking: call it off the event loop."""
    taken = take_many([(player_id, address)])[0]
    if isinstance(taken, TooManyStreams):
        raise taken
    return taken


def take_many(wanted: Sequence[tuple[object | None, str]]) -> list[Place | TooManyStreams]:
    """`take` for each (player id, address) of streams opening together, in order,
    in one round trip to the cache: a place, or the refusal."""
    caps = [_caps(player_id, address) for player_id, address in wanted]
    places = [Place(secrets.token_hex(8), tuple(key for key, _, _ in capped)) for capped in caps]
    if not places:
        return []
    try:
        found = _store().take(places, [[cap for _, cap, _ in capped] for capped in caps])
    except Exception:
        log.warning("stream caps: the cache cannot be written", exc_info=True)
        return list(places)
    taken: list[Place | TooManyStreams] = []
    for place, capped, full in zip(places, caps, found, strict=True):
        if not full:
            taken.append(place)
            continue
        _, cap, what = capped[full - 1]
        taken.append(
            TooManyStreams(
                f"too many open streams and waiting long polls for this {what} (at most {cap});"
                " close one first",
                details={"retry_after": RETRY_AFTER_SECONDS, "limit": cap, "per": what},
            )
        )
    return taken


def release(places: Iterable[Place]) -> None:
    """These streams closed: their places are free now."""
    try:
        _store().release(list(places))
    except Exception:
        log.warning("stream caps: the cache cannot be written", exc_info=True)


def renew(places: Iterable[Place]) -> None:
    """These streams are still open: their places live `TTL_SECONDS` more."""
    held = list(places)
    if not held:
        return
    try:
        _store().renew(held)
    except Exception:
        log.warning("stream caps: the cache cannot be written", exc_info=True)


class Freeing:
    """Places freed on the event loop and removed from the cache by one writer
    thread (`submit` runs a call there): those freed while a removal waits its turn
    go with it, so that a crowd of streams closing together costs one round trip."""

    def __init__(self, submit: Callable[[Callable[[], None]], object]) -> None:
        self.submit = submit
        self.freed: collections.deque[Place] = collections.deque()
        self.scheduled = False

    def free(self, place: Place) -> None:
        self.freed.append(place)
        if not self.scheduled:
            self.scheduled = True
            self.submit(self._release)

    def _release(self) -> None:
        # On the writer thread: a place freed from here on schedules another turn.
        self.scheduled = False
        freed = []
        while self.freed:
            freed.append(self.freed.popleft())
        if freed:
            release(freed)


# -- where the sets are kept ---------------------------------------------------------------


class _Redis:
    def __init__(self, backend: RedisCache) -> None:
        self.backend = backend

    def _client(self) -> Any:
        return self.backend._cache.get_client(None, write=True)

    def _keys(self, keys: Iterable[str]) -> list[str]:
        return [self.backend.make_key(key) for key in keys]

    def _run(self, script: str, keys: list[str], args: list[Any]) -> Any:
        """`script` by its digest (a crowd's batch would send and hash its text on
        every call), sent whole when Redis does not know it (it restarted)."""
        client = self._client()
        try:
            return client.evalsha(_digest(script), len(keys), *keys, *args)
        except NoScriptError:
            return client.eval(script, len(keys), *keys, *args)

    def take(self, places: list[Place], caps: list[list[int]]) -> list[int]:
        keys: list[str] = []
        args: list[Any] = [TTL_SECONDS]
        for place, capped in zip(places, caps, strict=True):
            keys += self._keys(place.keys)
            args += [place.member, len(place.keys), *capped]
        return [int(found) for found in self._run(TAKE, keys, args)]

    def release(self, places: list[Place]) -> None:
        keys: list[str] = []
        members: list[str] = []
        for place in places:
            for key in self._keys(place.keys):
                keys.append(key)
                members.append(place.member)
        if keys:
            self._run(RELEASE, keys, members)

    def renew(self, places: list[Place]) -> None:
        keys: list[str] = []
        members: list[str] = []
        for place in places:
            for key in self._keys(place.keys):
                keys.append(key)
                members.append(place.member)
        self._run(RENEW, keys, [TTL_SECONDS, *members])


@functools.cache
def _digest(script: str) -> str:
    return hashlib.sha1(script.encode()).hexdigest()


class _Memory:
    """The same sets in this process's memory (the memory cache of development)."""

    def __init__(self) -> None:
        self.sets: dict[str, dict[str, float]] = {}
        self.lock = threading.Lock()

    def take(self, places: list[Place], caps: list[list[int]]) -> list[int]:
        return [self._take(place, capped) for place, capped in zip(places, caps, strict=True)]

    def _take(self, place: Place, caps: list[int]) -> int:
        now = time.monotonic()
        with self.lock:
            for number, (key, cap) in enumerate(zip(place.keys, caps, strict=True), 1):
                members = self.sets.setdefault(key, {})
                for member, lapses in list(members.items()):
                    if lapses <= now:
                        del members[member]
                if len(members) >= cap:
                    return number
            for key in place.keys:
                self.sets[key][place.member] = now + TTL_SECONDS
        return 0

    def release(self, places: list[Place]) -> None:
        with self.lock:
            for place in places:
                for key in place.keys:
                    members = self.sets.get(key, {})
                    members.pop(place.member, None)
                    if not members:
                        self.sets.pop(key, None)

    def renew(self, places: list[Place]) -> None:
        lapses = time.monotonic() + TTL_SECONDS
        with self.lock:
            for place in places:
                for key in place.keys:
                    members = self.sets.get(key)
                    if members is not None and place.member in members:
                        members[place.member] = lapses

    def clear(self) -> None:
        with self.lock:
            self.sets.clear()


_memory = _Memory()


def _store() -> _Redis | _Memory:
    backend = caches["default"]
    return _Redis(backend) if isinstance(backend, RedisCache) else _memory


def forget() -> None:
    """Forget the places kept in this process's memory (tests empty the cache)."""
    _memory.clear()
