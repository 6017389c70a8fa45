"""What a player wants to be told while away: one switch per kind of notification."""

from __future__ import annotations

import uuid

from django.db import transaction

from players.models import NotificationSettings, Player
from players.push.notification import DEFAULT_SETTINGS, KINDS


def settings_json(row: NotificationSettings | None) -> dict[str, bool]:
    if row is None:
        return dict(DEFAULT_SETTINGS)
    return {kind: bool(getattr(row, kind)) for kind in KINDS}


def notification_settings(player_id: uuid.UUID | str) -> dict[str, bool]:
    """Every kind, on or off (the defaults for a player who never chose)."""
    return settings_json(NotificationSettings.objects.filter(player_id=player_id).first())


def wants(player_id: uuid.UUID | str, kind: str) -> bool:
    return notification_settings(player_id)[kind]


def notification_settings_update(
    *, player_id: uuid.UUID | str, changes: dict[str, bool]
) -> dict[str, bool]:
    """Switch the kinds in `changes` on or off, the others left as they are; returns
    every kind. Locks the player row."""
    unknown = set(changes) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown notification kinds {sorted(unknown)}")
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_id)
        row, _ = NotificationSettings.objects.get_or_create(player=player)
        for kind, on in changes.items():
            setattr(row, kind, on)
        row.save()
    return settings_json(row)
