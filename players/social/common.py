"""What the social services share: finding the other player of a request, locking
two players' rows in the one order, and how a player is named to others."""

from __future__ import annotations

import uuid
from typing import Any

from players.models import Player
from unoservice.errors import InvalidRequest, NotFound

NO_SUCH_PLAYER = "no such player"


def parse_player_id(raw: object) -> uuid.UUID:
    """A malformed id is just another player that does not exist."""
    try:
        return uuid.UUID(str(raw))
    except ValueError:
        raise NotFound(NO_SUCH_PLAYER) from None


def reachable(player: Player | None) -> Player:
    """`player`, as one others may find: `NotFound` for none, a deleted account or a
    disabled player, alike."""
    if player is None or player.deleted_at is not None or player.disabled_at is not None:
        raise NotFound(NO_SUCH_PLAYER)
    return player


def not_self(player_id: Any, other_id: Any, what: str) -> None:
    if str(player_id) == str(other_id):
        raise InvalidRequest(f"you cannot {what} yourself")


def lock_pair(a_id: Any, b_id: Any) -> tuple[Player, Player | None]:
    """Lock both players' rows (``FOR UPDATE``) for the caller's transaction, in the
    order of their ids, so that two services locking the same two players never wait
    for each other the other way round; (a, b), b None when there is no such player.
    Every service that touches two players locks them here first."""
    locked = {
        str(p.pk): p
        for p in Player.objects.select_for_update().filter(pk__in=[a_id, b_id]).order_by("pk")
    }
    a = locked.get(str(a_id))
    if a is None:
        raise NotFound(NO_SUCH_PLAYER)
    return a, locked.get(str(b_id))


def lock_other(player_id: Any, other_id: Any, what: str) -> tuple[Player, Player]:
    """Lock the player and the one they `what` (`lock_pair`), for a change that aims
    neither at oneself (`InvalidRequest`) nor at a player who does not exist or
    deleted their account (`NotFound`)."""
    not_self(player_id, other_id, what)
    me, other = lock_pair(player_id, other_id)
    if other is None or other.deleted_at is not None:
        raise NotFound(NO_SUCH_PLAYER)
    return me, other


def player_ref(player: Player) -> dict[str, Any]:
    """A player as others read them: id, name and tag."""
    return {"id": str(player.pk), "name": player.name, "tag": player.tag}
