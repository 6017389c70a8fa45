"""Reading table talk: a game's messages as a reader may read them, the messages
around a reported one, who spoke at a table, the staff's queue of reports, and the
messages old enough to delete."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from django.db.models import Case, IntegerField, QuerySet, Value, When

from games.models import Game, Seat
from games.talk import wire
from games.talk.models import Report, ReportStatus, TableMessage
from players.models import Player
from players.social.selectors import talk_preferences

# The most messages a read returns.
PAGE_SIZE = 50
# Messages copied into a report on each side of the reported one, at most.
CONTEXT_AROUND = 10


def _of_game(game_id: uuid.UUID) -> QuerySet[TableMessage]:
    return TableMessage.objects.filter(game_id=game_id).select_related("sender")


def messages_for(game: Game, viewer: Player, *, after: int = 0) -> list[dict[str, Any]]:
    """The last `PAGE_SIZE` messages of `game` after the id `after`, oldest first, as
    `viewer` reads them: without those of players they block, who block them or
    whom they muted, nor spectators' emotes if they hide those (`wire.reaches`)."""
    hidden, hide_spectators = talk_preferences(viewer.pk)
    rows = _of_game(game.pk).filter(id__gt=after)
    # The same rule as `wire.reaches`, in the query: a page is full when it can be.
    if hidden:
        rows = rows.exclude(sender_id__in=list(hidden))
    if hide_spectators:
        rows = rows.exclude(seat__isnull=True)
    newest = list(rows.order_by("-id")[:PAGE_SIZE])
    said = [wire.message_json(message, message.sender.name) for message in reversed(newest)]
    return [m for m in said if wire.reaches(m, hidden=hidden, hide_spectators=hide_spectators)]


def message_in(game_id: uuid.UUID, message_id: int) -> TableMessage | None:
    """The message `message_id` if it was said at `game_id`'s table."""
    return _of_game(game_id).filter(pk=message_id).first()


def messages_around(message: TableMessage) -> list[TableMessage]:
    """`message` and up to `CONTEXT_AROUND` messages of its table around it, half
    before and half after where there are enough, in order."""
    rows = _of_game(message.game_id)
    before = list(rows.filter(id__lt=message.pk).order_by("-id")[:CONTEXT_AROUND])
    after = list(rows.filter(id__gt=message.pk).order_by("id")[:CONTEXT_AROUND])
    half = CONTEXT_AROUND // 2
    after_count = min(len(after), max(half, CONTEXT_AROUND - len(before)))
    before_count = min(len(before), CONTEXT_AROUND - after_count)
    return [*reversed(before[:before_count]), message, *after[:after_count]]


def last_messages(game_id: uuid.UUID, count: int) -> list[TableMessage]:
    """The last `count` messages of a table, in order."""
    return list(reversed(_of_game(game_id).order_by("-id")[:count]))


def took_part(game: Game, player_id: uuid.UUID) -> Player | None:
    """The player `player_id`, if they hold or held a seat at `game` or said
    something at its table."""
    seated = Seat.objects.filter(game=game, player_id=player_id).exists()
    spoke = seated or TableMessage.objects.filter(game=game, sender_id=player_id).exists()
    return Player.objects.filter(pk=player_id).first() if spoke else None


def open_player_report(
    game_id: uuid.UUID, reporter_id: uuid.UUID, reported_id: uuid.UUID
) -> Report | None:
    """The reporter's open report of a player (not of a message) at this game."""
    return Report.objects.filter(
        game_id=game_id,
        reporter_id=reporter_id,
        reported_id=reported_id,
        message__isnull=True,
        status=ReportStatus.OPEN,
    ).first()


def message_report(reporter_id: uuid.UUID, message_id: int) -> Report | None:
    return Report.objects.filter(reporter_id=reporter_id, message_id=message_id).first()


def report_locked(report_id: int) -> Report:
    """The report, locked (``FOR UPDATE``) for the caller's transaction, with its
    players. `Report.DoesNotExist` when there is none."""
    return Report.objects.select_for_update().select_related("reported").get(pk=report_id)


def report_or_none(report_id: int) -> Report | None:
    return Report.objects.filter(pk=report_id).first()


def reports_queue() -> QuerySet[Report]:
    """Every report, for the staff's queue: each with its players and message read
    in the same query, and `queue_rank` (0 for an open one, else 1) to put the open
    ones first."""
    rank = Case(
        When(status=ReportStatus.OPEN, then=Value(0)), default=Value(1), output_field=IntegerField()
    )
    return Report.objects.select_related("reporter", "reported", "message").annotate(
        queue_rank=rank
    )


def messages_before(cutoff: dt.datetime) -> QuerySet[TableMessage]:
    return TableMessage.objects.filter(at__lt=cutoff)
