"""Table-talk preferences: the players whose table talk a player mutes (lighter than
a block: nothing else changes, and the muted player is not told), and whether they
hide spectators' emotes."""

from __future__ import annotations

import uuid

from django.db import transaction

from players.models import Player
from players.social.common import lock_other
from players.social.models import TalkMute
from unoservice import notices
from unoservice.errors import TooManyMutes

# Players one player may mute.
MAX_MUTES = 1000


def mute_add(*, player_id: uuid.UUID, muted_id: uuid.UUID) -> bool:
    """The player mutes `muted_id`'s table talk; returns whether the mute is new
    (muting again changes nothing). `InvalidRequest` for oneself; `NotFound` for no
    such player or a deleted one; `TooManyMutes` at `MAX_MUTES`. Locks both
    players' rows, in the order of their ids."""
    with transaction.atomic():
        me, other = lock_other(player_id, muted_id, "mute")
        if TalkMute.objects.filter(player=me, muted=other).exists():
            return False
        if TalkMute.objects.filter(player=me).count() >= MAX_MUTES:
            raise TooManyMutes(
                f"you mute {MAX_MUTES} players already; unmute some first",
                details={"limit": MAX_MUTES},
            )
        TalkMute.objects.create(player=me, muted=other)
        notices.talk_changed(me.pk)
    return True


def mute_remove(*, player_id: uuid.UUID, muted_id: uuid.UUID) -> bool:
    """The player reads `muted_id`'s table talk again; returns whether they had muted
    it. Locks nothing (one DELETE)."""
    with transaction.atomic():
        gone, _ = TalkMute.objects.filter(player_id=player_id, muted_id=muted_id).delete()
        if gone:
            notices.talk_changed(player_id)
    return bool(gone)


def spectator_emotes_hide(*, player_id: uuid.UUID, hide: bool) -> Player:
    """Whether the player hides spectators' emotes at the tables they read; returns
    the player. Locks the player row."""
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_id)
        player.hide_spectator_emotes = hide
        player.save(update_fields=["hide_spectator_emotes"])
        notices.talk_changed(player.pk)
    return player
