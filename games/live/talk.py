"""Table talk on the game streams: a *line* beside the game's events.

A table message is not an event of the game (`games.talk`): it has ids of its own,
changes neither the version nor the log, and never makes a move stale. Each watched
game's channel keeps a `TalkLine`: the last `KEPT` messages this process heard of
(their frames rendered once, shared by every stream), counted in the order they
arrived, and a future of its own, so that a message wakes the game's streams and
nothing else (long polls and lobby streams wait on the game's changes only).

A message reaches the process whole in its notification (`talk.wire.announce`), so
hearing one reads nothing. A stream's opening sends the game's recent messages (read
once per channel, `load`), those after `?messages_after=` when the client says what
it has; then each new one as it is heard. A reader never gets a message of a player
they block, who blocks them or whom they muted, nor spectators' emotes when they
hide them (`Readers`: each player's choices read once and kept until a note says
they changed, `unoservice.notices.TALK_CHANGED`, or the listener reconnects).
Messages go as `event: message` frames without an `id:`: a browser's Last-Event-ID
stays the game's seq, which is what resumes the game.

A lost notification is caught up at the hub's heal (every 15 s, or each poll without
PostgreSQL): one query reads the messages after the last heard of every line loaded
here.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.talk.models import TableMessage
from games.talk.wire import message_json, reaches
from players.social.selectors import talk_preferences_of
from unoservice.parsers import JSONRenderer

# The hub's way to run a read on one of its threads (`Hub.read`).
Reader = Callable[[Callable[[], Any]], Awaitable[Any]]

# The messages a line keeps, and a stream's opening sends: what a client that
# reconnects gets back.
KEPT = 50
# How old a reader's blocks and mutes may be when a message is judged for them. A
# change is told at once (a note); this only bounds what a lost note could leave
# stale, so that a busy table does not re-read every reader's choices again and again.
PREFERENCES_SECONDS = 600.0

_renderer = JSONRenderer()


def message_frame(message: dict[str, Any]) -> bytes:
    return b"event: message\ndata: " + _renderer.render(message) + b"\n\n"


@dataclass
class Said:
    """One message as a line keeps it: `n` counts the line's arrivals."""

    n: int
    message: dict[str, Any]
    frame: bytes

    @property
    def id(self) -> int:
        return int(self.message["id"])


def new_future() -> asyncio.Future[None]:
    return asyncio.get_running_loop().create_future()


@dataclass
class TalkLine:
    """The recent table talk of one game, as this process heard it."""

    said: deque[Said] = field(default_factory=lambda: deque(maxlen=KEPT))
    count: int = 0  # messages heard, in arrival order (a stream's place in the line)
    heard_id: int = 0  # the highest message id heard (the heal reads after it)
    loaded: bool = False
    loading: asyncio.Task[None] | None = None
    changed: asyncio.Future[None] = field(default_factory=new_future)

    def hear(self, message: dict[str, Any]) -> bool:
        """Keep `message` unless this line has it; wake the streams when new."""
        message_id = int(message["id"])
        if any(said.id == message_id for said in self.said):
            return False
        if self.loaded and len(self.said) == KEPT and message_id < self.said[0].id:
            return False  # older than anything kept: it was sent, or is too old to
        self.count += 1
        self.said.append(Said(self.count, message, message_frame(message)))
        self.heard_id = max(self.heard_id, message_id)
        done, self.changed = self.changed, new_future()
        if not done.done():
            done.set_result(None)
        return True

    async def load(self, read: Reader, game_id: uuid.UUID) -> None:
        """Read the game's recent messages once, for every stream of the channel."""
        if self.loaded:
            return
        if self.loading is None or self.loading.done():
            self.loading = asyncio.ensure_future(self._load(read, game_id))
        await asyncio.shield(self.loading)

    async def _load(
        self, read: Callable[[Callable[[], Any]], Awaitable[Any]], game_id: uuid.UUID
    ) -> None:
        recent, latest = await read(lambda: (recent_messages(game_id), latest_message_id()))
        kept = list(self.said)
        self.said.clear()
        for message in recent:
            self.count += 1
            self.said.append(Said(self.count, message, message_frame(message)))
        known = {said.id for said in self.said}
        for said in kept:  # heard while loading
            if said.id not in known:
                self.said.append(said)
        # A game without messages resumes the heal after every message there is now.
        self.heard_id = max([self.heard_id, latest, *(said.id for said in self.said)])
        self.loaded = True

    def after(self, seen: int) -> list[Said]:
        """The messages that arrived after a stream's place `seen`."""
        return [said for said in self.said if said.n > seen]

    def recent(self, after_id: int | None) -> list[Said]:
        """What an opening sends: the kept messages after `after_id`, in id order."""
        return sorted(
            (said for said in self.said if after_id is None or said.id > after_id),
            key=lambda said: said.id,
        )


@dataclass
class Preferences:
    hidden: frozenset[str]
    hide_spectators: bool
    read_at: float


class Readers:
    """Each reader's blocks, mutes and choice about spectators' emotes, as the hub's
    streams judge messages by them: read when first needed, and again once a note
    says they changed (`forget`), the listener reconnected (`forget_all`) or they
    are older than `PREFERENCES_SECONDS`; shared by the reader's streams in this
    process.

    The streams that need choices not known yet in one turn of the event loop (a
    game's streams woken by a message, a burst of openings) have them read together,
    in one read (`talk_preferences_of`), not one each."""

    def __init__(self, read: Reader) -> None:
        self.read = read
        self.known: dict[str, Preferences] = {}
        # The readers whose choices the next read fetches, each with what waits for
        # them, and the reads under way.
        self._wanted: dict[str, asyncio.Future[Preferences]] = {}
        self._reading: set[asyncio.Task[None]] = set()
        # When each reader's choices were last forgotten (and everyone's), counted in
        # forgettings: a read that began before is given to whoever waits on it, and
        # not kept, since the change may postdate it.
        self._forgettings = 0
        self._forgotten_at: dict[str, int] = {}
        self._all_forgotten_at = 0

    async def of(self, player_id: str) -> Preferences:
        known = self.known.get(player_id)
        if known is not None and time.monotonic() - known.read_at <= PREFERENCES_SECONDS:
            return known
        waiting = self._wanted.get(player_id)
        if waiting is None:
            loop = asyncio.get_running_loop()
            if not self._wanted:
                loop.call_soon(self._read_wanted)
            waiting = self._wanted[player_id] = loop.create_future()
        return await asyncio.shield(waiting)

    def _read_wanted(self) -> None:
        wanted, self._wanted = self._wanted, {}
        task = asyncio.ensure_future(self._read(wanted, self._forgettings))
        self._reading.add(task)
        task.add_done_callback(self._read_done)

    def _read_done(self, task: asyncio.Task[None]) -> None:
        self._reading.discard(task)
        if not self._reading:
            self._forgotten_at.clear()

    async def _read(self, wanted: dict[str, asyncio.Future[Preferences]], began: int) -> None:
        try:
            found = await self.read(lambda: talk_preferences_of(list(wanted)))
        except Exception as error:  # each stream waiting on it decides (sse)
            for waiting in wanted.values():
                if not waiting.done():
                    waiting.set_exception(error)
            return
        now = time.monotonic()
        for player_id, waiting in wanted.items():
            hidden, hide = found[player_id]
            preferences = Preferences(hidden, hide, now)
            forgotten = max(self._all_forgotten_at, self._forgotten_at.get(player_id, 0))
            if forgotten <= began:
                self.known[player_id] = preferences
            if not waiting.done():
                waiting.set_result(preferences)

    def forget(self, player_ids: Iterable[str]) -> None:
        self._forgettings += 1
        for player_id in player_ids:
            self.known.pop(player_id, None)
            if self._reading:
                self._forgotten_at[player_id] = self._forgettings

    def forget_all(self) -> None:
        self._forgettings += 1
        self.known.clear()
        self._all_forgotten_at = self._forgettings


def frames_for(said: Sequence[Said], preferences: Preferences | None) -> bytes:
    """The frames of `said` that reach a reader with these preferences (None: a staff
    session, which reads everything)."""
    if preferences is None:
        return b"".join(s.frame for s in said)
    return b"".join(
        s.frame
        for s in said
        if reaches(
            s.message, hidden=preferences.hidden, hide_spectators=preferences.hide_spectators
        )
    )


# -- reads (on the hub's reader threads) ------------------------------------------------


def _rendered(rows: Iterable[TableMessage]) -> list[dict[str, Any]]:
    return [message_json(row, row.sender.name) for row in rows]


def recent_messages(game_id: uuid.UUID, limit: int = KEPT) -> list[dict[str, Any]]:
    """The game's last `limit` messages, oldest first."""
    rows = TableMessage.objects.filter(game_id=game_id).select_related("sender").order_by("-id")
    return list(reversed(_rendered(rows[:limit])))


def latest_message_id() -> int:
    row = TableMessage.objects.order_by("-id").values_list("id", flat=True).first()
    return int(row or 0)


def messages_since(heard: dict[uuid.UUID, int]) -> list[tuple[uuid.UUID, dict[str, Any]]]:
    """The messages of these games after the id heard of each, in one query (a heal's
    catch-up), oldest first; at most `KEPT` a game are of any use."""
    if not heard:
        return []
    rows = (
        TableMessage.objects.filter(game_id__in=list(heard), id__gt=min(heard.values()))
        .select_related("sender")
        .order_by("id")
    )
    return [
        (row.game_id, message_json(row, row.sender.name))
        for row in rows[: KEPT * len(heard)]
        if row.id > heard[row.game_id]
    ]
