"""Who is here: players seen lately, and how many spectators watch each game.

Kept in the cache (``CACHES``: one Redis shared by every process in production,
memory local to the process in development), never in the database, so that no
request pays a write for it.

- **A player is online** while their key ``presence:player:<id>`` exists. It is set
  for `TTL_SECONDS` (30 s) when they make an authenticated request (`seen`) and,
  while they keep a stream open, on every heartbeat of their process's hub. Each
  process remembers when it last wrote a player's key and writes it again only
  after `REFRESH_SECONDS`: most requests cost no cache call at all, and a player is
  shown online for between 25 and 30 s after their last request.
- **Spectator counts** are published per process. A process holds one of `SLOTS`
  slots (``presence:slot:<k>``, claimed with the cache's atomic ``add``) and writes
  each game's count of its spectators' streams under ``presence:watch:<game>:<k>``,
  at once when a stream opens or closes and again on every heartbeat, each key
  for `TTL_SECONDS`. A reader sums the count keys of the slots in use. A process
  that dies stops refreshing: its slot and its counts expire within `TTL_SECONDS`,
  and the sum is right again, where a shared counter would keep the dead process's
  spectators for good.
- **The slots in use** are known to each process without asking on every read:
  its own, and those its heartbeat found (one ``get_many`` of the `SLOTS` slot
  keys per heartbeat). A new server's spectators show in the others' views from
  their next heartbeat on.

Reading the presence of a game (`read`) is one ``get_many``: its seated players'
keys and the game's count key for each slot in use (one per server process).

- **Who follows a game from a stream** (for notifications: a player watching the
  table needs no push): ``presence:follow:<game>:<player>`` exists while one of the
  player's streams of that game is open, ``presence:follow:lobby:<player>`` while a
  lobby stream is. Written when the first such stream of a process opens, deleted
  when its last one closes, refreshed by the heartbeat for `TTL_SECONDS`; a process
  that dies stops refreshing and its keys expire. Read by the worker (`follows`),
  which sees them only when the cache is shared (``CACHE_URL``).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from django.core.cache import cache

from unoservice import cache_trip

log = logging.getLogger(__name__)

TTL_SECONDS = 30
# A process writes a player's key again after this long, at the earliest.
REFRESH_SECONDS = 5.0
# Server processes whose spectators are counted: more processes than slots, and the
# spectators of those without a slot are not counted (a warning says so).
SLOTS = 32
# The process-local memory of writes is pruned beyond this many players.
MAX_REMEMBERED = 50_000


@dataclass(frozen=True)
class Presence:
    """Which of a game's players are online (their ids), and how many spectators'
    streams are open on it."""

    online: frozenset[str] = field(default_factory=frozenset)
    spectators: int = 0


NOBODY = Presence()


def player_key(player_id: object) -> str:
    return f"presence:player:{player_id}"


# The group of a player's lobby stream, beside games' ids.
LOBBY = "lobby"


def follow_key(group: object, player_id: object) -> str:
    return f"presence:follow:{group}:{player_id}"


def slot_key(slot: int) -> str:
    return f"presence:slot:{slot}"


def count_key(group: object, slot: int) -> str:
    return f"presence:watch:{group}:{slot}"


_slots_in_use: set[int] = set()  # whose counts a reader sums

# -- players ------------------------------------------------------------------------------

_written: dict[str, float] = {}  # player id -> time.time() of this process's last write
_pending: set[str] = set()  # player ids whose due write waits for a round trip
_written_lock = threading.Lock()


def _due(player_id: str, now: float) -> bool:
    """Whether this process should write the player's key now (and note that it
    does): not when it did in the last `REFRESH_SECONDS`."""
    with _written_lock:
        last = _written.get(player_id)
        if last is not None and 0 <= now - last < REFRESH_SECONDS:
            return False
        if len(_written) >= MAX_REMEMBERED:
            for known, at in list(_written.items()):
                if not 0 <= now - at < REFRESH_SECONDS:
                    del _written[known]
        _written[player_id] = now
        return True


def seen(player_id: object) -> None:
    """The player made an authenticated request (or opened a stream): online for the
    next `TTL_SECONDS`. At most one cache write per player and process every
    `REFRESH_SECONDS`; a cache that cannot be reached costs the request nothing."""
    key = str(player_id)
    if not _due(key, time.time()):
        return
    try:
        cache.set(player_key(key), 1, TTL_SECONDS)
    except Exception:
        with _written_lock:
            _written.pop(key, None)
        log.warning("presence: the cache cannot be written", exc_info=True)


def seen_soon(player_id: object) -> None:
    """`seen` for an API request: with the shared cache, the write, when due, waits
    for the next of this process's round trips (`unoservice.cache_trip`: the request's
    own rate-limit count, else the hub's heartbeat) instead of taking one of its own.
    With the memory cache it is `seen`."""
    if cache_trip.shared() is None:
        seen(player_id)
        return
    key = str(player_id)
    if _due(key, time.time()):
        with _written_lock:
            _pending.add(key)


def take_pending() -> list[str]:
    """The keys of the players seen whose write waits (`seen_soon`), now taken by the
    caller, who writes them (or gives them back with `written_failed`)."""
    with _written_lock:
        taken = [player_key(p) for p in _pending]
        _pending.clear()
    return taken


def written_failed(keys: Iterable[str]) -> None:
    """These players' keys could not be written: the next request writes them."""
    with _written_lock:
        for key in keys:
            _written.pop(key.removeprefix(player_key("")), None)


def forget() -> None:
    """Forget this process's writes and the slots it knows (the cache was emptied:
    tests)."""
    with _written_lock:
        _written.clear()
        _pending.clear()
    _slots_in_use.clear()
    _seated.clear()


# -- reading ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Prefetched:
    """Presence keys a request read before it knew its game's seats (`prefetch`):
    those read, and those of them that exist."""

    keys: frozenset[str]
    found: Mapping[str, object]


# game id -> its seated humans' ids, as this process last read them: what a request
# about the game prefetches before it reads the game.
_seated: dict[str, tuple[str, ...]] = {}


def prefetch(group: object) -> list[str]:
    """The keys `read` of `group` (a game's id) will want, as far as this process
    knows the game's seats (none when it never read the game)."""
    players = _seated.get(str(group))
    if players is None:
        return []
    return [player_key(p) for p in players] + _count_keys(group)


def _count_keys(group: object) -> list[str]:
    return [count_key(group, slot) for slot in sorted(_slots_in_use)]


def read(
    player_ids: Iterable[str], group: object, prefetched: Prefetched | None = None
) -> Presence:
    """The presence of these players and the spectator count of `group` (a game's
    id), in one cache round trip, or none when `prefetched` holds every key it
    needs. An unreachable cache reads as nobody present."""
    players = list(player_ids)
    _remember_seats(str(group), players)
    counts = _count_keys(group)
    wanted = [player_key(p) for p in players] + counts
    if prefetched is not None and prefetched.keys.issuperset(wanted):
        found = prefetched.found
    else:
        try:
            found = _get_many(wanted)
        except Exception:
            log.warning("presence: the cache cannot be read", exc_info=True)
            return NOBODY
    spectators = sum(int(found.get(key) or 0) for key in counts)  # type: ignore[call-overload]
    return Presence(frozenset(p for p in players if player_key(p) in found), max(spectators, 0))


def online(player_ids: Iterable[str]) -> frozenset[str]:
    """Which of these players are online, in one cache round trip (none when the
    cache cannot be read)."""
    players = list(player_ids)
    if not players:
        return frozenset()
    try:
        found = _get_many([player_key(p) for p in players])
    except Exception:
        log.warning("presence: the cache cannot be read", exc_info=True)
        return frozenset()
    return frozenset(p for p in players if player_key(p) in found)


def _get_many(keys: list[str]) -> Mapping[str, object]:
    backend = cache_trip.shared()
    if backend is None:
        found: Mapping[str, object] = cache.get_many(keys)
        return found
    # Through the request round trip's client: Django's cache makes a client per call.
    return cache_trip.run(backend, cache_trip.Trip(reads=keys)).found


def _remember_seats(group: str, players: list[str]) -> None:
    if _seated.get(group) == tuple(players):
        return
    if len(_seated) >= MAX_REMEMBERED:
        # Dicts keep insertion order: the games remembered longest ago go first.
        with _written_lock:
            for stale in list(_seated)[: MAX_REMEMBERED // 10]:
                _seated.pop(stale, None)
    _seated[group] = tuple(players)


def follows(player_id: object, group: object) -> bool:
    """Whether `player_id` holds a stream of `group` (a game's id, or `LOBBY`) open on
    some server. An unreachable cache reads as no: a notification too many beats a
    turn nobody hears of."""
    try:
        return cache.get(follow_key(group, player_id)) is not None
    except Exception:
        log.warning("presence: the cache cannot be read", exc_info=True)
        return False


# -- publishing a process's streams -------------------------------------------------------


class Publisher:
    """This process's share of presence: the players of its open streams and its
    spectator counts. One per process (the live hub's); its methods make blocking
    cache calls and are called from one thread at a time, in order."""

    def __init__(self) -> None:
        self.token = secrets.token_hex(8)
        self.slot: int | None = None
        self.published: set[str] = set()  # groups with a count under our slot

    def _claim(self) -> int | None:
        for slot in range(SLOTS):
            if cache.add(slot_key(slot), self.token, TTL_SECONDS):
                self.slot = slot
                self.published.clear()
                _slots_in_use.add(slot)
                return slot
        log.warning(
            "presence: all %d slots are taken; this process's spectators go uncounted", SLOTS
        )
        return None

    def _holding(self) -> int | None:
        """Our slot, still ours (a process stalled past the TTL may have lost it), or a
        new one."""
        if self.slot is not None and cache.get(slot_key(self.slot)) == self.token:
            return self.slot
        return self._claim()

    def count(self, group: str, spectators: int) -> None:
        """Publish at once that `spectators` streams of this process watch `group`."""
        try:
            slot = self.slot if self.slot is not None else self._claim()
            if slot is None:
                return
            if spectators > 0:
                cache.set(count_key(group, slot), spectators, TTL_SECONDS)
                self.published.add(group)
            else:
                cache.delete(count_key(group, slot))
                self.published.discard(group)
        except Exception:
            log.warning("presence: the cache cannot be written", exc_info=True)

    def follow(self, group: str, player_id: str, *, following: bool) -> None:
        """Publish at once that `player_id` holds (or no longer holds) a stream of
        `group` here."""
        try:
            if following:
                cache.set(follow_key(group, player_id), 1, TTL_SECONDS)
            else:
                cache.delete(follow_key(group, player_id))
        except Exception:
            log.warning("presence: the cache cannot be written", exc_info=True)

    def heartbeat(
        self,
        players: Iterable[str],
        counts: Mapping[str, int],
        follows: Iterable[tuple[str, str]] = (),
    ) -> None:
        """Refresh everything this process holds: its slot, the keys of the players
        with a stream open here and of what they follow (`follows`: group, player),
        the counts of its spectators (one ``set_many``); remove the counts that fell
        to zero, and learn which slots are in use."""
        try:
            slot = self._holding()
            now = time.time()
            entries: dict[str, object] = {follow_key(g, p): 1 for g, p in follows}
            for player_id in players:
                entries[player_key(player_id)] = 1
                with _written_lock:
                    _written[player_id] = now
            # Players seen by requests whose own round trip did not write them.
            entries.update(dict.fromkeys(take_pending(), 1))
            live = {group for group, n in counts.items() if n > 0}
            if slot is not None:
                entries[slot_key(slot)] = self.token
                entries.update({count_key(group, slot): counts[group] for group in live})
            if entries:
                cache.set_many(entries, TTL_SECONDS)
            if slot is not None:
                gone = self.published - live
                if gone:
                    cache.delete_many([count_key(group, slot) for group in gone])
                self.published = live
            held = cache.get_many([slot_key(n) for n in range(SLOTS)])
            in_use = {n for n in range(SLOTS) if slot_key(n) in held}
            _slots_in_use.intersection_update(in_use)
            _slots_in_use.update(in_use)
        except Exception:
            log.warning("presence: the cache cannot be written", exc_info=True)

    def withdraw(self) -> None:
        """The process stops: its counts and its slot go at once."""
        if self.slot is None:
            return
        try:
            if cache.get(slot_key(self.slot)) == self.token:
                keys = [count_key(group, self.slot) for group in self.published]
                cache.delete_many([*keys, slot_key(self.slot)])
        except Exception:
            log.warning("presence: the cache cannot be written", exc_info=True)
        _slots_in_use.discard(self.slot)
        self.slot = None
        self.published.clear()
