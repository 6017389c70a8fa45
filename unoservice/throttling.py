"""Rate limits: per player when authenticated, per client address otherwise."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from players.models import Player


class PlayerRateThrottle(SimpleRateThrottle):
    scope = "player"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if not isinstance(request.user, Player):
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class AnonymousRateThrottle(SimpleRateThrottle):
    scope = "anonymous"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if isinstance(request.user, Player):
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
