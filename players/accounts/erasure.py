"""Deleting an account, and what the service holds about a player, as JSON.

Deleting erases the player's personal data at once: the name becomes a placeholder,
emails, identities, password, sessions, push devices and notification settings go,
and the player leaves the leaderboard. The player's row stays (with its random id)
under the placeholder, so that the games they played keep whole logs: the games app
takes them out of their open games and puts the placeholder in their seats
(`players.signals.player_erased`). Their ratings stay with the results other
players' ratings were computed from."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.utils import timezone

from players import sessions, standings
from players.accounts.proofs import Proof, prove_own
from players.models import (
    Device,
    EmailCode,
    Identity,
    NotificationSettings,
    Player,
    PlayerSession,
)
from players.push import preferences
from players.serializers import stats_json
from players.signals import player_erased
from unoservice.errors import CredentialsRefused, NotAuthenticated

DELETED_NAME = "Deleted player"


def account_delete(
    *, player_id: uuid.UUID | str, proof: Proof | None, meta: Mapping[str, Any]
) -> None:
    """Delete the player's account. A player with a linked identity confirms with a
    fresh proof of one (a code, the password, an ID token); a guest with none is
    proven by the token alone, the one thing that is theirs. Locks the player row;
    then the games app leaves and anonymises their games, each game row locked in
    turn (`player_erased`, once the player's change is committed)."""
    player = Player.objects.get(pk=player_id)
    if Identity.objects.filter(player=player).exists():
        if proof is None:
            raise CredentialsRefused(
                "confirm with a code sent to your email address, your password or a new ID token",
                details={"reason": "proof_required"},
            )
        prove_own(player, proof, meta=meta)
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_id)
        if player.deleted_at is not None:
            raise NotAuthenticated("this account was deleted")
        emails = list(Identity.objects.filter(player=player).values_list("email", flat=True))
        EmailCode.objects.filter(email__in=[e for e in emails if e]).delete()
        Identity.objects.filter(player=player).delete()
        Device.objects.filter(player=player).delete()
        NotificationSettings.objects.filter(player=player).delete()
        sessions.end_every_session(player)
        player.name = DELETED_NAME
        player.password = ""
        player.deleted_at = timezone.now()
        player.save(update_fields=["name", "password", "deleted_at"])
        # The staff's history of the player names them as they were.
        LogEntry.objects.filter(
            content_type=ContentType.objects.get_for_model(Player), object_id=str(player.pk)
        ).update(object_repr=str(player)[:200])
    player_erased.send(sender=Player, player=player)


def account_export(player: Player) -> dict[str, Any]:
    """Everything the service holds about `player` that is theirs, as JSON: the
    account, its identities, sessions, push devices and settings, the rating and
    the games played (their logs are read through the games' own endpoints)."""
    found = standings.player_standing(player)
    return {
        "player": {
            "id": str(player.pk),
            "name": player.name,
            "created_at": player.created_at.isoformat(),
            "password_set": bool(player.password),
            "stats": stats_json(player),
            "rating": found.rating,
        },
        "identities": [
            {
                "kind": identity.kind,
                "subject": identity.subject,
                "email": identity.email,
                "created_at": identity.created_at.isoformat(),
                "last_used_at": _iso(identity.last_used_at),
            }
            for identity in Identity.objects.filter(player=player)
        ],
        "sessions": [
            {
                "id": str(session.pk),
                "device": session.name,
                "created_at": session.created_at.isoformat(),
                "last_used_at": session.last_used_at.isoformat(),
                "network": session.network,
            }
            for session in PlayerSession.objects.filter(player=player)
        ],
        "devices": [
            {
                "kind": device.kind,
                "label": device.label,
                "created_at": device.created_at.isoformat(),
                "last_used_at": _iso(device.last_used_at),
            }
            for device in Device.objects.filter(player=player)
        ],
        "notifications": preferences.notification_settings(player.pk),
        "games": [
            {"id": str(game_id), "seat": seat, "created_at": created.isoformat()}
            for game_id, seat, created in player.seats.order_by("joined_at").values_list(
                "game_id", "seat", "game__created_at"
            )
        ],
    }


def _iso(moment: Any) -> str | None:
    return None if moment is None else moment.isoformat()
