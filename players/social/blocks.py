"""Blocks: a player keeps another away. A block ends their friendship and every
friend request between them, either way; from then on neither finds the other
(requests and invites are answered as for a player who does not exist), they are
never seated together by quick match, neither joins a game the other sits in, and
no table talk of one reaches the other."""

from __future__ import annotations

import uuid

from django.db import transaction
from django.db.models import Q

from players.social.common import lock_other
from players.social.models import Block, FriendRequest, Friendship
from unoservice import notices
from unoservice.errors import TooManyBlocks

# Players one player may block.
MAX_BLOCKS = 1000


def block_add(*, player_id: uuid.UUID, blocked_id: uuid.UUID) -> bool:
    """The player blocks `blocked_id`, ending their friendship and their friend
    requests either way; returns whether the block is new (blocking again changes
    nothing). `InvalidRequest` for oneself; `NotFound` for no such player or a
    deleted one; `TooManyBlocks` at `MAX_BLOCKS`. Locks both players' rows, in the
    order of their ids."""
    with transaction.atomic():
        me, other = lock_other(player_id, blocked_id, "block")
        if Block.objects.filter(blocker=me, blocked=other).exists():
            return False
        if Block.objects.filter(blocker=me).count() >= MAX_BLOCKS:
            raise TooManyBlocks(
                f"you block {MAX_BLOCKS} players already; unblock some first",
                details={"limit": MAX_BLOCKS},
            )
        Block.objects.create(blocker=me, blocked=other)
        ended, _ = Friendship.objects.filter(
            Q(player=me, friend=other) | Q(player=other, friend=me)
        ).delete()
        if ended:  # neither's lobby follows the other's presence any more
            notices.friends_changed(me.pk, other.pk)
        FriendRequest.objects.filter(
            Q(sender=me, receiver=other) | Q(sender=other, receiver=me)
        ).delete()
        # Neither reads the other's table talk any more, from the next message on.
        notices.talk_changed(me.pk, other.pk)
    return True


def block_remove(*, player_id: uuid.UUID, blocked_id: uuid.UUID) -> bool:
    """The player unblocks `blocked_id` (what the block ended stays ended); returns
    whether there was a block. Locks nothing (one DELETE)."""
    with transaction.atomic():
        gone, _ = Block.objects.filter(blocker_id=player_id, blocked_id=blocked_id).delete()
        if gone:
            notices.talk_changed(player_id, blocked_id)
    return bool(gone)
