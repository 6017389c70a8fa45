"""A deleted account drops out of every social list: its friendships (both rows),
friend requests either way, blocks and mutes either way go, and its friend code
stops working (`players.signals.player_erased`, connected in `PlayersConfig.ready`)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Q

from players.models import Player
from players.social.models import Block, FriendRequest, Friendship, TalkMute


def on_player_erased(sender: Any, *, player: Player, **_: Any) -> None:
    player_social_erase(player_id=player.pk)


def player_social_erase(*, player_id: Any) -> int:
    """Delete every social row of the player, both ways, and their friend code;
    returns how many rows went. Locks the player row (its UPDATE)."""
    with transaction.atomic():
        Player.objects.filter(pk=player_id).update(friend_code=None)
        gone = 0
        for rows in (
            Friendship.objects.filter(Q(player_id=player_id) | Q(friend_id=player_id)),
            FriendRequest.objects.filter(Q(sender_id=player_id) | Q(receiver_id=player_id)),
            Block.objects.filter(Q(blocker_id=player_id) | Q(blocked_id=player_id)),
            TalkMute.objects.filter(Q(player_id=player_id) | Q(muted_id=player_id)),
        ):
            deleted, _ = rows.delete()
            gone += deleted
    return gone
