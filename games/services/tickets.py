"""Stream tickets: single-use, short-lived keys that open a stream from a browser's
EventSource, which cannot send a bearer token."""

from __future__ import annotations

import datetime as dt
import secrets
import uuid

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from games.models import StreamTicket
from players.models import Player, hash_token
from unoservice.errors import NotFound

STREAM_TICKET_LIFETIME = dt.timedelta(seconds=60)


def stream_ticket_issue(*, game_id: uuid.UUID | None, player: Player) -> tuple[str, dt.datetime]:
    """A ticket that opens `player`'s stream of the game (or, with no game, their
    lobby stream), signed in with the session `player` signed in with, once, within
    60 seconds (returned with its expiry; only its hash
    is kept). Locks nothing: it inserts, without reading the game first (the caller
    read it to check that the player may see it); `NotFound` when no such game is
    there for the row to name."""
    ticket = secrets.token_urlsafe(32)
    expires_at = timezone.now() + STREAM_TICKET_LIFETIME
    try:
        with transaction.atomic():
            StreamTicket.objects.create(
                ticket_hash=hash_token(ticket),
                player=player,
                session=player.session,
                game_id=game_id,
                expires_at=expires_at,
            )
    except IntegrityError:
        raise NotFound("no such game") from None
    return ticket, expires_at


def stream_tickets_purge() -> int:
    """Delete the tickets that expired (used or not); returns how many went. Locks
    nothing: it only deletes rows no one can use any more."""
    deleted, _ = StreamTicket.objects.filter(expires_at__lt=timezone.now()).delete()
    return deleted


def stream_ticket_redeem(*, ticket: str, game_id: uuid.UUID | None) -> Player | None:
    """The player of an unused, unexpired ticket for this game (None: a lobby
    stream's ticket), signed in with the session that asked for it
    (`Player.session`), marking it used; None for any other ticket. One UPDATE: two
    uses at once cannot both succeed."""
    now = timezone.now()
    with transaction.atomic():
        for_stream = Q(game__isnull=True) if game_id is None else Q(game_id=game_id)
        used = StreamTicket.objects.filter(
            for_stream,
            ticket_hash=hash_token(ticket),
            session__isnull=False,
            used_at__isnull=True,
            expires_at__gt=now,
        ).update(used_at=now)
        if used != 1:
            return None
        redeemed = StreamTicket.objects.select_related("player", "session").get(
            ticket_hash=hash_token(ticket)
        )
    player = redeemed.player
    player.session = redeemed.session
    return player
