"""Reads that may lag a little, sent to a read replica (``REPLICA_DATABASE_URL``).

What a client reads right after it wrote (moves, views, streams, the lobby, tokens,
throttles) must come from the primary, or a player could miss their own move. Only
code run through `lagging` reads from the replica: the leaderboard, other players'
profiles and histories, the logs of games that are over, the admin's charts. The
router sends every other read, and every write, to the primary.

A replica that cannot be reached costs one short connect (``connect_timeout``), then
is left alone for `RETRY_SECONDS`: meanwhile its reads go to the primary, which has
all the data the replica has. A query that fails on the replica is run again on the
primary, so a replica going down mid-request costs the client nothing but time.
"""

from __future__ import annotations

import contextvars
import functools
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, ParamSpec, TypeVar

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

logger = logging.getLogger(__name__)

ALIAS = "replica"
# How long a process reads the primary alone after the replica failed it.
RETRY_SECONDS = 10.0

T = TypeVar("T")
P = ParamSpec("P")

_may_lag: contextvars.ContextVar[bool] = contextvars.ContextVar("reads_may_lag", default=False)


class _Failures:
    """When this process last found the replica out of reach, shared by its threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.down_until = 0.0

    def down(self) -> bool:
        with self.lock:
            return time.monotonic() < self.down_until

    def remember(self) -> None:
        with self.lock:
            self.down_until = time.monotonic() + RETRY_SECONDS

    def forget(self) -> None:
        with self.lock:
            self.down_until = 0.0


failures = _Failures()


def configured() -> bool:
    return ALIAS in connections.settings


def _failed(error: BaseException) -> None:
    logger.warning("the read replica failed; reading the primary for %gs: %s", RETRY_SECONDS, error)
    failures.remember()
    # A broken connection would fail the next request of this thread again.
    with suppress(DatabaseError):
        connections[ALIAS].close()


def check() -> None:
    """Run ``SELECT 1`` on the replica; raise when it fails (and remember it), or
    failed within `RETRY_SECONDS`: a replica out of reach costs probes no connect
    timeout each."""
    if failures.down():
        raise DatabaseError(f"the read replica failed within the last {RETRY_SECONDS:g}s")
    try:
        with connections[ALIAS].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as error:
        _failed(error)
        raise
    failures.forget()


def usable() -> bool:
    """Whether the replica is configured and not known to be down: connected to, when
    this thread has no connection to it yet."""
    if not configured() or failures.down():
        return False
    try:
        connections[ALIAS].ensure_connection()
    except DatabaseError as error:
        _failed(error)
        return False
    return True


@contextmanager
def _on_replica() -> Iterator[list[DatabaseError]]:
    """Reads routed to the replica; the errors its queries raised, in the list."""
    errors: list[DatabaseError] = []

    def watch(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        try:
            return execute(sql, params, many, context)
        except DatabaseError as error:
            errors.append(error)
            raise

    token = _may_lag.set(True)
    try:
        with connections[ALIAS].execute_wrapper(watch):
            yield errors
    finally:
        _may_lag.reset(token)


def lagging(
    read: Callable[[], T], *, when: bool = True, caught_up: Callable[[], bool] | None = None
) -> T:
    """`read()` with its reads on the replica, when one is configured and up and `when`
    holds; else on the primary. `caught_up`, asked on the replica first, says whether
    it has what `read` needs (when not, the primary is read). A replica failing during
    `read` sends it once more to the primary."""
    if not (when and usable()):
        return read()
    with _on_replica() as errors:
        try:
            if caught_up is None or caught_up():
                return read()
        except DatabaseError as error:
            # Not the replica's (a query on the primary, or none at all): the caller's.
            if not errors and connections[ALIAS].is_usable():
                raise
            _failed(error)
    return read()


def may_lag(view: Callable[P, T]) -> Callable[P, T]:
    """A view method (or function) whose whole body reads through `lagging`."""

    @functools.wraps(view)
    def lagging_view(*args: P.args, **kwargs: P.kwargs) -> T:
        return lagging(lambda: view(*args, **kwargs))

    return lagging_view


class ReplicaRouter:
    """Reads inside `lagging` to the replica; all else, writes and migrations to the
    primary."""

    def db_for_read(self, model: type[Any], **hints: Any) -> str:
        return ALIAS if _may_lag.get() else DEFAULT_DB_ALIAS

    def db_for_write(self, model: type[Any], **hints: Any) -> str:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        # The replica holds the primary's rows: an object read from either relates
        # to one read from the other.
        return True

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db == DEFAULT_DB_ALIAS
