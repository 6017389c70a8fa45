"""Friends: friend codes, requests sent, accepted, declined or cancelled, and
friendships ended.

A friendship is two rows, one from each side (`Friendship`), made together when a
request is accepted, or when two players ask each other. Every service that touches
two players locks both rows first, in the order of their ids (`common.lock_pair`),
and counts the caps under those locks, so that requests at once are counted one
after the other. A player blocked either way, deleted or disabled is answered as one
that does not exist. What the other player should hear goes to their lobby streams
as a note (`unoservice.notices.note`) in the same transaction, so it is sent exactly
when the change commits."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from players.models import Player
from players.social.common import NO_SUCH_PLAYER, lock_pair, not_self, player_ref, reachable
from players.social.models import Block, FriendRequest, Friendship
from unoservice import codes, notices
from unoservice.errors import NotFound, TooManyFriendRequests, TooManyFriends

# Friends one player may have: a circle, not an audience.
MAX_FRIENDS = 500
# Friend requests one player may have waiting for an answer.
MAX_PENDING_SENT = 100
# Draws of a friend code before giving up (a collision is one in 8.5e11 per player).
_CODE_DRAWS = 5

# The web client's page that sends a friend request to the code's player.
FRIEND_LINK_PREFIX = "/play/friends/"
REQUESTED = "requested"
FRIENDS = "friends"


@dataclass(frozen=True)
class Asked:
    """What a friend request came to: the other player, `status` (requested or
    friends), and whether the answer is a new request (201) or not (200)."""

    player: Player
    status: str
    created: bool


# -- friend codes ----------------------------------------------------------------------


def friend_code_get(*, player_id: uuid.UUID) -> str:
    """The player's friend code, drawn the first time it is asked for. Locks the
    player row only when it draws one."""
    code = Player.objects.filter(pk=player_id).values_list("friend_code", flat=True).first()
    if code:
        return code
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_id)
        if player.friend_code:
            return player.friend_code
        return _draw_code(player)


def friend_link(code: str) -> str:
    """The web client's path that opens a friend request to the code's player."""
    return FRIEND_LINK_PREFIX + code


def friend_code_renew(*, player_id: uuid.UUID) -> str:
    """A new friend code for the player; the old one stops working at once. Locks the
    player row."""
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_id)
        return _draw_code(player)


def _draw_code(player: Player) -> str:
    """Give the locked `player` a fresh code, drawn again in a savepoint when it is
    someone else's already."""
    for _ in range(_CODE_DRAWS):
        player.friend_code = codes.new_code()
        try:
            with transaction.atomic():
                player.save(update_fields=["friend_code"])
        except IntegrityError:
            continue
        return player.friend_code
    raise RuntimeError("no free friend code drawn")  # pragma: no cover


def player_by_code(typed: str) -> Player:
    """The player whose friend code `typed` is (read as `codes.read_code` reads it);
    `NotFound` for none."""
    code = codes.read_code(typed)
    player = None if code is None else Player.objects.filter(friend_code=code).first()
    if player is None:
        raise NotFound("no player has this friend code")
    return player


# -- requests ----------------------------------------------------------------------------


def friend_request_send(
    *, player_id: uuid.UUID, to: uuid.UUID | None = None, code: str | None = None
) -> Asked:
    """The player asks another (`to`, an id, or the player whose friend `code` it is)
    to be friends. When the other had asked the player already, they become friends
    at once; when they are friends already, nothing changes; a request sent again
    stays the one request. `InvalidRequest` for oneself; `NotFound` for no such
    player, a deleted or disabled one, or a block either way; `TooManyFriends` when
    either has `MAX_FRIENDS`; `TooManyFriendRequests` at `MAX_PENDING_SENT` requests
    waiting. Notes the other: `friend_request`, or `friend_accepted` when it made
    them friends. Locks both players' rows, in the order of their ids."""
    target_id = player_by_code(code).pk if code is not None else to
    if target_id is None:
        raise NotFound(NO_SUCH_PLAYER)
    not_self(player_id, target_id, "send a friend request to")
    with transaction.atomic():
        me, other = lock_pair(player_id, target_id)
        other = reachable(other)
        if _blocked(me.pk, other.pk):
            raise NotFound(NO_SUCH_PLAYER)
        if Friendship.objects.filter(player=me, friend=other).exists():
            return Asked(other, FRIENDS, created=False)
        if FriendRequest.objects.filter(sender=other, receiver=me).exists():
            _befriend(me, other)
            return Asked(other, FRIENDS, created=False)
        if FriendRequest.objects.filter(sender=me, receiver=other).exists():
            return Asked(other, REQUESTED, created=False)
        _check_friend_caps(me, other)
        if FriendRequest.objects.filter(sender=me).count() >= MAX_PENDING_SENT:
            raise TooManyFriendRequests(
                f"you have {MAX_PENDING_SENT} friend requests waiting for an answer; "
                "cancel some first",
                details={"limit": MAX_PENDING_SENT},
            )
        FriendRequest.objects.create(sender=me, receiver=other)
        notices.note(other.pk, "friend_request", {"from": player_ref(me)})
    return Asked(other, REQUESTED, created=True)


def friend_request_accept(*, player_id: uuid.UUID, sender_id: uuid.UUID) -> Player:
    """The player accepts `sender_id`'s friend request: they are friends, and the
    sender hears it (`friend_accepted`). Returns the sender. `NotFound` when no such
    request waits; `TooManyFriends` when either has `MAX_FRIENDS`. Locks both
    players' rows, in the order of their ids."""
    with transaction.atomic():
        me, sender = lock_pair(player_id, sender_id)
        asked = FriendRequest.objects.filter(sender_id=sender_id, receiver=me).exists()
        if sender is None or not asked:
            raise NotFound("no friend request from this player")
        sender = reachable(sender)
        _befriend(me, sender)
    return sender


def friend_request_decline(*, player_id: uuid.UUID, sender_id: uuid.UUID) -> None:
    """The player declines `sender_id`'s friend request, which goes without a word to
    the sender. `NotFound` when none waits. Locks nothing (one DELETE)."""
    with transaction.atomic():
        gone, _ = FriendRequest.objects.filter(sender_id=sender_id, receiver_id=player_id).delete()
    if not gone:
        raise NotFound("no friend request from this player")


def friend_request_cancel(*, player_id: uuid.UUID, receiver_id: uuid.UUID) -> None:
    """The player takes back their request to `receiver_id`. `NotFound` when none
    waits. Locks nothing (one DELETE)."""
    with transaction.atomic():
        gone, _ = FriendRequest.objects.filter(
            sender_id=player_id, receiver_id=receiver_id
        ).delete()
    if not gone:
        raise NotFound("no friend request of yours to this player")


def friend_remove(*, player_id: uuid.UUID, friend_id: uuid.UUID) -> None:
    """The player ends their friendship with `friend_id` (both rows; the other is not
    told). `NotFound` when they are not friends. Locks both players' rows, in the
    order of their ids."""
    with transaction.atomic():
        lock_pair(player_id, friend_id)
        gone, _ = Friendship.objects.filter(
            Q(player_id=player_id, friend_id=friend_id)
            | Q(player_id=friend_id, friend_id=player_id)
        ).delete()
        if gone:
            notices.friends_changed(player_id, friend_id)
    if not gone:
        raise NotFound("this player is not your friend")


# -- helpers that expect the caller's locks ----------------------------------------------


def _blocked(a_id: Any, b_id: Any) -> bool:
    return Block.objects.filter(
        Q(blocker_id=a_id, blocked_id=b_id) | Q(blocker_id=b_id, blocked_id=a_id)
    ).exists()


def _check_friend_caps(me: Player, other: Player) -> None:
    """`TooManyFriends` when either player has `MAX_FRIENDS`. Expects both rows
    locked."""
    for who, whose in ((me, "you have"), (other, "this player has")):
        if Friendship.objects.filter(player=who).count() >= MAX_FRIENDS:
            raise TooManyFriends(
                f"{whose} {MAX_FRIENDS} friends already", details={"limit": MAX_FRIENDS}
            )


def _befriend(me: Player, other: Player) -> None:
    """Make `me` and `other` friends (both rows), their requests either way gone, and
    tell `other`. Expects both rows locked."""
    _check_friend_caps(me, other)
    FriendRequest.objects.filter(
        Q(sender=me, receiver=other) | Q(sender=other, receiver=me)
    ).delete()
    now = timezone.now()
    Friendship.objects.bulk_create(
        [
            Friendship(player=me, friend=other, since=now),
            Friendship(player=other, friend=me, since=now),
        ]
    )
    notices.note(other.pk, "friend_accepted", {"friend": player_ref(me)})
    notices.friends_changed(me.pk)
