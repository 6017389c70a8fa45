"""What a process knows of the games and players its streams watch: a `Channel` per
watched game (the last seq heard, and for streams a `Snapshot` of the game as its
last change left it, read once per change however many watch), a `PlayerChannel`
per player followed by lobby streams. `games.live.hub` keeps them and wakes them."""

from __future__ import annotations

import asyncio
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from games.engine import GameState
from games.live.talk import TalkLine
from games.models import Event, Game
from unoservice import metrics, presence

# The notes a player's channel keeps for a lobby stream still writing older ones.
KEPT_NOTES = 100


@dataclass
class Snapshot:
    """A game as one change left it: the row, its decoded table, its recent events."""

    game: Game
    state: GameState | None
    events: list[Event]  # ascending seq, the last ones up to game.last_seq
    # Who was present when the snapshot was read (what the views it renders show).
    presence: presence.Presence = presence.NOBODY

    @classmethod
    def of(cls, game: Game) -> Snapshot:
        """A game as read now, without its events or who is present."""
        state = GameState.from_snapshot(game.state) if game.state is not None else None
        return cls(game, state, [])

    @property
    def seq(self) -> int:
        return int(self.game.last_seq)

    def events_after(self, seq: int) -> list[Event] | None:
        """The events after `seq`, or None when they are not all kept here."""
        if seq >= self.seq:
            return []
        first_kept = self.events[0].seq if self.events else self.seq + 1
        if seq + 1 < first_kept:
            return None
        return [event for event in self.events if event.seq > seq]


@dataclass
class Channel:
    """What this process knows of one watched game."""

    game_id: uuid.UUID
    heard: int = 0  # the highest seq a notification or a heal reported
    snapshot: Snapshot | None = None
    streams: int = 0  # watchers that need the snapshot (not only the seq)
    watchers: int = 0
    spectators: int = 0  # streams of viewers not seated in the game
    changed: asyncio.Future[None] = field(default_factory=lambda: new_future())
    loading: asyncio.Task[bool] | None = None
    # Rendered frames, per viewer seat, for the current snapshot (see games.live.sse).
    rendered: dict[Any, Any] = field(default_factory=dict)
    # The last seq whose delivery was timed, per stream kind (`timed_delivery`).
    timed: dict[str, int] = field(default_factory=dict)
    # The game's table talk: a line beside its events (`games.live.talk`).
    talk: TalkLine = field(default_factory=TalkLine)

    def wake(self) -> None:
        """Resolve the current change future and start a new one."""
        done, self.changed = self.changed, new_future()
        if not done.done():
            done.set_result(None)


@dataclass
class PlayerChannel:
    """What this process knows of one player followed by lobby streams: woken when
    they get a seat in a game (`version` counts the wake-ups)."""

    player_id: str
    watchers: int = 0
    # The games the player was last found in or heard to get a seat in: what their
    # lobby streams follow. The poll and the heal compare it with the waiting and
    # running games the database has, and drop the others but those heard of since
    # the read began (`heard_at`, monotonic times): it stays bounded.
    games: frozenset[uuid.UUID] = frozenset()
    heard_at: dict[uuid.UUID, float] = field(default_factory=dict)
    version: int = 0
    changed: asyncio.Future[None] = field(default_factory=lambda: new_future())
    # The notes heard for the player (`unoservice.notices`): the lobby's events that
    # are no change of a game, as (count, event, data), the last `KEPT_NOTES`.
    notes: deque[tuple[int, str, dict[str, Any]]] = field(
        default_factory=lambda: deque(maxlen=KEPT_NOTES)
    )
    noted: int = 0

    def wake(self) -> None:
        self.version += 1
        self._resolve()

    def note(self, event: str, data: dict[str, Any]) -> None:
        """Hand a note to the player's lobby streams (their games unchanged)."""
        self.noted += 1
        self.notes.append((self.noted, event, data))
        self._resolve()

    def _resolve(self) -> None:
        done, self.changed = self.changed, new_future()
        if not done.done():
            done.set_result(None)


def timed_delivery(channel: Channel, snapshot: Snapshot, kind: str) -> None:
    """Time a change's way to the streams of `kind`: from its last event to the first
    stream of this process that has its frames (once per change and kind)."""
    if snapshot.seq <= channel.timed.get(kind, 0) or not snapshot.events:
        return
    channel.timed[kind] = snapshot.seq
    last = snapshot.events[-1]
    if last.seq == snapshot.seq:
        seconds = (timezone.now() - last.at).total_seconds()
        metrics.DELIVERY_SECONDS.labels(kind).observe(max(seconds, 0.0))


def new_future() -> asyncio.Future[None]:
    return asyncio.get_running_loop().create_future()
