"""Sending push tasks to the Celery broker. A task is sent by name, so that delivery
need not import the task module (which imports it)."""

from __future__ import annotations

import logging

from django.db import transaction

from unoservice.celery import app

log = logging.getLogger(__name__)

DELIVER = "players.push_deliver"
RETRY = "players.push_retry"


def send(name: str, args: list[object], *, countdown: float | None) -> None:
    """Put one task on the broker now. Tests replace this to see what would be sent.
    A send that fails (broker down) is logged and dropped: a notification is worth
    less than the request or task that caused it."""
    try:
        app.send_task(name, args=args, countdown=countdown, retry=False)
    except Exception:
        log.exception("could not send %s; the notification is dropped", name)


def send_on_commit(name: str, args: list[object], *, countdown: float | None = None) -> None:
    """Send `name(*args)` when the current transaction commits (at once outside one).
    `send` is looked up then, so that tests can replace it."""
    transaction.on_commit(lambda: send(name, args, countdown=countdown), robust=True)
