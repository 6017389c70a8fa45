"""A player's token stopped working (`players.signals.token_revoked`): their unused
stream tickets go, and, when the change commits, every server process hears it
(`games.services.notify`) and ends the player's streams opened with any other token
(`games.live.hub`). Without PostgreSQL, each hub's next catch-up finds it."""

from __future__ import annotations

from typing import Any

from django.db import connection

from games.models import StreamTicket
from games.services import notify
from players.models import Player


def on_token_revoked(
    sender: object, *, player: Player, kept_token_hash: str | None, **kwargs: Any
) -> None:
    StreamTicket.objects.filter(player=player, used_at__isnull=True).delete()
    if connection.vendor == "postgresql":
        call, params = notify.revoke_expression(player.pk, kept_token_hash)
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {call}", params)
