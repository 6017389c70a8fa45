"""Where the caller's friends are: which of them sit in a waiting or running game,
and which of those games the caller may be shown. In one query, whatever the number
of friends."""

from __future__ import annotations

import uuid
from collections.abc import Collection
from typing import Any, NamedTuple

from django.db.models import Exists, OuterRef

from games.models import OPEN_STATUSES, GameStatus, Seat, Visibility
from games.selectors import HELD
from games.talk.models import GameInvite


class FriendGame(NamedTuple):
    """A waiting or running game a friend sits in (as a human), and whether the
    viewer may be shown which one."""

    game_id: uuid.UUID
    playing: bool
    shown: bool
    created_at: Any


def friends_games(viewer_id: Any, friend_ids: Collection[str]) -> dict[str, list[FriendGame]]:
    """For each of `friend_ids` that sits as a human in a waiting or running game,
    those games; each `shown` when it is public, the viewer is one of its players
    (`HELD`), or the viewer has an invite to it. One query."""
    if not friend_ids:
        return {}
    viewer_holds = Seat.objects.filter(HELD, game=OuterRef("game"), player_id=viewer_id)
    invited = GameInvite.objects.filter(game=OuterRef("game"), player_id=viewer_id)
    rows = (
        Seat.objects.filter(
            player_id__in=list(friend_ids), bot__isnull=True, game__status__in=OPEN_STATUSES
        )
        .annotate(viewer_holds=Exists(viewer_holds), invited=Exists(invited))
        .values_list(
            "player_id",
            "game_id",
            "game__status",
            "game__visibility",
            "game__created_at",
            "viewer_holds",
            "invited",
        )
    )
    found: dict[str, list[FriendGame]] = {}
    for player_id, game_id, status, visibility, created, holds, has_invite in rows:
        shown = visibility == Visibility.PUBLIC or holds or has_invite
        found.setdefault(str(player_id), []).append(
            FriendGame(game_id, status == GameStatus.PLAYING, bool(shown), created)
        )
    return found


def game_shown(games: list[FriendGame]) -> uuid.UUID | None:
    """The game to show for a friend in these games: a shown one, running before
    waiting, the newest first; None when none may be shown."""
    shown = [g for g in games if g.shown]
    if not shown:
        return None
    return max(shown, key=lambda g: (g.playing, g.created_at)).game_id
