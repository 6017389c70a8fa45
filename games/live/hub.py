"""One hub per server process: it hears that games changed and wakes what waits on them.

A change says no more than "game G reached seq N" (`games.services.notify`). The hub
keeps a `Channel` (`games.live.channels`) per game that someone in this process
watches: the last seq it heard of, and, for streams, the game row and its recent
events, read once per change however many streams watch. Waiters hold no thread
and no connection: they await a future that the next change resolves.

How changes are heard depends on the database:

- PostgreSQL: one connection per process runs ``LISTEN`` and hears every commit's
  ``NOTIFY`` (sent in the same transaction as the change, so only committed changes
  are heard, in commit order). It goes to PostgreSQL itself (`LISTEN_DATABASE_URL`)
  when the other connections pass a transaction pooler.
- Anything else (the SQLite file of development): one query per `POLL_SECONDS`
  for all the watched games together.

Lobby streams (`games.live.lobby`) also watch a `PlayerChannel` per player, woken
when that player gets a seat in a game, with the game added to the channel's
`games`: on PostgreSQL by a player's notification sent with the seat, which names
the game; elsewhere the poll compares, in one query, the open games of every player
with a lobby stream here with what it found last time.

Either way a notification may be lost (a listener reconnecting): every
`HEAL_SECONDS` one query reads the last seq of every watched game, and a channel
behind the table catches up.

The hub also keeps this process's share of presence (`unoservice.presence`): the
players with a stream open here and, per game, its spectators' streams, written to
the cache when a spectator comes or goes and refreshed every
`PRESENCE_HEARTBEAT_SECONDS`, in order, on a thread of its own. The same heartbeat
renews the places this process's streams hold under the caps on open streams
(`unoservice.stream_caps`), and a stream that ends frees its place on that thread.

Every stream opened by a player is signed in with the token it was opened with
(`games.live.sessions`): a revocation heard with the changes (the token was
replaced, the player disabled) ends the player's streams with any other token, in
every process; without notifications, or when one is lost, each catch-up compares
the sessions with the players' rows.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from django.db import connection

from games import selectors
from games.engine import GameState
from games.live import hearing
from games.live.admission import Admission
from games.live.channels import Channel, PlayerChannel, Snapshot, new_future
from games.live.friends import Friends
from games.live.sessions import Sessions
from games.live.talk import Readers
from games.models import Event, Game
from players import push
from unoservice import notices, presence, stream_caps
from unoservice.asgi_types import Send
from unoservice.thread_connections import close_thread_connections, reopening

log = logging.getLogger(__name__)

T = TypeVar("T")

# The longest a waiting stream stays silent: it sends a comment line this often, and
# the hub re-reads the watched games' seqs as often, healing lost notifications.
HEAL_SECONDS = 15.0
POLL_SECONDS = 0.25
# Events a channel keeps in memory for streams that are a little behind.
KEPT_EVENTS = 600
# Threads that read the database for the hub (never while anyone waits).
READER_THREADS = 4
# How often the players of this process's streams and its spectator counts are
# written to the cache again (their keys live `presence.TTL_SECONDS`).
PRESENCE_HEARTBEAT_SECONDS = 10.0
# How long a stopping server waits for its places to be freed before it ends its
# streams all the same (`Hub.close_streams`).
CLOSE_RELEASE_WAIT_SECONDS = 1.0


class Attendance:
    """One open stream's part in its game's spectator count."""

    def __init__(self, hub: Hub, channel: Channel) -> None:
        self.hub = hub
        self.channel = channel
        self.spectating = False

    def spectate(self, spectating: bool) -> None:
        """The stream's viewer is (or no longer is) a spectator of the game: seated
        players who leave become spectators, spectators who join are seated."""
        if spectating == self.spectating:
            return
        self.spectating = spectating
        self.channel.spectators += 1 if spectating else -1
        self.hub.publish_spectators(self.channel)


class Hub:
    """The process's listener and its channels. Use `hub()` to get the running one."""

    def __init__(self) -> None:
        self.channels: dict[uuid.UUID, Channel] = {}
        self.players: dict[str, PlayerChannel] = {}
        self.readers = ThreadPoolExecutor(READER_THREADS, thread_name_prefix="hub-reader")
        self.tasks: list[asyncio.Task[None]] = []
        self.listening = asyncio.Event()
        self.notifications = 0
        # Resolved when the server stops: streams end at once, cleanly, and their
        # clients reconnect (with Last-Event-ID) to a server that is up.
        self.closing: asyncio.Future[None] = new_future()
        # Presence: the players of the streams open here (id -> streams), and one
        # thread that writes to the cache, in the order things happened.
        self.streaming: Counter[str] = Counter()
        # What the players of the streams open here follow, (group, player) -> streams,
        # published only while notifications can be sent (`players.push.enabled`).
        self.following: Counter[tuple[str, str]] = Counter()
        self.publisher = presence.Publisher()
        self.presence_writer = ThreadPoolExecutor(1, thread_name_prefix="hub-presence")
        # The places of the streams open here under the caps (renewed with presence).
        self.places: set[stream_caps.Place] = set()
        # The streams open here signed in with their tokens.
        self.sessions = Sessions()
        # Game streams' openings, checked together in arrival order.
        self.admission = Admission(self.read, self.release_soon)
        # Places freed here, removed from the cache on the presence writer.
        self.freeing = stream_caps.Freeing(self.presence_writer.submit)
        self.freed_at_close: set[stream_caps.Place] = set()  # (`close_streams`)
        self.woken_to_close = False
        # The friends the lobby streams here follow; the readers' table-talk choices.
        self.friends = Friends(self)
        self.talk_readers = Readers(self.read)
        self._stop_local_notes: Callable[[], None] | None = None

    def close_streams(self) -> None:
        """End every stream of this process (the server stops). Their places under
        the caps are freed first, all in one round trip, so that a client that
        reconnects to the next server at once finds its place free; then each stream
        is woken on the channel it waits on and sees `closing`. No stream waits on
        `closing` itself: with thousands of waiters on one future, every wake-up of
        any of them took its callback back out of a list of thousands."""
        if self.closing.done():
            return
        self.closing.set_result(None)
        self.freed_at_close = set(self.places)
        loop = asyncio.get_running_loop()
        try:
            freeing = self.presence_writer.submit(stream_caps.release, list(self.freed_at_close))
        except RuntimeError:  # the hub has stopped: nothing left to free
            self._wake_every_stream()
            return
        freeing.add_done_callback(lambda _: loop.call_soon_threadsafe(self._wake_every_stream))
        # A cache that does not answer holds no stream open past this.
        loop.call_later(CLOSE_RELEASE_WAIT_SECONDS, self._wake_every_stream)

    def _wake_every_stream(self) -> None:
        if self.woken_to_close:
            return
        self.woken_to_close = True
        for channel in self.channels.values():
            channel.wake()
        for player_channel in self.players.values():
            player_channel.wake()

    async def end_stream(self, send: Send) -> None:
        """End a stream's answer. When the server stops, every stream's end is
        written before any stream closes its books (its place, presence, metrics,
        log line): the clients learn at once, and reconnect elsewhere the sooner."""
        await send({"type": "http.response.body", "body": b""})
        if self.closing.done():
            await asyncio.sleep(0)  # behind every stream woken with this one

    # -- lifecycle -------------------------------------------------------------------

    async def start(self) -> None:
        vendor = await self.read(lambda: connection.vendor)
        if vendor == "postgresql":
            self.tasks.append(asyncio.create_task(hearing.listen_postgres(self)))
        else:
            self.tasks.append(asyncio.create_task(self._poll()))
            self.listening.set()
            # Without NOTIFY, the notes this process's requests send come straight here.
            loop = asyncio.get_running_loop()

            def hand_over(player_id: str, event: str, data: dict[str, Any]) -> None:
                loop.call_soon_threadsafe(self.heard_note, player_id, event, data)

            self._stop_local_notes = notices.listen_locally(hand_over)
        self.tasks.append(asyncio.create_task(self._heal()))
        self.tasks.append(asyncio.create_task(self._presence_heartbeat()))

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.tasks.clear()
        if self._stop_local_notes is not None:
            self._stop_local_notes()
            self._stop_local_notes = None
        await asyncio.get_running_loop().run_in_executor(
            self.presence_writer, self.publisher.withdraw
        )
        held, self.places = list(self.places), set()
        await asyncio.get_running_loop().run_in_executor(
            self.presence_writer, stream_caps.release, held
        )
        self.presence_writer.shutdown(wait=False)
        await close_thread_connections(self.readers, READER_THREADS)

    async def read(self, query: Callable[[], T]) -> T:
        """Run `query` (Django ORM code) on a reader thread."""

        return await asyncio.get_running_loop().run_in_executor(
            self.readers, lambda: reopening(query)
        )

    # -- watching --------------------------------------------------------------------

    @contextlib.contextmanager
    def watch(self, game_id: uuid.UUID, *, stream: bool) -> Iterator[Channel]:
        """Hold a channel for `game_id` while the block runs; with `stream`, changes
        load the game and its new events for the watcher."""
        channel = self.channels.get(game_id)
        if channel is None:
            channel = self.channels[game_id] = Channel(game_id)
        channel.watchers += 1
        channel.streams += stream
        try:
            yield channel
        finally:
            channel.watchers -= 1
            channel.streams -= stream
            if channel.watchers == 0:
                del self.channels[game_id]
                if channel.loading is not None:
                    channel.loading.cancel()

    @contextlib.contextmanager
    def watch_player(self, player_id: str) -> Iterator[PlayerChannel]:
        """Hold the player's channel while the block runs (a lobby stream)."""
        channel = self.players.get(player_id)
        if channel is None:
            channel = self.players[player_id] = PlayerChannel(player_id)
        channel.watchers += 1
        try:
            with self.follow(presence.LOBBY, player_id):
                yield channel
        finally:
            channel.watchers -= 1
            if channel.watchers == 0:
                del self.players[player_id]

    def heard_player(self, player_id: str, game_id: uuid.UUID) -> None:
        """`player_id` got a seat in `game_id`: wake their lobby streams."""
        channel = self.players.get(player_id)
        if channel is not None:
            channel.games |= {game_id}
            channel.heard_at[game_id] = time.monotonic()
            channel.wake()
        self.friends.seated(player_id, game_id)

    def heard_note(self, player_id: str, event: str, data: dict[str, Any]) -> None:
        """A note for `player_id` (`unoservice.notices`): hand it to their lobby
        streams; their table-talk choices changed: judge messages for them anew."""
        if event == notices.TALK_CHANGED:
            self.talk_readers.forget([player_id])
            return
        channel = self.players.get(player_id)
        if channel is not None:
            channel.note(event, data)

    def heard_talk(self, game_id: uuid.UUID, message: dict[str, Any]) -> None:
        """A message said at `game_id`'s table: to the streams of the game."""
        channel = self.channels.get(game_id)
        if channel is not None and channel.streams:
            channel.talk.hear(message)

    @contextlib.contextmanager
    def attend(self, channel: Channel, player_id: str | None) -> Iterator[Attendance]:
        """Count a stream open on `channel` in presence while the block runs: the
        heartbeat keeps its player online (`access.open_stream` marked them so), and
        the stream counts as a spectator's while `Attendance.spectating` says so."""
        attendance = Attendance(self, channel)
        try:
            with self.present(player_id), self.follow(str(channel.game_id), player_id):
                yield attendance
        finally:
            attendance.spectate(False)

    @contextlib.contextmanager
    def present(self, player_id: str | None) -> Iterator[None]:
        """Keep `player_id` online while the block runs (one of their streams is
        open here)."""
        if player_id is not None:
            self.streaming[player_id] += 1
        try:
            yield
        finally:
            if player_id is not None:
                self.streaming[player_id] -= 1
                if self.streaming[player_id] <= 0:
                    del self.streaming[player_id]

    @contextlib.contextmanager
    def follow(self, group: str, player_id: str | None) -> Iterator[None]:
        """Publish that `player_id` follows `group` (a game's id, or the lobby) from a
        stream while the block runs, so that no notification is pushed to them for
        what the stream shows. Costs nothing while notifications are off."""
        if player_id is None or not push.enabled():
            yield
            return
        key = (group, player_id)
        self.following[key] += 1
        if self.following[key] == 1:
            self._write_presence(lambda: self.publisher.follow(group, player_id, following=True))
        try:
            yield
        finally:
            self.following[key] -= 1
            if self.following[key] <= 0:
                del self.following[key]
                self._write_presence(
                    lambda: self.publisher.follow(group, player_id, following=False)
                )

    def _write_presence(self, write: Callable[[], None]) -> None:
        # After the hub stopped, the process withdrew what it published.
        with contextlib.suppress(RuntimeError):
            self.presence_writer.submit(write)

    @contextlib.contextmanager
    def hold(self, place: stream_caps.Place) -> Iterator[None]:
        """Keep a place under the caps on open streams while the block runs (renewed
        by the heartbeat); free it the moment the block ends."""
        self.places.add(place)
        try:
            yield
        finally:
            self.places.discard(place)
            if place not in self.freed_at_close:
                self.release_soon(place)

    def release_soon(self, place: stream_caps.Place) -> None:
        """Free `place` in the cache soon, in order with the presence writes."""
        # After the hub stopped, its places were released with it.
        with contextlib.suppress(RuntimeError):
            self.freeing.free(place)

    def publish_spectators(self, channel: Channel) -> None:
        """Write the channel's count of spectators now (its value when written)."""
        group = str(channel.game_id)
        # A stream that ends after the hub stopped: the process withdrew its counts.
        with contextlib.suppress(RuntimeError):
            self.presence_writer.submit(lambda: self.publisher.count(group, channel.spectators))

    async def _presence_heartbeat(self) -> None:
        while True:
            await asyncio.sleep(PRESENCE_HEARTBEAT_SECONDS)
            players = list(self.streaming)
            counts = {str(c.game_id): c.spectators for c in self.channels.values() if c.spectators}
            follows = list(self.following)
            await asyncio.get_running_loop().run_in_executor(
                self.presence_writer, self.publisher.heartbeat, players, counts, follows
            )
            places = list(self.places)
            await asyncio.get_running_loop().run_in_executor(
                self.presence_writer, stream_caps.renew, places
            )
            try:
                await self.friends.poll()
            except Exception:
                log.warning("could not read the followed friends' presence", exc_info=True)

    def heard(self, game_id: uuid.UUID, seq: int) -> None:
        """A change of `game_id` reached `seq`: wake its watchers (after loading it,
        for streams)."""
        channel = self.channels.get(game_id)
        if channel is None or seq <= channel.heard:
            return
        channel.heard = seq
        if channel.streams:
            self._load_soon(channel)
        else:
            channel.wake()

    async def snapshot(self, channel: Channel, *, at_least: int = 0) -> Snapshot:
        """The channel's snapshot, loaded now if it has none or is older than
        `at_least` or than the last change heard of the game."""
        # A change heard but still loading is newer than the snapshot kept: a lobby
        # stream woken by a seat in the game (notified after the game's change) must
        # not judge the seat from the game as it was before it.
        at_least = max(at_least, channel.heard)
        while channel.snapshot is None or channel.snapshot.seq < at_least:
            channel.heard = max(channel.heard, at_least)
            # Streams opening together on one game share one read of it.
            self._load_soon(channel)
            assert channel.loading is not None
            found = await asyncio.shield(channel.loading)
            if channel.snapshot is None or not found:  # the game is gone
                raise Game.DoesNotExist
        assert channel.snapshot is not None
        return channel.snapshot

    def _load_soon(self, channel: Channel) -> None:
        if channel.loading is None or channel.loading.done():
            channel.loading = asyncio.create_task(self._load(channel))

    async def _load(self, channel: Channel) -> bool:
        """Read the game and the events since the snapshot, once for every watcher;
        False when the game is gone."""
        while True:
            kept = channel.snapshot
            after = kept.seq if kept is not None else 0
            try:
                game, events, present = await self.read(
                    functools.partial(_read_change, channel.game_id, after)
                )
            except Game.DoesNotExist:
                return False
            merged = (kept.events if kept is not None else []) + events
            state = GameState.from_snapshot(game.state) if game.state is not None else None
            channel.snapshot = Snapshot(game, state, merged[-KEPT_EVENTS:], present)
            channel.rendered.clear()
            channel.heard = max(channel.heard, channel.snapshot.seq)
            channel.wake()
            if channel.heard <= channel.snapshot.seq:
                return True

    # -- hearing changes -----------------------------------------------------------------

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(POLL_SECONDS)
            await hearing.catch_up(self)

    async def _heal(self) -> None:
        healed = time.monotonic()
        while True:
            await asyncio.sleep(0.25)
            if time.monotonic() - healed >= HEAL_SECONDS:
                healed = time.monotonic()
                await hearing.catch_up(self)


def _read_change(game_id: uuid.UUID, after: int) -> tuple[Game, list[Event], presence.Presence]:
    """What a channel reads when it hears of a change: the game, its events after
    `after`, and who is present (rendered in the views of this change)."""
    game, events = selectors.game_with_recent_events(game_id, after, KEPT_EVENTS)
    return game, events, selectors.presence_of(game)


_HUB: Hub | None = None


def hub() -> Hub:
    if _HUB is None:
        raise RuntimeError("the hub runs only inside the ASGI application's lifespan")
    return _HUB


async def start_hub() -> Hub:
    global _HUB
    if _HUB is None:
        _HUB = Hub()
        await _HUB.start()
    return _HUB


def close_streams() -> None:
    """End every open stream of this process (the server is stopping)."""
    if _HUB is not None:
        _HUB.close_streams()


async def stop_hub() -> None:
    global _HUB
    running, _HUB = _HUB, None
    if running is not None:
        await running.stop()
