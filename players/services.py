"""Changes to players. The API, the admin and commands create players only here."""

from __future__ import annotations

import secrets
import uuid
from typing import Any

from django.db import transaction

from players.models import Player, hash_token
from unoservice.errors import InvalidRequest

MAX_NAME_LENGTH = 32


def clean_player_name(raw: object) -> str:
    """1-32 printable characters after trimming."""
    if not isinstance(raw, str):
        raise InvalidRequest(
            "name must be a string", details={"fields": {"name": ["not a string"]}}
        )
    name = raw.strip()
    if not 1 <= len(name) <= MAX_NAME_LENGTH or not name.isprintable():
        raise InvalidRequest(
            f"name must be 1-{MAX_NAME_LENGTH} printable characters",
            details={"fields": {"name": ["1-32 printable characters after trimming"]}},
        )
    return name


def player_create(*, name: str) -> tuple[Player, str]:
    """Create a guest player; returns it with its token, which is shown only this once.

    Locks nothing: it only inserts one row.
    """
    token = secrets.token_urlsafe(32)
    with transaction.atomic():
        player = Player.objects.create(name=clean_player_name(name), token_hash=hash_token(token))
    return player, token


def player_link_user(*, player_id: uuid.UUID | str, user: Any) -> Player:
    """Link a player to a Django user (or unlink, with None): a staff user's player
    reads complete logs. Locks the player row."""
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_id)
        player.user = user
        player.save(update_fields=["user"])
    return player
