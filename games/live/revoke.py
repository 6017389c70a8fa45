"""Some of a player's tokens stopped working (`players.signals.token_revoked`): their
unused stream tickets go, and, when the change commits, every server process hears
it (`games.services.notify`) and ends the player's streams opened with those tokens
(`games.live.hub`). Without PostgreSQL, each hub's next catch-up finds it."""

from __future__ import annotations

from typing import Any

from django.db import connection

from games.models import StreamTicket
from games.services import notify
from players.models import Player


def on_token_revoked(
    sender: object, *, player: Player, token_hashes: list[str], **kwargs: Any
) -> None:
    # A session signed out took its tickets with it; a disabled player's stay.
    StreamTicket.objects.filter(
        player=player, session__token_hash__in=token_hashes, used_at__isnull=True
    ).delete()
    if connection.vendor == "postgresql":
        call, params = notify.revoke_expression(player.pk, token_hashes)
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {call}", params)
