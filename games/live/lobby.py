"""A player's lobby stream (Server-Sent Events) across all their games, as plain ASGI.

The stream follows the games its player sits in (`selectors.lobby_games`, read at
its opening) through the hub's game channels, so that however many lobby and game
streams watch a game, each change of it is read once. When a followed game changes,
the stream compares the game as it is now with what it last saw of it and sends
the lobby's events (`derive`): nothing is sent for the lobby by the services
themselves, and nothing is stored for it. A game the player gets a seat in after
the opening wakes the player's channel of the hub (`PlayerChannel`), which names
the game: the stream follows it from its start, without reading the player's games
again.

The lobby's events carry game ids: a client reads the game's view (or opens its
stream) to act. They have no ids and are not replayed on reconnection; the opening
restates what a client must act on now (`your_turn`, per game whose turn is the
player's).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import functools
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from games import selectors
from games.live import access
from games.live import hub as hub_module
from games.live.channels import Channel, PlayerChannel, Snapshot, timed_delivery
from games.live.friends import friends_of
from games.live.hub import Hub, hub
from games.live.sessions import Session
from games.live.sse import (
    RETRY_MILLISECONDS,
    STREAM_HEADERS,
    _headers,
    _json,
    _query,
    _send_json,
    _until_disconnected,
    _write,
    take_place,
)
from games.models import Event, Game, GameStatus
from players.models import Player
from unoservice import metrics
from unoservice.asgi_types import Receive, Scope, Send
from unoservice.client_address import meta_of
from unoservice.errors import NotFound
from unoservice.observability import name_exchange

# A turn, as the lobby tells one from the next: (round, seat to act). It stays the
# same while the same seat keeps acting (a colour to choose, a drawn card to play).
Turn = tuple[int, int]


@dataclass(frozen=True)
class Seen:
    """What a lobby stream last saw of one game."""

    seq: int
    status: str
    turn: Turn | None  # the player's turn it was, None when it was not theirs


# How a game the player got a seat in after the opening is compared: as if it had
# been seen waiting, with nothing of its log (its seat is news: `match_found`).
DISCOVERED = Seen(seq=0, status=GameStatus.WAITING, turn=None)


def frame(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {_json(data)}\n\n".encode()


def _their_turn(snapshot: Snapshot, player: Player) -> Turn | None:
    """The turn that is `player`'s in this snapshot, if it is theirs."""
    game, state = snapshot.game, snapshot.state
    if game.status != GameStatus.PLAYING or state is None:
        return None
    seat = game.seat_of(player)
    to_act = state.to_act
    if seat is None or to_act != seat:
        return None
    return state.round, to_act


def seen(snapshot: Snapshot, player: Player) -> Seen:
    return Seen(snapshot.seq, snapshot.game.status, _their_turn(snapshot, player))


def opening_frames(snapshot: Snapshot, player: Player) -> bytes:
    """What the opening restates of one game: `your_turn` when the turn is theirs."""
    if _their_turn(snapshot, player) is None:
        return b""
    return _your_turn(snapshot.game)


def _your_turn(game: Game) -> bytes:
    # As the game's view shows it.
    deadline = game.turn_deadline.isoformat() if game.turn_deadline else None
    return frame("your_turn", {"game": str(game.pk), "turn_deadline": deadline})


def derive(before: Seen, snapshot: Snapshot, events: Iterable[Event], player: Player) -> bytes:
    """The lobby's frames for `player` between what they saw of a game (`before`)
    and `snapshot`; `events` are the game's events after `before.seq`."""
    game = snapshot.game
    game_id = str(game.pk)
    frames = []
    if before is DISCOVERED and game.host_id != player.pk:
        frames.append(frame("match_found", {"game": game_id}))
    if before.status == GameStatus.WAITING and game.started_at is not None:
        frames.append(frame("game_started", {"game": game_id}))
    turn = _their_turn(snapshot, player)
    if turn is not None and turn != before.turn:
        frames.append(_your_turn(game))
    events = list(events)
    if before.status != GameStatus.FINISHED and game.status == GameStatus.FINISHED:
        rating = _rating_of(events, player)
        finished = {"game": game_id, "winner": game.winner, "rating": rating}
        frames.append(frame("game_finished", finished))
    for event in events:
        by = event.data.get("by") or {}
        if event.type == "rematch_offered" and by.get("id") != str(player.pk):
            frames.append(frame("rematch_offered", {"game": event.data["game"], "by": by}))
    return b"".join(frames)


def _rating_of(events: Sequence[Event], player: Player) -> dict[str, Any] | None:
    """The player's rating after the game, with its `change`, as the game's
    `game_rated` event logged it; None when the game was not rated."""
    for event in events:
        if event.type == "game_rated":
            for entry in event.data["ratings"]:
                if entry["rated_as"] == str(player.pk):
                    return {**entry["rating"], "change": entry["change"]}
    return None


# -- the stream -------------------------------------------------------------------------


async def stream(scope: Scope, receive: Receive, send: Send) -> None:
    """``GET /api/v1/players/me/stream``: the lobby's events of the caller, until
    they go, the server stops or the token it was opened with stops working."""
    live = hub()
    headers = _headers(scope)
    checked = await live.read(
        lambda: access.open_lobby_stream(headers=headers, query=_query(scope), meta=meta_of(scope))
    )
    if isinstance(checked, access.Refusal):
        await _send_json(send, checked.status, checked.body, checked.headers)
        return
    player = checked
    player_id = str(player.pk)
    name_exchange(scope, player_id=player_id)
    place = await take_place(live, send, player, meta_of(scope))
    if place is None:
        return
    disconnected = asyncio.ensure_future(_until_disconnected(receive))
    lobby: Lobby | None = None
    try:
        with (
            live.hold(place),
            live.sessions.signed_in(player) as session,
            live.watch_player(player_id) as mine,
            live.present(player_id),
            metrics.STREAMS_OPEN.labels("lobby").track_inprogress(),
        ):
            assert session is not None
            lobby = Lobby(live, player, mine, send, disconnected, session)
            await lobby.serve()
    finally:
        disconnected.cancel()
        if lobby is not None:
            lobby.unfollow_all()


@dataclass
class Followed:
    """A game a lobby stream follows: its channel (held), what it last saw of it."""

    channel: Channel
    seen: Seen
    holding: contextlib.AbstractContextManager[Channel]


class Lobby:
    """One open lobby stream: the games it follows and what it saw of each.

    What it follows stays bounded whatever its player does: the open games they sit
    in (at most `MAX_OPEN_GAMES`), and the games that ended, which can still be
    offered a rematch, as the opening counts them (at most `LOBBY_RECENT_GAMES`, for
    `LOBBY_RECENT_OVER` after they ended, until their rematch is offered). A game the
    player no longer sits in, or that ended otherwise, is dropped with its channel;
    the ids of the last `FORGET_AFTER` dropped games are kept, lest the player's
    channel, which learns late that a game is over, make it followed again."""

    FORGET_AFTER = 256

    def __init__(
        self,
        live: Hub,
        player: Player,
        mine: PlayerChannel,
        send: Send,
        disconnected: asyncio.Future[None],
        session: Session,
    ) -> None:
        self.live = live
        self.player = player
        self.mine = mine
        self.send = send
        self.disconnected = disconnected
        self.session = session
        self.followed: dict[uuid.UUID, Followed] = {}
        # The followed games that ended, with when they did.
        self.over: dict[uuid.UUID, dt.datetime] = {}
        self.dropped: OrderedDict[uuid.UUID, None] = OrderedDict()
        # The notes handed to the player's channel that this stream has written, and
        # the friends it follows for them (`games.live.friends`).
        self.notes_seen = mine.noted
        self.friends: dict[str, str] = {}

    async def serve(self) -> None:
        player = self.player
        woken = self.mine.version
        open_ids, over_ids = await self.live.read(
            lambda: selectors.lobby_games(player, timezone.now())
        )
        await self._follow_friends()
        # Seats heard of while the games were read are kept.
        self.mine.games |= frozenset(open_ids)
        body = await self._follow([*open_ids, *over_ids], discovered=False)
        hello = frame("hello", {"games": [str(game_id) for game_id in self.followed]})
        await self.send({"type": "http.response.start", "status": 200, "headers": STREAM_HEADERS})
        await _write(self.send, f"retry: {RETRY_MILLISECONDS}\n\n".encode() + hello + body)
        while True:
            # Checked before every wait: a change may have come while this stream was
            # writing, with no future left to wake it.
            if self.mine.version != woken:
                woken = self.mine.version
                new = [
                    game_id
                    for game_id in self.mine.games
                    if game_id not in self.followed and game_id not in self.dropped
                ]
                await _write(self.send, await self._follow(new, discovered=True))
                continue
            if self.mine.noted != self.notes_seen:
                notes = await self._notes()
                if notes:
                    await _write(self.send, notes)
                continue
            frames = await self._changes()
            if frames:
                await _write(self.send, frames)
                continue
            self._forget_old()
            waits = {followed.channel.changed for followed in self.followed.values()}
            changed = {*waits, self.mine.changed}
            # The hub wakes the channels when it closes (`Hub.close_streams`).
            if self.live.closing.done():
                await self.live.end_stream(self.send)
                return
            done, _ = await asyncio.wait(
                {*changed, self.disconnected, self.session.ended},
                timeout=hub_module.HEAL_SECONDS,
                return_when=asyncio.FIRST_COMPLETED,
            )
            if self.disconnected.done():
                return
            # The server stops (the client reconnects), or the token was replaced or
            # its player disabled (reconnecting with it is a 401).
            if self.live.closing.done() or self.session.ended.done():
                await self.live.end_stream(self.send)
                return
            if not done:
                await _write(self.send, b": ping\n\n")

    async def _follow_friends(self) -> None:
        """Follow the player's friends as they are now (at the opening, and when they
        changed)."""
        player_id = str(self.player.pk)
        friends, online = await self.live.read(lambda: friends_of(player_id))
        self.live.friends.unfollow(player_id, self.friends)
        self.friends = friends
        self.live.friends.follow(player_id, friends, online)

    async def _notes(self) -> bytes:
        """The frames of the notes this stream has not written yet. A note whose event
        begins with "_" is for the stream alone: the player's friends changed."""
        notes = [note for note in self.mine.notes if note[0] > self.notes_seen]
        self.notes_seen = self.mine.noted
        frames = []
        refollow = False
        for _, event, data in notes:
            if event.startswith("_") or event == "friend_accepted":
                refollow = True
            if not event.startswith("_"):
                frames.append(frame(event, data))
        if refollow:
            await self._follow_friends()
        return b"".join(frames)

    async def _follow(self, game_ids: Iterable[uuid.UUID], *, discovered: bool) -> bytes:
        """Watch these games; the frames of what is news in them (discovered after
        the opening) or what the opening restates."""
        frames = []
        for game_id in game_ids:
            holding = self.live.watch(game_id, stream=True)
            channel = holding.__enter__()
            try:
                snapshot = await self.live.snapshot(channel)
            except BaseException as error:  # the game is gone, or the stream cancelled
                holding.__exit__(None, None, None)
                if isinstance(error, Game.DoesNotExist):
                    continue
                raise
            if discovered:
                frames.append(derive(DISCOVERED, snapshot, [], self.player))
            else:
                frames.append(opening_frames(snapshot, self.player))
            self.followed[game_id] = Followed(channel, seen(snapshot, self.player), holding)
            self._keep_or_drop(snapshot)
        return b"".join(frames)

    async def _changes(self) -> bytes:
        """The frames of every followed game that changed since it was last seen."""
        frames = []
        for game_id, followed in list(self.followed.items()):
            channel, before = followed.channel, followed.seen
            snapshot = channel.snapshot
            if snapshot is None or snapshot.seq <= before.seq:
                continue
            events = snapshot.events_after(before.seq)
            if events is None:  # further behind than the channel keeps
                events = await self.live.read(
                    functools.partial(selectors.events_between, game_id, before.seq, snapshot.seq)
                )
            frames.append(derive(before, snapshot, events, self.player))
            followed.seen = seen(snapshot, self.player)
            timed_delivery(channel, snapshot, "lobby")
            self._keep_or_drop(snapshot)
        return b"".join(frames)

    def _keep_or_drop(self, snapshot: Snapshot) -> None:
        """Keep following a game, as what it is now, or drop it: the player no longer
        sits in it, or it ended and no rematch can be offered in it any more."""
        game = snapshot.game
        if not _sits_in(game, self.player):
            self._drop(game.pk)
        elif game.is_over:
            ended_at = game.finished_at or timezone.now()
            if game.started_at is None or game.rematch_id is not None or _long_over(ended_at):
                self._drop(game.pk)
                return
            self.over[game.pk] = ended_at
            while len(self.over) > selectors.LOBBY_RECENT_GAMES:
                self._drop(min(self.over, key=self.over.__getitem__))

    def _forget_old(self) -> None:
        """Drop the games that ended longer ago than a rematch is followed."""
        for game_id, ended_at in list(self.over.items()):
            if _long_over(ended_at):
                self._drop(game_id)

    def _drop(self, game_id: uuid.UUID) -> None:
        followed = self.followed.pop(game_id, None)
        self.over.pop(game_id, None)
        if followed is not None:
            followed.holding.__exit__(None, None, None)
        self.dropped[game_id] = None
        self.dropped.move_to_end(game_id)
        while len(self.dropped) > self.FORGET_AFTER:
            self.dropped.popitem(last=False)

    def unfollow_all(self) -> None:
        """The stream ended: release every channel it holds, and its friends."""
        for followed in self.followed.values():
            followed.holding.__exit__(None, None, None)
        self.followed.clear()
        self.over.clear()
        self.live.friends.unfollow(str(self.player.pk), self.friends)
        self.friends = {}


def _sits_in(game: Game, player: Player) -> bool:
    """Whether the player still has a seat in the game (a bot may play it for them)."""
    player_id = str(player.pk)
    return any(entry["player"] and entry["player"]["id"] == player_id for entry in game.seating)


def _long_over(ended_at: dt.datetime) -> bool:
    return timezone.now() - ended_at > selectors.LOBBY_RECENT_OVER


def opening(player: Player) -> bytes:
    """The whole opening of a lobby stream, read and rendered in one go (synchronous):
    what a plain WSGI server answers, the stream a client then reopens after `retry`."""
    open_ids, over_ids = selectors.lobby_games(player, timezone.now())
    games = [*open_ids, *over_ids]
    body = b""
    for game_id in games:
        with contextlib.suppress(NotFound):
            body += opening_frames(Snapshot.of(selectors.game_by_id(game_id)), player)
    hello = frame("hello", {"games": [str(game_id) for game_id in games]})
    return f"retry: {RETRY_MILLISECONDS}\n\n".encode() + hello + body
