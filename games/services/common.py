"""Shared by the services: what a service returns, how it locks a game, and the
small reads of a locked game's seats."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.utils import timezone

from games import privacy, selectors
from games.engine import GameState
from games.engine.vocabulary import PlayerRef
from games.models import BotStrategy, Event, Game, GameStatus, Seat
from players.models import Player
from unoservice.errors import Forbidden, NotFound, WrongPhaseError

# The strategy that takes over the seat of a player who leaves or keeps timing out.
REPLACEMENT_BOT = BotStrategy.GREEDY

# How long a game paused for want of humans waits for a timed-out player to resume
# before it is abandoned (docs/rules.md).
PAUSE_FOR = dt.timedelta(minutes=5)


@dataclass
class Outcome:
    """What a service did: the game as saved and the events it appended."""

    game: Game
    events: list[Event]
    state: GameState | None = None  # the engine state as saved, when the service had it


def _lock_game(game_id: uuid.UUID, *, skip_locked: bool = False) -> Game:
    try:
        return selectors.game_by_id(game_id, lock=True, skip_locked=skip_locked)
    except (ValueError, TypeError, ValidationError):
        raise NotFound("no such game") from None


def _lock_game_for(game_id: uuid.UUID, player: Player) -> Game:
    """Lock the game `player` acts on. A private game they may not see does not exist
    for them (`privacy.conceal`): checked before anything that would tell it does."""
    game = _lock_game(game_id)
    privacy.conceal(game, player)
    return game


def _lock_waiting_for_host(
    game_id: uuid.UUID, player: Player, *, action: str, started: str
) -> Game:
    """`_lock_game_for` a change only the host may make (`action`, in words), and only
    while the game waits: `Forbidden` for anyone else, `WrongPhaseError` saying
    `started` once it runs."""
    game = _lock_game_for(game_id, player)
    if game.host_id != player.pk:
        raise Forbidden(f"only the host can {action}")
    if game.status != GameStatus.WAITING:
        raise WrongPhaseError(started)
    return game


def _seats(game: Game) -> list[Seat]:
    return list(Seat.objects.filter(game=game).select_related("player").order_by("seat"))


def _seat_of(seats: Sequence[Seat], player: Player) -> Seat | None:
    for seat in seats:
        if seat.player_id == player.pk and seat.bot is None:
            return seat
    return None


def _timed_out_seat_of(seats: Sequence[Seat], player: Player) -> Seat | None:
    """The seat a bot holds for `player` after their timeouts, which they may resume."""
    for seat in seats:
        if seat.player_id == player.pk and seat.bot is not None and seat.timed_out:
            return seat
    return None


def _player(player: Player) -> PlayerRef:
    return PlayerRef(id=str(player.pk), name=player.name)


def _round_of(game: Game) -> int | None:
    return game.state["round"] if game.state is not None else None


def _bot_at(game: Game, seat: int | None) -> str | None:
    return None if seat is None else game.seating[seat]["bot"]


def _lock_when_due(
    game_id: uuid.UUID,
    version: int,
    moment: Callable[[Game], dt.datetime | None],
    skip_locked: bool,
    status: str = GameStatus.PLAYING,
) -> tuple[Game, dt.datetime] | None:
    """Lock the game of a timer armed at `version` and return it with the time now,
    or None when it is gone, locked elsewhere (with `skip_locked`), no longer in
    `status` (running) at `version`, or the timer's `moment` has not come."""
    try:
        game = _lock_game(game_id, skip_locked=skip_locked)
    except NotFound:
        return None
    now = timezone.now()
    when = moment(game)
    if game.status != status or game.version != version or when is None or when > now:
        return None
    return game, now
