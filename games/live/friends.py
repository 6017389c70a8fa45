"""Friends on the lobby stream: who comes online, goes offline, or sits down in a game.

Each lobby stream registers its player's friends with the hub's `Friends` while it
is open (read at its opening, and again when its friends change: a note says so).
Every `PRESENCE_HEARTBEAT_SECONDS` the hub reads the presence of every friend
followed in this process in one cache round trip, and hands a note to the
followers of each friend whose presence changed (`friend_online`,
`friend_offline`). A friend who gets a seat in a game is heard as every seat is
(the player's notification, `games.services.notify`): the followers get
`friend_in_game`, with the game when they may see and join it (a public game, one
they play in, or one they were invited to), else without it.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from games import selectors
from games.models import GameStatus, Visibility
from games.talk.models import GameInvite
from players.models import player_tag
from players.social.models import Friendship
from unoservice import presence

if TYPE_CHECKING:
    from games.live.hub import Hub

log = logging.getLogger("games.live.hub")


def brief(player_id: str, name: str) -> dict[str, str]:
    return {"id": player_id, "name": name, "tag": player_tag(player_id)}


class Friends:
    """The friends of the players with a lobby stream here, and what was last known
    of each friend's presence."""

    def __init__(self, live: Hub) -> None:
        self.live = live
        # friend id -> follower id -> the follower's streams that follow them
        self.followers: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self.names: dict[str, str] = {}
        self.online: dict[str, bool] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    def follow(
        self, player_id: str, friends: dict[str, str], online: frozenset[str] = frozenset()
    ) -> None:
        """Follow `friends` (id -> name) for a lobby stream of `player_id`; `online`,
        which of them were online when read, is what a change is told against for a
        friend nobody here followed yet."""
        for friend_id, name in friends.items():
            self.followers[friend_id][player_id] += 1
            self.names[friend_id] = name
            self.online.setdefault(friend_id, friend_id in online)

    def unfollow(self, player_id: str, friends: dict[str, str]) -> None:
        for friend_id in friends:
            followers = self.followers.get(friend_id)
            if followers is None:
                continue
            followers[player_id] -= 1
            if followers[player_id] <= 0:
                del followers[player_id]
            if not followers:
                del self.followers[friend_id]
                self.names.pop(friend_id, None)
                self.online.pop(friend_id, None)

    def _tell(self, friend_id: str, event: str, data: dict[str, Any]) -> None:
        for follower in list(self.followers.get(friend_id, ())):
            channel = self.live.players.get(follower)
            if channel is not None:
                channel.note(event, data)

    async def poll(self) -> None:
        """Read the followed friends' presence and tell their followers what changed
        (a friend first read here is only remembered)."""
        friend_ids = list(self.followers)
        if not friend_ids:
            return
        found = await self.live.read(lambda: presence.online(friend_ids))
        for friend_id in friend_ids:
            if friend_id not in self.followers:
                continue
            now_online = friend_id in found
            before = self.online.get(friend_id)
            self.online[friend_id] = now_online
            if before is None or before == now_online:
                continue
            event = "friend_online" if now_online else "friend_offline"
            self._tell(friend_id, event, {"friend": brief(friend_id, self.names[friend_id])})

    def seated(self, friend_id: str, game_id: uuid.UUID) -> None:
        """A followed friend got a seat in `game_id`: tell their followers (after a
        read of the game, off the hub's loop)."""
        if friend_id not in self.followers:
            return
        task = asyncio.ensure_future(self._seated(friend_id, game_id))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _seated(self, friend_id: str, game_id: uuid.UUID) -> None:
        followers = list(self.followers.get(friend_id, ()))
        try:
            shown = await self.live.read(lambda: _games_shown(game_id, followers))
        except Exception:
            log.warning("could not read a friend's new game", exc_info=True)
            return
        if shown is None:
            return
        friend = brief(friend_id, self.names.get(friend_id, ""))
        for follower in followers:
            channel = self.live.players.get(follower)
            if channel is not None:
                game = str(game_id) if follower in shown else None
                channel.note("friend_in_game", {"friend": friend, "game": game})


def _games_shown(game_id: uuid.UUID, followers: list[str]) -> set[str] | None:
    """Which of `followers` may see and join the game (None: it is not open)."""
    game = selectors.game_by_id(game_id)
    if game.status not in (GameStatus.WAITING, GameStatus.PLAYING):
        return None
    if game.visibility == Visibility.PUBLIC:
        return set(followers)
    playing = set(game.human_player_ids())
    invited = {
        str(player_id)
        for player_id in GameInvite.objects.filter(
            game_id=game_id, player_id__in=followers
        ).values_list("player_id", flat=True)
    }
    return {f for f in followers if f in playing or f in invited}


def friends_of(player_id: str) -> tuple[dict[str, str], frozenset[str]]:
    """The player's friends, id -> name (what their lobby stream follows), and which
    of them are online now."""
    rows = Friendship.objects.filter(player_id=player_id).values_list("friend_id", "friend__name")
    friends = {str(friend_id): name for friend_id, name in rows}
    return friends, presence.online(friends)
