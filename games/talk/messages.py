"""Saying something at a game's table: a quick phrase, an emote, or free text.

A message is not a change of its game: it neither locks the game's row nor touches
its version, log or seqs, so a move made with the version read before a message is
still current. The row is inserted and told to the live layer (`wire.announce`) in
one transaction."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.models import Game, GameStatus
from games.talk import limits, selectors, wire
from games.talk.catalogue import EMOTES, PHRASES
from games.talk.masking import MAX_TEXT_LENGTH, masked
from games.talk.models import MessageKind, TableMessage
from players.models import Player
from unoservice.errors import (
    Forbidden,
    FreeTextOff,
    InvalidRequest,
    TalkMuted,
    WrongPhaseError,
)

# What free text is once the whitespace around it is trimmed.
MIN_TEXT_LENGTH = 1


def text_problem(raw: str) -> str | None:
    """Why `raw` cannot be said as free text, or None: 1-`MAX_TEXT_LENGTH` printable
    characters once the whitespace around them is trimmed (no control, format or
    separator characters but the plain space, so nothing a reader cannot see)."""
    text = raw.strip()
    if not MIN_TEXT_LENGTH <= len(text) <= MAX_TEXT_LENGTH:
        return f"{MIN_TEXT_LENGTH}-{MAX_TEXT_LENGTH} characters once trimmed"
    if not text.isprintable():
        return "printable characters only (no control characters, tabs or line breaks)"
    return None


def _muted(player: Player) -> None:
    until = player.talk_muted_until
    if until is not None and until > timezone.now():
        raise TalkMuted(
            "staff muted your table talk for now",
            details={"until": until.isoformat(), "reason": player.talk_muted_reason},
        )


def _content(kind: str, code: str, text: str) -> tuple[str, str, str]:
    """(code, what readers see, what was typed) of a message, or `InvalidRequest`
    naming the field."""
    if kind == MessageKind.PHRASE:
        if code not in PHRASES:
            raise InvalidRequest(
                f"no such phrase: {code[:40]!r}", details={"fields": {"phrase": ["no such phrase"]}}
            )
        return code, PHRASES[code], ""
    if kind == MessageKind.EMOTE:
        if code not in EMOTES:
            raise InvalidRequest(
                f"no such emote: {code[:40]!r}", details={"fields": {"emote": ["no such emote"]}}
            )
        return code, EMOTES[code], ""
    if kind != MessageKind.TEXT:
        raise InvalidRequest(f"no such kind of message: {kind[:40]!r}")
    problem = text_problem(text)
    if problem is not None:
        raise InvalidRequest(f"text: {problem}", details={"fields": {"text": [problem]}})
    typed = text.strip()
    return "", masked(typed), typed


def message_send(
    *, game: Game, player: Player, kind: str, code: str = "", text: str = ""
) -> dict[str, Any]:
    """`player` says a phrase (`code`), an emote (`code`) or free `text` at `game`'s
    table; returns the message as every reader sees it (`wire.message_json`).

    `game` is one the caller may see (the view admitted it: a private game's
    spectator showed its code). Seated players say anything the table allows;
    anyone else watches, and sends emotes only. Free text only where the game's
    `free_text` is on, masked for readers (the typed words kept for staff). Refused
    while staff mute the player (`talk_muted`), in an abandoned game, and past
    `TALK_MESSAGES_PER_WINDOW` per window at this table (`RateLimited`).

    Locks nothing: a message changes no game (neither its version nor its log), so
    the game's row is only read. Inserts the message and announces it on commit."""
    code, shown, typed = _content(kind, code, text)
    if game.status == GameStatus.ABANDONED:
        raise WrongPhaseError("the game was abandoned: its table is closed")
    _muted(player)
    seat = game.seat_of(player)
    if seat is None and kind != MessageKind.EMOTE:
        raise Forbidden("spectators send emotes only")
    if kind == MessageKind.TEXT and not game.free_text:
        raise FreeTextOff("this table takes quick phrases and emotes only")
    # Last, so that only messages said are counted.
    limits.count_message(player_id=player.pk, game_id=game.pk)
    with transaction.atomic():
        message = TableMessage.objects.create(
            game=game, sender=player, seat=seat, kind=kind, code=code, text=shown, typed=typed
        )
        said = wire.message_json(message, player.name)
        wire.announce(game.pk, said)
    return said


def table_talk_purge(*, now: dt.datetime | None = None) -> int:
    """Delete the messages said more than `TALK_KEPT_DAYS` before `now` (reports keep
    their own copies); returns how many went. Locks nothing but the rows deleted."""
    cutoff = (now or timezone.now()) - dt.timedelta(days=settings.TALK_KEPT_DAYS)
    with transaction.atomic():
        deleted, _ = selectors.messages_before(cutoff).delete()
    return deleted
