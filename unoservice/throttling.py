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
        now = time.time()
        window = int(now // self.duration)
        self.window_ends = (window + 1) * self.duration
        key = f"{self.key}:{window}"
        # add() is a no-op when the key exists; incr() is atomic on Redis and locmem.
        cache.add(key, 0, timeout=self.duration + 1)
        try:
            count = cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout=self.duration + 1)
            count = 1
        self.now = now
        return bool(count <= self.num_requests)

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
