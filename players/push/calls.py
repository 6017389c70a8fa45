"""The sessions push delivery calls the push services with (unoservice.outbound): one
deadline for a whole request (PUSH_TIMEOUT_SECONDS), at most PUSH_MAX_ANSWER_BYTES
of an answer read, no redirect followed, public addresses only (loopback and plain
http too with PUSH_ALLOW_HTTP, for development and tests)."""

from __future__ import annotations

from django.conf import settings

from players.push.answers import Answer
from unoservice import outbound


def session() -> outbound.Session:
    """This thread's session for the current settings: connections to a push service
    are reused between sends."""
    return outbound.thread_session(
        deadline=settings.PUSH_TIMEOUT_SECONDS,
        max_bytes=settings.PUSH_MAX_ANSWER_BYTES,
        local=settings.PUSH_ALLOW_HTTP,
    )


def refused(error: outbound.AddressRefused) -> Answer:
    """The device's address leads inside the network: a failure, not tried again.
    Nothing of it reaches the device list (the device stays, not marked used), so
    a player learns nothing of what answers there."""
    return Answer("failed", None, detail=f"refused: {error}")
