"""Celery tasks: bot turns, turn timeouts and the sweeper that backs them up.

Every task carries the game id (as text: the broker speaks JSON) and the version it
was sent for, and calls a service that does nothing once the game has moved on: a
task delivered twice, late, or again after its worker died, changes nothing.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid

from celery import shared_task
from django.conf import settings

from games import dispatch, notifications, services
from games.talk.messages import table_talk_purge
from unoservice import metrics
from unoservice.idempotency.http import purge_expired

log = logging.getLogger(__name__)


@shared_task(name=dispatch.BOT_TURN)
def bot_turn(game_id: str, version: int) -> bool:
    """Make the next bot move of the game, if it is still at `version`."""
    return services.bot_act(game_id=uuid.UUID(game_id), version=version) is not None


@shared_task(name=dispatch.TURN_TIMEOUT)
def turn_timeout(game_id: str, version: int) -> bool:
    """Apply the timeout armed for `version`, if the game is still there."""
    return services.turn_timeout_apply(game_id=uuid.UUID(game_id), version=version) is not None


@shared_task(name=dispatch.PAUSE_EXPIRY)
def pause_expired(game_id: str, version: int) -> bool:
    """Abandon the game paused at `version` if nobody resumed it in time."""
    return services.game_pause_expire(game_id=uuid.UUID(game_id), version=version) is not None


@shared_task(name=dispatch.MATCH_BOTS)
def quick_match_bots(game_id: str, version: int) -> bool:
    """Seat bots in the quick-match game waiting at `version` and start it, if its
    time has come."""
    return services.match_bots_fill(game_id=uuid.UUID(game_id), version=version) is not None


@shared_task(name=dispatch.NOTIFY_CHANGE)
def notify_change(
    game_id: str, version: int, first_seq: int, last_seq: int, turn_seat: int | None
) -> int:
    """Push what the change to `version` (its events `first_seq`..`last_seq`) calls
    for to players who are away; `turn_seat`: the human whose turn it began."""
    return notifications.change_notify(
        game_id=uuid.UUID(game_id), first_seq=first_seq, last_seq=last_seq, turn_seat=turn_seat
    )


@shared_task(name=dispatch.NOTIFY_TURN_LATE)
def notify_turn_late(game_id: str, seat: int, turn_seq: int, first_seq: int | None = None) -> int:
    """Push `your_turn` to the player of `seat` if the turn that the change logging
    events `first_seq`..`turn_seq` began is still theirs and unplayed."""
    return notifications.turn_late_notify(
        game_id=uuid.UUID(game_id), seat=seat, turn_seq=turn_seq, first_seq=first_seq
    )


@shared_task(name=dispatch.SWEEP)
def sweep_overdue() -> dict[str, int]:
    """Apply overdue timeouts, move overdue bots, end expired pauses and start the
    quick matches whose bots are due (beat runs this every few seconds)."""
    grace = dt.timedelta(seconds=settings.TURN_SWEEP_SECONDS)
    swept = services.sweep_overdue(bot_grace=grace)
    metrics.SWEEPS.labels("applied" if any(swept) else "idle").inc()
    for kind, count in swept._asdict().items():
        if count:
            metrics.SWEPT.labels(kind).inc(count)
    if any(swept):
        log.info(
            "sweep: %d timeouts applied, %d overdue bot moves, %d pauses ended,"
            " %d quick matches started with bots, %d turn reminders sent",
            *swept,
        )
    return swept._asdict()


@shared_task(name=dispatch.HEARTBEAT)
def heartbeat(queue: str) -> None:
    """Say that a worker runs `queue`'s tasks (beat sends one into each queue)."""
    services.queue_heartbeat(queue=queue)


@shared_task(name=dispatch.PURGE_IDEMPOTENCY)
def purge_idempotency_records() -> int:
    """Drop the idempotency records past their 24 hours (beat runs this hourly)."""
    return purge_expired()


@shared_task(name=dispatch.PURGE_STREAM_TICKETS)
def purge_stream_tickets() -> int:
    """Drop the expired stream tickets (beat runs this hourly)."""
    return services.stream_tickets_purge()


@shared_task(name="games.table_talk_purge")
def purge_table_talk() -> int:
    """Delete the table talk older than TALK_KEPT_DAYS (beat runs this hourly)."""
    return table_talk_purge()
