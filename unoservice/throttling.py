"""Rate limits: per player when authenticated, per client address otherwise.

Fixed windows counted with an atomic increment, where DRF's sliding log reads,
rewrites and re-pickles the timestamps of every request in the window (thousands
when a load test lifts the rate). A burst can reach twice the rate across a window
boundary; for abuse protection that is the usual, accepted trade.

With the shared cache (Redis), every scope a request is counted in is counted in
one round trip (`unoservice.cache_trip`), which also writes the presence of the
player seen and reads the presence of the game the path names: one blocking call
to Redis per request. With the memory cache, the cache's ``add`` then ``incr``.
"""

from __future__ import annotations

import contextlib
import math
import secrets
import time
from collections.abc import Mapping, Sequence
from typing import Any

from django.core.cache import cache
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from players.models import Player
from unoservice import cache_trip, presence, shedding
from unoservice.client_address import group_in
from unoservice.errors import RateLimited

# A long poll that waited is answered by asking the API again inside the same
# process; that second, internal request carries this per-process secret in
# X-Uno-Wakeup so that the client's one request is counted once.
WAKEUP_TOKEN = secrets.token_hex(16)
WAKEUP_HEADER = "X-Uno-Wakeup"
# Longer Authorization headers are refused by their form, never remembered.
MOST_REMEMBERED_CREDENTIALS = 256


class FixedWindowThrottle(SimpleRateThrottle):
    # Set by SimpleRateThrottle.__init__ from the scope's rate (when it has one).
    num_requests: int
    duration: int
    # A per-address limit whose refusals the ASGI layer repeats itself until the
    # window ends (`unoservice.shedding`).
    shed_early = False

    @classmethod
    def key_for(cls, ident: str) -> str:
        return cls.cache_format % {"scope": cls.scope, "ident": ident}

    def get_ident(self, request: Request) -> str:
        # DRF's rule, read from the WSGI variables alone: the streams' checks, which
        # have no Django request, count addresses as the API does; an IPv6 address
        # by its /64 (`unoservice.client_address`).
        return group_in(request.META)

    def allow_request(self, request: Request, view: Any) -> bool:
        if _woken(request.META):
            return True
        backend = cache_trip.shared()
        if backend is not None:
            counted = _counted_together(backend, request, view)
            if type(self) not in counted:
                return True
            self.key, self.now, self.window_ends, count = counted[type(self)]
            return self._judged(count)
        if self.rate is None:
            return True
        return self.allow_key(self.get_cache_key(request, view))

    def allow_key(self, key: str | None) -> bool:
        """Count one request against the counter `key` (None: not counted here);
        whether it is within the rate."""
        self.key = key
        if self.key is None:
            return True
        return self._judged(self._count_up(self._window_key(self.key)))

    def _judged(self, count: int) -> bool:
        allowed = count <= self.num_requests
        if not allowed and self.shed_early and self.key is not None:
            shedding.addresses.refuse(self.key, self.window_ends)
        return allowed

    def _window_key(self, ident: str) -> str:
        """The counter of `ident` for the window now running (noting when it ends)."""
        self.now = time.time()
        window = int(self.now // self.duration)
        self.window_ends = (window + 1) * self.duration
        return f"{ident}:{window}"

    def _count_up(self, key: str) -> int:
        backend = cache_trip.shared()
        if backend is not None:
            return cache_trip.run(backend, cache_trip.Trip([(key, self.duration + 1)])).counts[0]
        # add() is a no-op when the key exists; incr() is atomic on locmem.
        cache.add(key, 0, timeout=self.duration + 1)
        try:
            return int(cache.incr(key))
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout=self.duration + 1)
            return 1

    def wait(self) -> float | None:
        return max(float(self.window_ends - self.now), 1.0)


def _seconds_to_wait(throttle: FixedWindowThrottle) -> int:
    """The Retry-After of a refusal: whole seconds, rounded up as DRF rounds its own
    (`Throttled`), so that every refusal of one window names the same second."""
    return max(math.ceil(throttle.wait() or 1), 1)


def _woken(meta: Mapping[str, Any]) -> bool:
    return meta.get("HTTP_X_UNO_WAKEUP") == WAKEUP_TOKEN


# Per request, each window throttle's (counter, time, window end, count).
Counted = dict[type, tuple[str, float, int, int]]
COUNTED = "_uno_counted"
# Where a request keeps the presence it read in its round trip (`view_presence`).
PREFETCHED = "_uno_presence"


def _counted_together(backend: Any, request: Request, view: Any) -> Counted:
    """Count the request in every window of the view's throttles at once, the first
    time one of them asks (`count_together`)."""
    counted: Counted | None = getattr(request, COUNTED, None)
    if counted is not None:
        return counted
    keyed: list[tuple[FixedWindowThrottle, str]] = []
    for throttle in view.get_throttles():
        if not isinstance(throttle, FixedWindowThrottle) or throttle.rate is None:
            continue
        key = throttle.get_cache_key(request, view)
        if key is not None:
            keyed.append((throttle, key))
    counted, prefetched = count_together(
        backend, keyed, game_id=getattr(view, "kwargs", {}).get("game_id")
    )
    if prefetched is not None:
        setattr(request, PREFETCHED, prefetched)
    setattr(request, COUNTED, counted)
    return counted


def count_together(
    backend: Any, keyed: Sequence[tuple[FixedWindowThrottle, str]], *, game_id: object = None
) -> tuple[Counted, presence.Prefetched | None]:
    """Count a request in the window of each (throttle, key) at once: one round trip
    to Redis that also writes the presence of players seen (`presence.seen_soon`)
    and reads the presence of `game_id`'s game, as far as this process knows its
    seats. Each throttle is left ready to judge its count (`_judged`)."""
    counted: Counted = {}
    trip = cache_trip.Trip(mark_seconds=presence.TTL_SECONDS)
    windows: list[tuple[type, str, float, int]] = []
    for throttle, key in keyed:
        window = throttle._window_key(key)
        trip.counters.append((window, throttle.duration + 1))
        windows.append((type(throttle), key, throttle.now, throttle.window_ends))
    trip.marks = presence.take_pending()
    if game_id is not None:
        trip.reads = presence.prefetch(game_id)
    prefetched = None
    if trip:
        try:
            answer = cache_trip.run(backend, trip)
        except Exception:
            presence.written_failed(trip.marks)
            raise
        for (kind, key, now, ends), count in zip(windows, answer.counts, strict=True):
            counted[kind] = (key, now, ends, count)
        if trip.reads:
            prefetched = presence.Prefetched(frozenset(trip.reads), answer.found)
    return counted, prefetched


def player_request_counted(
    player: Player, meta: Mapping[str, Any], *, game_id: object
) -> tuple[int | None, presence.Prefetched | None]:
    """A request of `player` about `game_id`'s game served outside DRF (a view read,
    `games.live.reads`), counted against the player's rate as DRF counts the API's
    and with the player marked online: the seconds to wait when it is over the rate
    (else None), and the game's presence when the request's one round trip to Redis
    read it."""
    presence.seen_soon(player.pk)
    backend = cache_trip.shared()
    if backend is None:
        return refused_player(player, meta), None
    throttle = PlayerRateThrottle()
    counting = throttle.rate is not None and not _woken(meta)
    keyed = [(throttle, PlayerRateThrottle.key_for(str(player.pk)))] if counting else []
    counted, prefetched = count_together(backend, keyed, game_id=game_id)
    if PlayerRateThrottle not in counted:
        return None, prefetched
    throttle.key, throttle.now, throttle.window_ends, count = counted[PlayerRateThrottle]
    if throttle._judged(count):
        return None, prefetched
    return _seconds_to_wait(throttle), prefetched


def prefetched_presence(request: Any) -> presence.Prefetched | None:
    """The presence the request's round trip read, if it read any."""
    found: presence.Prefetched | None = getattr(request, PREFETCHED, None)
    return found


class PlayerRateThrottle(FixedWindowThrottle):
    scope = "player"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        # A Player, not a Django user, is what the token authentication sets.
        user: object = request.user
        if not isinstance(user, Player):
            return None
        return self.cache_format % {"scope": self.scope, "ident": user.pk}


class AnonymousRateThrottle(FixedWindowThrottle):
    scope = "anonymous"
    shed_early = True

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        user: object = request.user
        if isinstance(user, Player):
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def refused_player(player: Player, meta: Mapping[str, Any]) -> int | None:
    """Count a request of `player` (whose WSGI variables are `meta`) against their
    rate, as DRF counts the API's: None while under it, else the seconds to wait.
    For what is served outside DRF, the streams."""
    throttle = PlayerRateThrottle()
    if throttle.rate is None or _woken(meta):
        return None
    if throttle.allow_key(PlayerRateThrottle.key_for(str(player.pk))):
        return None
    return _seconds_to_wait(throttle)


def refused_unauthenticated(*, meta: Mapping[str, Any], player: Player | None = None) -> int | None:
    """Count a request refused for want of a valid token (a 401) against its
    address's anonymous rate: None while under it, else the seconds to wait. DRF
    checks permissions, and so refuses such requests, before it throttles. `meta`
    is the request's WSGI variables; `player`, who it was authenticated as, if
    anyone (their requests are counted by their own rate, not here)."""
    throttle = AnonymousRateThrottle()
    if throttle.rate is None or _woken(meta) or player is not None:
        return None
    address = group_in(meta)
    if throttle.allow_key(AnonymousRateThrottle.key_for(address)):
        return None
    credentials = meta.get("HTTP_AUTHORIZATION")
    if credentials and len(credentials) <= MOST_REMEMBERED_CREDENTIALS:
        shedding.bad_credentials.refuse(f"{address} {credentials}", throttle.window_ends)
    return _seconds_to_wait(throttle)


class HealthRateThrottle(FixedWindowThrottle):
    """/healthz per client address: probes ask every few seconds, floods far more."""

    scope = "health"
    shed_early = True

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class FailedInviteCodeThrottle(PlayerRateThrottle):
    """Wrong invite codes per player (`count_invite_code_attempt`)."""

    scope = "invite_code"
    # The configured rates themselves, not whatever replaced the players' (tests and
    # load runs lift those).
    THROTTLE_RATES = SimpleRateThrottle.THROTTLE_RATES


class FailedInviteCodeAddressThrottle(FixedWindowThrottle):
    """Wrong invite codes per client address, whoever sends them: sign-ups are free,
    so a guesser's accounts share their address's count (`count_invite_code_attempt`)."""

    scope = "invite_code_address"
    THROTTLE_RATES = SimpleRateThrottle.THROTTLE_RATES

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return self.key_for(group_in(request.META))


class CountedAttempt:
    """An attempt at a guessable secret (an invite code, an email code, a password),
    already counted as a wrong one in the windows of `counters`; `release` takes it
    back when it turns out right."""

    def __init__(self, counters: list[str]) -> None:
        self.counters = counters

    def release(self) -> None:
        for key in self.counters:
            _count_down(key)
        self.counters = []


def count_attempt(
    idents: Mapping[type[FixedWindowThrottle], str | None], *, refusal: str
) -> CountedAttempt:
    """Count an attempt at a guessable secret as a wrong one, in the window of each
    throttle of `idents` for its ident (None: not counted there), in order, before
    the secret is judged; `RateLimited` (with `refusal`) when any count goes over its
    rate. The count is the cache's atomic increment, and the decision is made on the
    number it returns: of attempts arriving together, exactly as many as the rate
    leaves are let through, where reading the count and adding to it as two steps
    let several read the same count. A refused attempt is taken back, so that only
    attempts that were judged wrong stay counted; once a window holds the rate's
    number, every attempt is refused, the right secret included, until the window
    ends: otherwise a guesser would go on guessing and simply learn which guess was
    right."""
    counted: list[str] = []
    for throttle_class, raw in idents.items():
        throttle = throttle_class()
        if throttle.rate is None or raw is None:
            continue
        key = throttle._window_key(throttle_class.key_for(raw))
        if throttle._count_up(key) > throttle.num_requests:
            for taken_back in [*counted, key]:
                _count_down(taken_back)
            wait = _seconds_to_wait(throttle)
            raise RateLimited(refusal, details={"retry_after": wait})
        counted.append(key)
    return CountedAttempt(counted)


def count_invite_code_attempt(*, player: Player | None, meta: Mapping[str, Any]) -> CountedAttempt:
    """`count_attempt` of an invite code, per player and then per address: `player`
    is who sent it, if anyone, and `meta` the request's WSGI variables (its
    address)."""
    return count_attempt(
        {
            FailedInviteCodeThrottle: None if player is None else str(player.pk),
            FailedInviteCodeAddressThrottle: group_in(meta),
        },
        refusal="too many wrong invite codes; wait before trying another",
    )


def _count_down(key: str) -> None:
    # ValueError: the window ended meanwhile, and nothing is left to take back.
    with contextlib.suppress(ValueError):
        cache.decr(key)


def refused_players(requests: Sequence[tuple[Player, Mapping[str, Any]]]) -> list[int | None]:
    """`refused_player` for each of many requests at once (streams opening
    together), their counters moved in one round trip when the cache is Redis."""
    throttle = PlayerRateThrottle()
    if throttle.rate is None:
        return [None] * len(requests)
    counted = [(n, player) for n, (player, meta) in enumerate(requests) if not _woken(meta)]
    keys = [throttle._window_key(PlayerRateThrottle.key_for(str(p.pk))) for _, p in counted]
    refused: list[int | None] = [None] * len(requests)
    for (n, _), count in zip(counted, _count_up_many(throttle, keys), strict=True):
        if count > throttle.num_requests:
            refused[n] = _seconds_to_wait(throttle)
    return refused


def _count_up_many(throttle: FixedWindowThrottle, keys: list[str]) -> list[int]:
    """`throttle._count_up` of each key (in order), in one round trip on Redis."""
    backend = cache_trip.shared()
    if backend is None or not keys:
        return [throttle._count_up(key) for key in keys]
    counters = [(key, throttle.duration + 1) for key in keys]
    # With the presence writes that wait for a round trip (`presence.seen_soon`).
    trip = cache_trip.Trip(counters, presence.take_pending(), presence.TTL_SECONDS)
    try:
        return list(cache_trip.run(backend, trip).counts)
    except Exception:
        presence.written_failed(trip.marks)
        raise
