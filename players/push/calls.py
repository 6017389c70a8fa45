"""The sessions push delivery calls the push services with (unoservice.outbound): one
deadline for a whole request (PUSH_TIMEOUT_SECONDS), at most PUSH_MAX_ANSWER_BYTES
of an answer read, no redirect followed, public addresses only (loopback and plain
http too with PUSH_ALLOW_HTTP, for development and tests)."""

from __future__ import annotations

import threading

from django.conf import settings

from players.push.answers import Answer
from unoservice import outbound

_sessions = threading.local()


def session() -> outbound.Session:
    """This thread's session for the current settings: connections to a push service
    are reused between sends."""
    key = (settings.PUSH_TIMEOUT_SECONDS, settings.PUSH_MAX_ANSWER_BYTES, settings.PUSH_ALLOW_HTTP)
    kept: dict[tuple[float, int, bool], outbound.Session] = getattr(_sessions, "kept", None) or {}
    _sessions.kept = kept
    if key not in kept:
        deadline, max_bytes, local = key
        kept[key] = outbound.Session(deadline=deadline, max_bytes=max_bytes, local=local)
    return kept[key]


def refused(error: outbound.AddressRefused) -> Answer:
    """The device's address leads inside the network: a failure, not tried again.
    Nothing of it reaches the device list (the device stays, not marked used), so
    a player learns nothing of what answers there."""
    return Answer("failed", None, detail=f"refused: {error}")
