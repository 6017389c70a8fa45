"""Players reporting a message, or a player, of a game to staff. What was said is
copied into the report (the message and those around it), since messages are
deleted after `TALK_KEPT_DAYS` and staff may read the report later."""

from __future__ import annotations

import uuid
from typing import Any

from django.db import IntegrityError, transaction

from games.models import Game
from games.talk import selectors
from games.talk.models import Report, TableMessage
from players.models import Player
from unoservice.errors import InvalidRequest, NotFound

MAX_NOTE_LENGTH = 500


def context_json(messages: list[TableMessage], *, marked: Any) -> list[dict[str, Any]]:
    """Messages as staff read them in a report: `marked(message)` says which were
    reported."""
    return [
        {
            "id": message.pk,
            "at": message.at.isoformat(),
            "seat": message.seat,
            "name": message.sender.name,
            "sender": str(message.sender_id),
            "text": message.text,
            "typed": message.typed,
            "reported": bool(marked(message)),
        }
        for message in messages
    ]


def report_file(
    *,
    game: Game,
    reporter: Player,
    reason: str,
    message_id: int | None = None,
    player_id: uuid.UUID | None = None,
    note: str = "",
) -> tuple[Report, bool]:
    """`reporter` reports a message of `game` (`message_id`) or one of its players
    (`player_id`) for `reason`; returns the report and whether it is new.

    `game` is one the reporter may see (the view admitted it). The message must have
    been said at this table, the player must hold or have held a seat there or have
    said something there (else `NotFound`); nobody reports themselves. The same
    message reported again by the same reader is the same report; so is a player
    reported again at the same game while the first report is open.

    Locks nothing: the unique constraint on (reporter, message) settles two reports
    of one message at once (the second finds the first)."""
    if (message_id is None) == (player_id is None):
        raise InvalidRequest("report either a message or a player")
    message = None
    if message_id is not None:
        message = selectors.message_in(game.pk, message_id)
        if message is None:
            raise NotFound("no such message at this table")
        reported_id = message.sender_id
    else:
        assert player_id is not None
        player = selectors.took_part(game, player_id)
        if player is None:
            raise NotFound("no such player at this table")
        reported_id = player.pk
    if reported_id == reporter.pk:
        raise InvalidRequest("you cannot report yourself")
    if message is not None:
        found = selectors.message_report(reporter.pk, message.pk)
        around = selectors.messages_around(message)
        context = context_json(around, marked=lambda m: m.pk == message.pk)
    else:
        found = selectors.open_player_report(game.pk, reporter.pk, reported_id)
        recent = selectors.last_messages(game.pk, selectors.CONTEXT_AROUND + 1)
        context = context_json(recent, marked=lambda m: m.sender_id == reported_id)
    if found is not None:
        return found, False
    try:
        with transaction.atomic():
            report = Report.objects.create(
                game=game,
                reporter=reporter,
                reported_id=reported_id,
                message=message,
                reason=reason,
                note=note.strip()[:MAX_NOTE_LENGTH],
                context=context,
            )
    except IntegrityError:
        # The same message reported at the same moment by the same reader.
        assert message is not None
        again = selectors.message_report(reporter.pk, message.pk)
        if again is None:
            raise
        return again, False
    return report, True
