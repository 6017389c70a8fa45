"""Invites of friends to a game: a seated player asks a friend to a waiting game that
has room. The invite is stored (`GameInvite`: it lets the friend see the game and
join it without its code, `games.privacy`), told on the friend's lobby stream (a
note, `unoservice.notices`) and pushed to their devices, a lobby stream open or not."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from games.models import Game, GameStatus, Visibility, player_ref
from games.notifications import KIND_TTL, game_path
from games.services.common import _lock_game_for
from games.talk.models import GameInvite
from players import push
from players.models import Player
from players.social import selectors as social
from unoservice import notices
from unoservice.errors import (
    AlreadySeated,
    Forbidden,
    GameFull,
    InvalidRequest,
    NotFriends,
    TooManyInvites,
    WrongPhaseError,
)

# Invites one game may have sent (each to another friend): a table seats 10 at most,
# so that many is far beyond a host's needs, and bounds what one game can ring.
MAX_INVITES_PER_GAME = 50
# An invite sent again is told again (note and push) once this long has passed.
RESEND_AFTER = dt.timedelta(minutes=1)
# Friends a rematch request may invite at once.
MAX_REMATCH_INVITES = 10


@dataclass(frozen=True)
class Invited:
    """What `game_invite` did: the invite as stored, and whether it is new."""

    invite: GameInvite
    created: bool


def game_invite(*, game_id: uuid.UUID, player: Player, friend_id: str) -> Invited:
    """`player`, seated in the waiting game `game_id`, invites their friend
    `friend_id` to it: the invite is stored and told to the friend (`_invite`).
    Inviting the same friend again answers the stored invite, told again once
    `RESEND_AFTER` has passed since it last was. Locks the game row (a private game
    the player may not see does not exist for them), then reads the friends."""
    with transaction.atomic():
        game = _lock_game_for(game_id, player)
        if game.seat_of(player) is None:
            raise Forbidden("you hold no seat in this game")
        return _invite(game, player, _player_id(friend_id))


def invite_to_rematch(game: Game, by: Player, friend_ids: Sequence[str]) -> None:
    """Invite each of `friend_ids` to the locked rematch `game`, which `by` sits in,
    in the caller's transaction (`game_rematch`): a friend who already sits there is
    left out, and so is everyone once the game is full or has started (the rematch
    itself is what the caller asked for). Anyone who is not `by`'s friend refuses the
    whole request (`NotFriends`)."""
    for friend_id in dict.fromkeys(_player_id(friend) for friend in friend_ids):
        if game.status != GameStatus.WAITING or len(game.seating) >= game.max_players:
            return
        if friend_id in game.human_player_ids():
            continue
        _invite(game, by, friend_id)


def _player_id(typed: str) -> str:
    """A player's id as the database writes it (what `friend_ids` and the seating
    hold); `InvalidRequest` for what is no id at all."""
    try:
        return str(uuid.UUID(str(typed)))
    except ValueError:
        raise InvalidRequest(f"{typed!r} is not a player's id") from None


def _invite(game: Game, by: Player, friend_id: str) -> Invited:
    """Invite `friend_id` (as `_player_id` writes it) to the locked `game` on behalf
    of `by`, who sits in it."""
    if friend_id == str(by.pk):
        raise InvalidRequest("you cannot invite yourself")
    if game.status != GameStatus.WAITING:
        raise WrongPhaseError("the game has already started")
    if len(game.seating) >= game.max_players:
        raise GameFull(f"all {game.max_players} seats are taken")
    # A friend is never blocked: a block ends the friendship.
    friend = None
    if friend_id in {str(known) for known in social.friend_ids(str(by.pk))}:
        # A deleted or disabled account is nobody to invite.
        friend = Player.objects.filter(
            pk=friend_id, deleted_at__isnull=True, disabled_at__isnull=True
        ).first()
    if friend is None:
        raise NotFriends("you may invite only your friends")
    if friend_id in game.human_player_ids():
        raise AlreadySeated(f"{friend.name} already sits in this game")
    now = timezone.now()
    stored = GameInvite.objects.filter(game=game, player=friend).select_related("by").first()
    if stored is not None:
        stored.player = friend
        if now - stored.created_at < RESEND_AFTER:
            return Invited(stored, created=False)
        stored.by, stored.created_at = by, now
        stored.save(update_fields=["by", "created_at"])
        _tell(game, stored)
        return Invited(stored, created=False)
    if GameInvite.objects.filter(game=game).count() >= MAX_INVITES_PER_GAME:
        raise TooManyInvites(
            f"this game has sent {MAX_INVITES_PER_GAME} invites, as many as a game may",
            details={"limit": MAX_INVITES_PER_GAME},
        )
    invite = GameInvite.objects.create(game=game, player=friend, by=by, created_at=now)
    _tell(game, invite)
    return Invited(invite, created=True)


def _tell(game: Game, invite: GameInvite) -> None:
    """Tell the invited friend, once the transaction commits: a `game_invite` note to
    their lobby streams and a push to their devices (unless they turned the kind off,
    which delivering the push checks)."""
    by = player_ref(invite.by)
    private = game.visibility == Visibility.PRIVATE
    notices.note(
        invite.player_id,
        "game_invite",
        {
            "game": str(game.pk),
            "by": by,
            # The friend may join without it; a client may show or pass it on.
            "code": game.invite_code if private else None,
            "players": len(game.seating),
            "max_players": game.max_players,
        },
    )
    # Pushed even while a lobby stream of theirs is open: that stream may sit in a
    # background tab or on another device, which is no player looking at it, and the
    # phone is where an invite is most often seen.
    if not push.enabled():
        return
    # As every push text, with the tag: it stands alone, with no table to tell two
    # Anns apart.
    text = f"{by['name']}#{by['tag']} invites you to a game"
    push.deliver_on_commit(
        push.Notification(
            kind="game_invite",
            player_id=str(invite.player_id),
            game_id=str(game.pk),
            text=text,
            path=game_path(game.pk),
            expires_at=(invite.created_at + KIND_TTL).isoformat(),
            changed_at=invite.created_at.isoformat(),
            # Not the invite code: a push passes through the push services.
            extra={"by": by},
        )
    )
