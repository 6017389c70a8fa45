"""Refusals answered again for almost nothing.

A client address over one of its limits (requests without a valid token, /healthz)
is refused 429 until the limit's window ends. Each of those refusals would cost what
any request costs (a thread, Django, the cache), and a flood is made of them: with
16 clients flooding from one address, the players' own requests waited behind them.
So a server process remembers, in memory, which addresses it refused and until when,
and the ASGI layer (`unoservice.asgi`) answers their next requests of the same kind
itself, before a thread is involved, with the same 429.

Only what cannot be told apart from the refused requests is refused early: /healthz
from an address over its health-check limit; and, from an address over its limit of
requests without a valid token, a request to the API that carries no credentials at
all (no Authorization header, no cookie, no stream ticket), or that carries exactly
an Authorization header this process refused as unknown (a flood repeats its bad
token). A request with any other token still goes to the API, which checks it: a
player behind the same address as a flood keeps playing.

What a process remembers is bounded (`MOST_REMEMBERED`), and forgotten at the
window's end; every process learns for itself, from its own refusals.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict

from unoservice.asgi_types import Scope

# Addresses and headers remembered by one process, at most.
MOST_REMEMBERED = 10_000


class Remembered:
    """Keys and the time (time.time()) until which they are refused, the oldest
    forgotten first past `most`."""

    def __init__(self, most: int = MOST_REMEMBERED) -> None:
        self.most = most
        self._until: OrderedDict[str, float] = OrderedDict()

    def refuse(self, key: str, until: float) -> None:
        self._until[key] = until
        self._until.move_to_end(key)
        while len(self._until) > self.most:
            self._until.popitem(last=False)

    def seconds_left(self, key: str) -> int | None:
        """Whole seconds (at least 1) until `key` is no longer refused, or None."""
        until = self._until.get(key)
        if until is None:
            return None
        left = until - time.time()
        if left <= 0:
            del self._until[key]
            return None
        return max(math.ceil(left), 1)

    def forget(self) -> None:
        self._until.clear()


# Throttle keys (a scope and an address) refused until their window's end.
addresses = Remembered()
# Authorization headers refused as unknown, per address: "<address> <header>".
bad_credentials = Remembered()


def header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return None


def forget() -> None:
    addresses.forget()
    bad_credentials.forget()
