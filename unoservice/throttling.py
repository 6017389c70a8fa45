"""Rate limits: per player when authenticated, per client address otherwise.

Fixed windows counted with the cache's atomic `incr`: two cache operations per
request whatever the rate, where DRF's sliding log reads, rewrites and re-pickles
the timestamps of every request in the window (thousands when a load test lifts
the rate). A burst can reach twice the rate across a window boundary; for abuse
protection that is the usual, accepted trade.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from django.core.cache import cache
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from players.models import Player
from unoservice.errors import RateLimited

# A long poll that waited is answered by asking the API again inside the same
# process; that second, internal request carries this per-process secret in
# X-Uno-Wakeup so that the client's one request is counted once.
WAKEUP_TOKEN = secrets.token_hex(16)
WAKEUP_HEADER = "X-Uno-Wakeup"


class FixedWindowThrottle(SimpleRateThrottle):
    # Set by SimpleRateThrottle.__init__ from the scope's rate (when it has one).
    num_requests: int
    duration: int

    def allow_request(self, request: Request, view: Any) -> bool:
        if self.rate is None:
            return True
        if request.META.get("HTTP_X_UNO_WAKEUP") == WAKEUP_TOKEN:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        return bool(self._count_up(self._window_key(self.key)) <= self.num_requests)

    def _window_key(self, ident: str) -> str:
        """The counter of `ident` for the window now running (noting when it ends)."""
        self.now = time.time()
        window = int(self.now // self.duration)
        self.window_ends = (window + 1) * self.duration
        return f"{ident}:{window}"

    def _count_up(self, key: str) -> int:
        # add() is a no-op when the key exists; incr() is atomic on Redis and locmem.
        cache.add(key, 0, timeout=self.duration + 1)
        try:
            return int(cache.incr(key))
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout=self.duration + 1)
            return 1

    def wait(self) -> float | None:
        return max(float(self.window_ends - self.now), 1.0)


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

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        user: object = request.user
        if isinstance(user, Player):
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def refused_unauthenticated(request: Request) -> int | None:
    """Count a request refused for want of a valid token (a 401) against its
    address's anonymous rate: None while under it, else the seconds to wait. DRF
    checks permissions, and so refuses such requests, before it throttles."""
    throttle = AnonymousRateThrottle()
    if throttle.allow_request(request, None):
        return None
    return max(int(throttle.wait() or 1), 1)


class HealthRateThrottle(FixedWindowThrottle):
    """/healthz per client address: probes ask every few seconds, floods far more."""

    scope = "health"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class FailedInviteCodeThrottle(PlayerRateThrottle):
    """Wrong invite codes per player. Only failures count (`record_failure`); once a
    window holds the rate's number of them, every attempt with a code is refused
    (`check`), the right code included, until the window ends: otherwise a guesser
    would go on guessing and simply learn which guess was right."""

    scope = "invite_code"
    # The configured rates themselves, not whatever replaced the players' (tests and
    # load runs lift those).
    THROTTLE_RATES = SimpleRateThrottle.THROTTLE_RATES

    def _counter(self, request: Request) -> str | None:
        ident = None if self.rate is None else self.get_cache_key(request, None)
        return None if ident is None else self._window_key(ident)

    def check(self, request: Request) -> None:
        """Raise `RateLimited` when this window already holds too many failures."""
        key = self._counter(request)
        if key is None or int(cache.get(key, 0)) < self.num_requests:
            return
        wait = max(int(self.wait() or 1), 1)
        raise RateLimited(
            "too many wrong invite codes; wait before trying another",
            details={"retry_after": wait},
        )

    def record_failure(self, request: Request) -> None:
        key = self._counter(request)
        if key is not None:
            self._count_up(key)
