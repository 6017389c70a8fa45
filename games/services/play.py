"""Play: a move, a human's or a bot's, judged by the engine and saved, with the one
end of a game (`commit_play`, which the turn timeout shares); and the ratings
recomputed from scratch."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from games import engine
from games.engine import EngineError, GameState, Move
from games.errors import SeatTakenOver, from_engine
from games.models import Event, Game, GameMode, GameStatus
from games.ratings import writes
from games.services.common import Outcome, _lock_game_for, _seats, _timed_out_seat_of
from games.services.saving import commit_change
from players.models import Player
from unoservice import metrics
from unoservice.errors import Forbidden, ServiceError, StaleVersion, WrongPhaseError


def move_apply(*, game_id: uuid.UUID, player: Player, version: int, move: Move) -> Outcome:
    """Apply a seated player's move (a challenge decision included). Locks the game
    row, then checks seat, status and `version` before the engine judges the move. A
    seat a bot holds after its player's timeouts is `SeatTakenOver`: resume it first."""
    with transaction.atomic():
        game = _lock_game_for(game_id, player)
        seat = game.seat_of(player)
        if seat is None:
            raise _not_seated(game, player)
        if game.status != GameStatus.PLAYING:
            raise WrongPhaseError(f"the game is {game.status}")
        if version != game.version:
            raise StaleVersion(game.version)
        return _play(game, GameState.from_snapshot(game.state), seat, move, actor="player")


def _not_seated(game: Game, player: Player) -> ServiceError:
    """Why `player`, who plays no seat of the locked game, may not act in it: a seat a
    bot holds after their timeouts in a running game is theirs to resume, and the
    answer says so; anyone else is simply not seated."""
    taken_over = _timed_out_seat_of(_seats(game), player)
    if taken_over is None or game.status != GameStatus.PLAYING:
        return Forbidden("you are not seated in this game")
    return SeatTakenOver(game.pk, taken_over.seat)


def _play(game: Game, state: GameState, seat: int, move: Move, *, actor: str) -> Outcome:
    """Let the engine judge and apply `seat`'s move to the locked game, and save it.
    The one path of every move, a human's or a bot's (`actor`, as the metrics count it)."""
    before = _to_act_key(state)
    try:
        engine_events = engine.apply(state, seat, move)
    except EngineError as error:
        raise from_engine(error) from None
    turn_changed = _to_act_key(state) != before
    events = commit_play(
        game,
        state,
        engine_events,
        engine_events,
        timezone.now(),
        turn_changed=turn_changed,
        actor=seat,
    )
    metrics.MOVES.labels(move.action, actor).inc()
    return Outcome(game, events, state)


def commit_play(
    game: Game,
    state: GameState,
    engine_events: Sequence[engine.Event],
    items: Sequence[engine.Event],
    now: dt.datetime,
    *,
    turn_changed: bool,
    fields: Sequence[str] = (),
    actor: int | None = None,
) -> list[Event]:
    """Save a move or a timeout the engine applied to the locked game (`state`, with
    the `engine_events` it caused; `items`: those and any the service adds), as
    `commit_change` does, with `fields` and the count of moves (`actor`: the seat
    whose move it is; None for a timeout). The one end of a game:
    when this play ended it, the seats' ratings are locked first, the clock is read
    again once they are held, and the results are recorded (`writes.record`) in the
    same change. Then the players' lifetime totals (`_add_to_player_totals`)."""
    game.moves += 1
    if state.finished:
        ratings = writes.lock_ratings(game)
        now = timezone.now()  # once the ratings' locks are held
        items = [*items, *writes.record(game, state, now, ratings)]
        fields = [*fields, "unrated_reason"]  # set by `writes.record`
    events = commit_change(
        game, state, items, now, turn_changed=turn_changed, fields=["moves", *fields], actor=actor
    )
    _add_to_player_totals(game, engine_events)
    return events


def _human_at(game: Game, seat: int) -> str | None:
    entry = game.seating[seat]
    return entry["player"]["id"] if entry["bot"] is None and entry["player"] else None


def _add_to_player_totals(game: Game, events: Sequence[engine.Event]) -> None:
    """Add what `events` show to the lifetime totals on the humans' `Player` rows:
    rounds won and points as rounds end, games played and won at the end (each
    seat's result and rating are `writes.record`'s)."""
    for event in events:
        if event.type == "round_ended" and event.seat is not None:
            winner = _human_at(game, event.seat)
            if winner is not None:
                Player.objects.filter(pk=winner).update(
                    rounds_won=F("rounds_won") + 1, points=F("points") + event.data["points"]
                )
        elif event.type == "game_ended" and game.mode == GameMode.PARTNERS:
            team = event.data["winner"] % 2
            Player.objects.filter(pk__in=game.human_player_ids()).update(
                partners_games_played=F("partners_games_played") + 1
            )
            winners = [_human_at(game, seat) for seat in range(team, len(game.seating), 2)]
            Player.objects.filter(pk__in=[w for w in winners if w is not None]).update(
                partners_games_won=F("partners_games_won") + 1
            )
        elif event.type == "game_ended":
            Player.objects.filter(pk__in=game.human_player_ids()).update(
                games_played=F("games_played") + 1
            )
            winner = _human_at(game, event.data["winner"])
            if winner is not None:
                Player.objects.filter(pk=winner).update(games_won=F("games_won") + 1)


def _to_act_key(state: GameState) -> tuple[int | None, str | None]:
    return state.to_act, state.pending.type if state.pending is not None else None


def ratings_recompute() -> tuple[int, int]:
    """Rate every finished rated game again, in the order they finished, from the
    default ratings (`games.ratings.writes.recompute`); returns (games, ratings). Locks every
    rating row, in key order, for the duration: a game that ends meanwhile waits."""
    return writes.recompute()
