"""Sending game tasks to the Celery broker once the change that calls for them commits.

A task is sent by name, so the services need not import the task module (which
imports them). A send that fails (broker down) is logged and dropped: the change
is committed already, and the turn sweeper moves any game left waiting.
"""

from __future__ import annotations

import datetime as dt
import logging

from django.db import transaction

from unoservice.celery import app

log = logging.getLogger(__name__)

BOT_TURN = "games.bot_turn"
TURN_TIMEOUT = "games.turn_timeout"
SWEEP = "games.sweep_overdue"
HEARTBEAT = "games.heartbeat"
PAUSE_EXPIRY = "games.pause_expired"
MATCH_BOTS = "games.quick_match_bots"
PURGE_IDEMPOTENCY = "games.purge_idempotency_records"
PURGE_STREAM_TICKETS = "games.purge_stream_tickets"
NOTIFY_CHANGE = "games.notify_change"
NOTIFY_TURN_LATE = "games.notify_turn_late"


def send(
    name: str, args: list[object], *, countdown: float | None, eta: dt.datetime | None
) -> None:
    """Put one task on the broker now. Tests replace this to see what would be sent."""
    try:
        # No retries: a request must not hang on a broker outage.
        app.send_task(name, args=args, countdown=countdown, eta=eta, retry=False)
    except Exception:
        log.exception("could not send %s%r; the sweeper will pick the game up", name, args)


def send_on_commit(
    name: str,
    game_id: object,
    version: int,
    *,
    countdown: float | None = None,
    eta: dt.datetime | None = None,
) -> None:
    """Send `name(game_id, version)` when the current transaction commits. `send` is
    looked up then, not now, so that tests can replace it."""
    args: list[object] = [str(game_id), version]
    transaction.on_commit(lambda: send(name, args, countdown=countdown, eta=eta), robust=True)


def send_args_on_commit(name: str, args: list[object], *, countdown: float | None = None) -> None:
    """Send `name(*args)` when the current transaction commits (`send_on_commit` for
    tasks whose arguments are more than a game and its version)."""
    transaction.on_commit(lambda: send(name, args, countdown=countdown, eta=None), robust=True)
