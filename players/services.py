"""Changes to players. The API, the admin and commands create players only here."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from confusable_homoglyphs import confusables
from django.db import transaction
from django.utils import timezone

from players import sessions
from players.models import LeaderboardHiding, Player, PlayerSession, hash_token
from unoservice.errors import InvalidRequest, NotAuthenticated, NotFound, PlayerDisabled

log = logging.getLogger(__name__)

MAX_NAME_LENGTH = 32
# An operator's reason for an action on a player or a game, kept with it.
MAX_REASON_LENGTH = 200


LOOK_ALIKES = (
    "mixes scripts with letters that look alike (such as a Cyrillic \u0410 among Latin "
    "letters); write it in one script"
)


def clean_player_name(raw: object) -> str:
    """1-32 printable characters after trimming, not mixing scripts whose letters
    look alike (Unicode TR39's confusables: "Ann" spelt with a Cyrillic capital A
    would pass for another player's). A name in one script passes, with the digits,
    punctuation and emoji common to every script."""
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
    if confusables.is_dangerous(name):
        raise InvalidRequest(f"name {LOOK_ALIKES}", details={"fields": {"name": [LOOK_ALIKES]}})
    return name


def player_create(*, name: str, device: str = "", network: str = "") -> tuple[Player, str]:
    """Create a guest player, signed in on the device called `device` (used from
    `network`); returns it with the session's token, which is shown only this once.

    Locks nothing: it only inserts rows.
    """
    cleaned = clean_player_name(name)
    with transaction.atomic():
        player = Player.objects.create(name=cleaned)
        session, token = sessions.session_open(player=player, name=device, network=network)
    player.session = session
    return player, token


def player_rename(*, player_id: uuid.UUID | str, name: str) -> Player:
    """The player is known by `name` from now on (`clean_player_name`): in new games
    and on the leaderboard; the seats of games already under way keep the name they
    were taken with. Locks the player row."""
    cleaned = clean_player_name(name)
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_id)
        player.name = cleaned
        player.save(update_fields=["name"])
    return player


def player_link_user(*, player_id: uuid.UUID | str, user: Any) -> Player:
    """Link a player to a Django user (or unlink, with None): a staff user's player
    reads complete logs. Locks the player row."""
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_id)
        player.user = user
        player.save(update_fields=["user"])
    return player


def player_new_token(*, player_id: uuid.UUID | str, replacing: str) -> tuple[Player, str]:
    """Sign the player out everywhere: every session ends, `replacing` (the token
    the request came with) included, with their tickets and open streams, and one
    new session, named as the replaced one was, takes its place. Returns the player
    and the new token, shown only this once. Locks the player row.

    Requests with one token at once (a double click) were all authenticated before
    the first of them replaced it: under the lock, only the one that finds its token
    still a session of the player's replaces it; the others are refused as that
    token is now (`NotAuthenticated`), so no client is handed a token already
    replaced."""
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_id)
        if player.disabled_at is not None:
            raise PlayerDisabled("this player is disabled")
        replaced = PlayerSession.objects.filter(
            player=player, token_hash=hash_token(replacing)
        ).first()
        if replaced is None:
            raise NotAuthenticated("this token was replaced by a new one")
        sessions.end_every_session(player)
        player.session, token = sessions.session_open(
            player=player, name=replaced.name, network=replaced.network
        )
    return player, token


def player_disable(*, player_id: uuid.UUID | str, by: str, reason: str = "") -> Player:
    """An operator (`by`, their username) disables the player: every request with any
    of their tokens is refused (401 player_disabled), their tickets and open streams end.
    Disabling a disabled player changes nothing. Locks the player row."""
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_id)
        if player.disabled_at is None:
            player.disabled_at = timezone.now()
            player.disabled_by = by
            player.disabled_reason = reason.strip()[:MAX_REASON_LENGTH]
            player.save(update_fields=["disabled_at", "disabled_by", "disabled_reason"])
        held = PlayerSession.objects.filter(player=player).values_list("token_hash", flat=True)
        sessions.revoke(player, held)
    log.info("player %s disabled by %s", player.pk, player.disabled_by)
    return player


def player_enable(*, player_id: uuid.UUID | str, by: str) -> Player:
    """An operator (`by`) enables a disabled player again: their sessions' tokens
    work again.
    The record of the disabling goes; the admin's history keeps who enabled them.
    Locks the player row."""
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_id)
        player.disabled_at = None
        player.disabled_by = ""
        player.disabled_reason = ""
        player.save(update_fields=["disabled_at", "disabled_by", "disabled_reason"])
    log.info("player %s enabled by %s", player.pk, by)
    return player


def clean_reason(raw: object) -> str:
    """An operator's reason: 1-200 printable characters after trimming. Required:
    every operator action on ratings says why."""
    reason = raw.strip() if isinstance(raw, str) else ""
    if not 1 <= len(reason) <= MAX_REASON_LENGTH or not reason.isprintable():
        raise InvalidRequest(
            f"a reason of 1-{MAX_REASON_LENGTH} printable characters is required",
            details={"fields": {"reason": ["1-200 printable characters after trimming"]}},
        )
    return reason


def leaderboard_hide(*, player_id: uuid.UUID | str, hidden: bool, by: Any, reason: str) -> Player:
    """Hide a player from the leaderboard (`hidden`), or show them again, for the staff
    user `by`, who says why: recorded as a `LeaderboardHiding` with the time. Their
    rating still moves with their games, and their profile shows it, without a
    rank. Hiding a hidden player (or showing a shown one) changes nothing but is
    recorded all the same. Locks the player row."""
    reason = clean_reason(reason)
    with transaction.atomic():
        player = Player.objects.select_for_update().filter(pk=player_id).first()
        if player is None:
            raise NotFound("no such player")
        player.leaderboard_hidden = hidden
        player.save(update_fields=["leaderboard_hidden"])
        LeaderboardHiding.objects.create(
            player=player,
            hidden=hidden,
            by=by,
            by_username=by.get_username(),
            at=timezone.now(),
            reason=reason,
        )
    return player
