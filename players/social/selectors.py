"""Reading who a player keeps close and who they keep away: friends, requests,
blocks and mutes. Other apps ask these (the games app: who may sit or talk together,
who is invited), so each answers in one query and in plain values: ids as text."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.db.models import Q

from players.models import Player
from players.social.models import Block, FriendRequest, Friendship, TalkMute


def _ids(values: Collection[Any]) -> list[Any]:
    # As text: the callers hold ids as text or as UUIDs alike.
    return [str(value) for value in values]


def friend_ids(player_id: Any) -> list[str]:
    """The ids of the player's friends (one indexed read of their own rows)."""
    rows = Friendship.objects.filter(player_id=player_id).values_list("friend_id", flat=True)
    return [str(friend) for friend in rows]


def are_friends(a_id: Any, b_id: Any) -> bool:
    return Friendship.objects.filter(player_id=a_id, friend_id=b_id).exists()


def blocked_either_way(a_id: Any, b_id: Any) -> bool:
    """Whether either player blocks the other."""
    return Block.objects.filter(
        Q(blocker_id=a_id, blocked_id=b_id) | Q(blocker_id=b_id, blocked_id=a_id)
    ).exists()


def blocked_pairs(player_ids: Collection[Any]) -> set[frozenset[str]]:
    """The pairs among `player_ids` with a block between them, either way, in one
    query."""
    ids = _ids(player_ids)
    if len(ids) < 2:
        return set()
    rows = Block.objects.filter(blocker_id__in=ids, blocked_id__in=ids).values_list(
        "blocker_id", "blocked_id"
    )
    return {frozenset((str(blocker), str(blocked))) for blocker, blocked in rows}


def blockers_among(player_id: Any, others: Collection[Any]) -> set[str]:
    """Those of `others` who block `player_id` or whom `player_id` blocks, in one
    query."""
    ids = _ids(others)
    if not ids:
        return set()
    rows = Block.objects.filter(
        Q(blocker_id=player_id, blocked_id__in=ids) | Q(blocked_id=player_id, blocker_id__in=ids)
    ).values_list("blocker_id", "blocked_id")
    me = str(player_id)
    return {str(blocked) if str(blocker) == me else str(blocker) for blocker, blocked in rows}


def hidden_from(viewer_id: Any) -> frozenset[str]:
    """The players whose table talk must not reach the viewer: those the viewer
    blocks, those who block the viewer, and those the viewer muted; one query."""
    rows = (
        Block.objects.filter(blocker_id=viewer_id)
        .values_list("blocked_id", flat=True)
        .union(
            Block.objects.filter(blocked_id=viewer_id).values_list("blocker_id", flat=True),
            TalkMute.objects.filter(player_id=viewer_id).values_list("muted_id", flat=True),
        )
    )
    return frozenset(str(player) for player in rows)


def talk_preferences(viewer_id: Any) -> tuple[frozenset[str], bool]:
    """What table talk the viewer reads: (`hidden_from`, whether they hide the
    spectators' emotes)."""
    hide = Player.objects.filter(pk=viewer_id).values_list("hide_spectator_emotes", flat=True)
    return hidden_from(viewer_id), bool(hide.first())


# -- the player's own lists ------------------------------------------------------------


def friendships_of(player_id: Any) -> list[Friendship]:
    """The player's friendships, each with its friend read in the same query."""
    return list(
        Friendship.objects.filter(player_id=player_id, friend__deleted_at__isnull=True)
        .select_related("friend")
        .order_by("since", "id")
    )


def requests_received(player_id: Any) -> list[FriendRequest]:
    """Friend requests waiting for the player's answer, oldest first, with their
    senders."""
    return list(
        FriendRequest.objects.filter(receiver_id=player_id, sender__deleted_at__isnull=True)
        .select_related("sender")
        .order_by("created_at", "id")
    )


def requests_sent(player_id: Any) -> list[FriendRequest]:
    """The player's friend requests not answered yet, oldest first, with their
    receivers."""
    return list(
        FriendRequest.objects.filter(sender_id=player_id, receiver__deleted_at__isnull=True)
        .select_related("receiver")
        .order_by("created_at", "id")
    )


def blocks_of(player_id: Any) -> list[Block]:
    """The players the player blocks, the latest first, with them."""
    return list(
        Block.objects.filter(blocker_id=player_id, blocked__deleted_at__isnull=True)
        .select_related("blocked")
        .order_by("-created_at", "-id")
    )


def mutes_of(player_id: Any) -> list[TalkMute]:
    """The players whose table talk the player muted, the latest first, with them."""
    return list(
        TalkMute.objects.filter(player_id=player_id, muted__deleted_at__isnull=True)
        .select_related("muted")
        .order_by("-created_at", "-id")
    )
