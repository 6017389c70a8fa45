"""``Idempotency-Key``: the same key from the same caller with the same body gets the
first answer again, for 24 hours, without acting twice.

Race-free without a lock table: on PostgreSQL a transaction-scoped advisory lock on
(caller, key) is tried first, so a concurrent duplicate is answered 409 at once,
and the stored answer is written in the same transaction as the action it answers:
a request that dies half-way leaves neither, and its retry simply runs. SQLite
serialises writing transactions, which gives the same guarantees.

An answer that hands out a secret (a new player's token) is never stored: a
stored token could be fetched again by anyone repeating the key and body from the
same address. Such a request with a key simply acts again (a fresh sign-up).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
from collections.abc import Callable

from django.db import connection, transaction
from django.utils import timezone
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response

from players.models import Player
from unoservice.api_errors import exception_handler
from unoservice.client_address import client_group
from unoservice.errors import (
    IdempotencyKeyInUse,
    IdempotencyKeyReused,
    InvalidRequest,
    ServiceError,
)
from unoservice.idempotency.models import IdempotencyRecord

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
KEEP_FOR = dt.timedelta(hours=24)
# Answers worth replaying: a retry after a 429 or a 5xx should be tried afresh.
_REPLAYABLE = range(200, 429)


def _fingerprint(request: Request) -> str:
    """Method, path and body; a JSON body counts by its content, not its spacing."""
    body = request.body
    # Not JSON: the parser will reject it, and the raw bytes identify it.
    with contextlib.suppress(ValueError, RecursionError):
        body = json.dumps(json.loads(body), sort_keys=True, separators=(",", ":")).encode()
    digest = hashlib.sha256()
    digest.update((request.method or "").encode())
    digest.update(b" " + request.path.encode() + b"\n")
    digest.update(body)
    return digest.hexdigest()


def _owner(request: Request) -> tuple[Player | None, str]:
    """Whose keys these are: the player, or for a request without a token (creating a
    player) the client address, so that a key cannot fetch another client's answer."""
    user: object = request.user  # a Player, not a Django user, when a token came
    if isinstance(user, Player):
        return user, str(user.pk)
    # The client address as the rate limits count it (trusting NUM_PROXIES proxies,
    # an IPv6 address by its /64): a retry from another of the host's temporary
    # IPv6 addresses still finds its key.
    return None, "anonymous:" + client_group(request)


def _advisory_lock_id(owner: str, key: str) -> int:
    digest = hashlib.blake2b(f"{owner}\x00{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _try_lock(owner: str, key: str) -> bool:
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [_advisory_lock_id(owner, key)])
        row = cursor.fetchone()
    return bool(row and row[0])


def purge_expired(*, now: dt.datetime | None = None) -> int:
    """Delete the records older than `KEEP_FOR`; returns how many went."""
    cutoff = (now or timezone.now()) - KEEP_FOR
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted


def idempotent(
    request: Request, action: Callable[[], Response], *, answer_is_secret: bool = False
) -> Response:
    """Run `action` once per (caller, key, body); without the header, just run it.
    With `answer_is_secret` the key is checked but no answer is kept, so every
    request acts."""
    key = request.headers.get(HEADER)
    if key is None:
        return action()
    if not 1 <= len(key) <= MAX_KEY_LENGTH:
        raise InvalidRequest(f"{HEADER} must be 1-{MAX_KEY_LENGTH} characters")
    if answer_is_secret:
        return action()
    player, owner = _owner(request)
    if player is None:
        key = "anonymous:" + hashlib.sha256(f"{owner}|{key}".encode()).hexdigest()
    fingerprint = _fingerprint(request)
    with transaction.atomic():
        if not _try_lock(owner, key):
            raise IdempotencyKeyInUse(
                "a request with this Idempotency-Key is still being processed"
            )
        record = IdempotencyRecord.objects.filter(player=player, key=key).first()
        if record is not None and record.created_at < timezone.now() - KEEP_FOR:
            record.delete()
            record = None
        if record is not None:
            if record.fingerprint != fingerprint:
                raise IdempotencyKeyReused("this Idempotency-Key was used with another request")
            replay = Response(record.body, status=record.status_code)
            replay["Idempotent-Replayed"] = "true"
            return replay
        try:
            response = action()
        except (ServiceError, APIException) as error:
            handled = exception_handler(error, {})
            assert handled is not None
            response = handled
        if response.status_code in _REPLAYABLE:
            IdempotencyRecord.objects.create(
                player=player,
                key=key,
                fingerprint=fingerprint,
                status_code=response.status_code,
                body=response.data,
            )
    return response
