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


def talk_preferences(viewer_id: Any) -> tuple[frozenset[str], bool]:
    """What table talk the viewer reads: (the players hidden from them, whether they
    hide the spectators' emotes). Hidden are those the viewer blocks, those who
    block the viewer, and those the viewer muted."""
    return talk_preferences_of([viewer_id])[str(viewer_id)]


def talk_preferences_of(viewer_ids: Collection[Any]) -> dict[str, tuple[frozenset[str], bool]]:
    """`talk_preferences` of each viewer (by id as text), in two queries however many
    they are: the streams of a game read their readers' together."""
    ids = _ids(viewer_ids)
    if not ids:
        return {}
    hidden: dict[str, set[str]] = {viewer: set() for viewer in ids}
    # (viewer, a player hidden from them): whom they block, who blocks them, whom
    # they muted.
    rows = (
        Block.objects.filter(blocker_id__in=ids)
        .values_list("blocker_id", "blocked_id")
        .union(
            Block.objects.filter(blocked_id__in=ids).values_list("blocked_id", "blocker_id"),
            TalkMute.objects.filter(player_id__in=ids).values_list("player_id", "muted_id"),
            all=True,
        )
    )
    for viewer, other in rows:
        hidden.setdefault(str(viewer), set()).add(str(other))
    hides = Player.objects.filter(pk__in=ids).values_list("pk", "hide_spectator_emotes")
    hiding = {str(player) for player, hide in hides if hide}
    return {viewer: (frozenset(hidden[viewer]), viewer in hiding) for viewer in ids}


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
