"""The one door for every change to a game.

Each service is one transaction: it locks the game row first (``SELECT ... FOR
UPDATE``), checks who asks and what phase the game is in, lets the engine decide,
then saves the snapshot, appends the events with gap-free seqs and bumps `version`
by exactly one. A rejected request raises a `ServiceError` and changes nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import F, Field
from django.utils import timezone

from games import engine, selectors
from games.engine import EngineError, GameConfig, GameState, Move, Rules
from games.engine.rng import new_seed
from games.models import BotStrategy, Event, Game, GameStatus, Seat, seating_entry
from players.models import Player
from unoservice.errors import (
    Forbidden,
    GameFull,
    InvalidRequest,
    NotFound,
    StaleVersion,
    WrongPhaseError,
    from_engine,
)

# The strategy that takes over the seat of a player who leaves a running game.
REPLACEMENT_BOT = BotStrategy.GREEDY


@dataclass
class Outcome:
    """What a service did: the game as saved and the events it appended."""

    game: Game
    events: list[Event]
    state: GameState | None = None  # the engine state as saved, when the service had it


# -- helpers ---------------------------------------------------------------------------


def _lock_game(game_id: Any) -> Game:
    try:
        return selectors.game_by_id(game_id, lock=True)
    except (ValueError, TypeError, ValidationError):
        raise NotFound("no such game") from None


def _seats(game: Game) -> list[Seat]:
    return list(Seat.objects.filter(game=game).select_related("player").order_by("seat"))


def _seat_of(seats: Sequence[Seat], player: Player) -> Seat | None:
    for seat in seats:
        if seat.player_id == player.pk and seat.bot is None:
            return seat
    return None


def _append(
    game: Game,
    items: Sequence[tuple[str, int | None, dict[str, Any], int | None]],
    now: dt.datetime,
) -> list[Event]:
    """Insert events with the next seqs (the game row is locked, so seqs cannot race)."""
    rows = []
    for offset, (type_, seat, data, round_no) in enumerate(items, start=1):
        rows.append(
            Event(
                game=game,
                seq=game.last_seq + offset,
                round=round_no,
                type=type_,
                seat=seat,
                data=data,
                at=now,
            )
        )
    if rows:
        _insert(Event, rows)
    game.last_seq += len(rows)
    return rows


def _insert(model: type[Event], rows: Sequence[Event]) -> None:
    """One multi-row INSERT, built by hand for the move path, where compiling
    `bulk_create` costs more CPU than PostgreSQL spends running it."""
    meta = model._meta
    fields = [f for f in meta.concrete_fields if not f.primary_key]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(f.column) for f in fields)
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    params = [
        f.get_db_prep_save(getattr(obj, f.attname), connection) for obj in rows for f in fields
    ]
    sql = f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES {', '.join([row] * len(rows))}"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _engine_items(
    events: Sequence[engine.Event],
) -> list[tuple[str, int | None, dict[str, Any], int | None]]:
    return [(e.type, e.seat, e.data, e.round) for e in events]


def _to_act_key(state: GameState) -> tuple[int | None, str | None]:
    return state.to_act, state.pending.type if state.pending is not None else None


def _deadline(game: Game, now: dt.datetime) -> dt.datetime | None:
    if game.status != GameStatus.PLAYING or game.turn_timeout is None:
        return None
    return now + dt.timedelta(seconds=game.turn_timeout)


def _save(game: Game, fields: list[str]) -> None:
    """Write `fields` of the locked row and bump its version.

    One hand-built UPDATE: this runs on every move, and both `save()` and compiling
    `QuerySet.update()` cost more CPU than PostgreSQL spends running the statement.
    """
    game.version += 1
    game.updated_at = timezone.now()
    meta = Game._meta
    assert meta.pk is not None
    quote = connection.ops.quote_name
    assignments, params = [], []
    for name in [*fields, "version", "last_seq", "updated_at"]:
        field = meta.get_field(name)
        assert isinstance(field, Field)
        assignments.append(f"{quote(field.column)} = %s")
        params.append(field.get_db_prep_save(getattr(game, field.attname), connection))
    params.append(meta.pk.get_db_prep_value(game.pk, connection))
    sql = (
        f"UPDATE {quote(meta.db_table)} SET {', '.join(assignments)}"
        f" WHERE {quote(meta.pk.column)} = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _human_at(game: Game, seat: int) -> str | None:
    entry = game.seating[seat]
    return entry["player"]["id"] if entry["bot"] is None and entry["player"] else None


def _record_results(game: Game, events: Sequence[engine.Event]) -> None:
    """Player statistics: rounds won and points as rounds end, games at the end."""
    for event in events:
        if event.type == "round_ended" and event.seat is not None:
            winner = _human_at(game, event.seat)
            if winner is not None:
                Player.objects.filter(pk=winner).update(
                    rounds_won=F("rounds_won") + 1, points=F("points") + event.data["points"]
                )
        elif event.type == "game_ended":
            Player.objects.filter(pk__in=game.human_player_ids()).update(
                games_played=F("games_played") + 1
            )
            winner = _human_at(game, event.data["winner"])
            if winner is not None:
                Player.objects.filter(pk=winner).update(games_won=F("games_won") + 1)


def _finish_if_over(game: Game, state: GameState, now: dt.datetime) -> None:
    if state.finished:
        game.status = GameStatus.FINISHED
        game.winner = state.winner
        game.finished_at = now
        game.turn_deadline = None


# -- lobby -----------------------------------------------------------------------------


def game_create(
    *,
    host: Player,
    max_players: int = 4,
    target_score: int = 500,
    turn_timeout: int | None = None,
    rules: dict[str, bool] | None = None,
    seed: int | None = None,
) -> Outcome:
    """Create a waiting game with `host` at seat 0. Locks nothing: it only inserts."""
    try:
        parsed_rules = Rules.from_json(rules or {})
        GameConfig(max_players, target_score, parsed_rules)
    except EngineError as error:
        raise InvalidRequest(error.reason) from None
    now = timezone.now()
    with transaction.atomic():
        game = Game.objects.create(
            host=host,
            max_players=max_players,
            target_score=target_score,
            turn_timeout=turn_timeout,
            rules=parsed_rules.to_json(),
            seed=new_seed() if seed is None else seed,
            seating=[seating_entry(host, None)],
        )
        Seat.objects.create(game=game, seat=0, player=host)
        events = _append(game, [("player_joined", 0, _player_json(host), None)], now)
        game.save(update_fields=["last_seq"])
    return Outcome(game, events)


def _player_json(player: Player) -> dict[str, Any]:
    return {"player": {"id": str(player.pk), "name": player.name}}


def _seat_next(
    game: Game, player: Player | None, bot: str | None, event: tuple[str, dict[str, Any]]
) -> list[Event]:
    """Take the next free seat of the locked, waiting `game` and record it."""
    number = len(game.seating)
    if number >= game.max_players:
        raise GameFull(f"all {game.max_players} seats are taken")
    Seat.objects.create(game=game, seat=number, player=player, bot=bot)
    game.seating = [*game.seating, seating_entry(player, bot)]
    events = _append(game, [(event[0], number, event[1], None)], timezone.now())
    _save(game, ["seating"])
    return events


def game_join(*, game_id: Any, player: Player) -> Outcome:
    """Seat `player` at the next free seat. Locks the game row.

    Joining a game one already sits in changes nothing.
    """
    with transaction.atomic():
        game = _lock_game(game_id)
        if game.seat_of(player) is not None:
            return Outcome(game, [])
        if game.status != GameStatus.WAITING:
            raise WrongPhaseError("the game has already started")
        events = _seat_next(game, player, None, ("player_joined", _player_json(player)))
    return Outcome(game, events)


def game_add_bot(*, game_id: Any, player: Player, strategy: str) -> Outcome:
    """Seat a bot (host only, while waiting). Locks the game row."""
    if strategy not in BotStrategy.values:
        raise InvalidRequest(f"unknown bot strategy {strategy!r}")
    with transaction.atomic():
        game = _lock_game(game_id)
        if game.host_id != player.pk:
            raise Forbidden("only the host can add bots")
        if game.status != GameStatus.WAITING:
            raise WrongPhaseError("bots can only be added before the game starts")
        events = _seat_next(game, None, strategy, ("bot_added", {"strategy": strategy}))
    return Outcome(game, events)


def game_start(*, game_id: Any, player: Player) -> Outcome:
    """Deal round 1 (host only, at least 2 seats). Locks the game row."""
    with transaction.atomic():
        game = _lock_game(game_id)
        if game.host_id != player.pk:
            raise Forbidden("only the host can start the game")
        if game.status != GameStatus.WAITING:
            raise WrongPhaseError("the game has already started")
        if len(game.seating) < 2:
            raise WrongPhaseError("a game needs at least 2 seats to start")
        config = GameConfig(len(game.seating), game.target_score, Rules.from_json(game.rules))
        state, engine_events = engine.new_game(config, game.seed)
        now = timezone.now()
        game.status = GameStatus.PLAYING
        game.started_at = now
        game.state = state.to_snapshot()
        game.turn_deadline = _deadline(game, now)
        events = _append(game, _engine_items(engine_events), now)
        _save(game, ["status", "started_at", "state", "turn_deadline"])
    return Outcome(game, events, state)


def game_leave(*, game_id: Any, player: Player) -> Outcome:
    """Leave a game. Waiting: the seat is freed (later seats move up, the host role
    passes on). Playing: a bot takes the seat. With no human left the game is
    abandoned. Locks the game row."""
    with transaction.atomic():
        game = _lock_game(game_id)
        seats = _seats(game)
        seat = _seat_of(seats, player)
        if seat is None:
            raise Forbidden("you are not seated in this game")
        if game.status not in (GameStatus.WAITING, GameStatus.PLAYING):
            raise WrongPhaseError(f"the game is {game.status}")
        now = timezone.now()
        items: list[tuple[str, int | None, dict[str, Any], int | None]] = [
            ("player_left", seat.seat, _player_json(player), _round_of(game))
        ]
        fields = ["status", "host_id", "finished_at", "turn_deadline", "seating"]
        if game.status == GameStatus.WAITING:
            seat.delete()
            remaining = [s for s in seats if s.pk != seat.pk]
            for number, other in enumerate(remaining):
                if other.seat != number:
                    other.seat = number
                    other.save(update_fields=["seat"])
            seats = remaining
            if game.host_id == player.pk:
                humans = [s for s in seats if s.player_id is not None and s.bot is None]
                if humans:
                    game.host_id = humans[0].player_id
        else:
            seat.bot = REPLACEMENT_BOT
            seat.save(update_fields=["bot"])
            items.append(("seat_taken_by_bot", seat.seat, {"strategy": seat.bot}, _round_of(game)))
        if not any(s.player_id is not None and s.bot is None for s in seats):
            game.status = GameStatus.ABANDONED
            game.finished_at = now
            game.turn_deadline = None
        game.seating = [s.seating_entry() for s in seats]
        events = _append(game, items, now)
        _save(game, fields)
    return Outcome(game, events)


def _round_of(game: Game) -> int | None:
    return game.state["round"] if game.state is not None else None


# -- play ------------------------------------------------------------------------------


def move_apply(*, game_id: Any, player: Player, version: int, move: Move) -> Outcome:
    """Apply a seated player's move (a challenge decision included). Locks the game
    row, then checks seat, status and `version` before the engine judges the move."""
    with transaction.atomic():
        game = _lock_game(game_id)
        seat = game.seat_of(player)
        if seat is None:
            raise Forbidden("you are not seated in this game")
        if game.status != GameStatus.PLAYING:
            raise WrongPhaseError(f"the game is {game.status}")
        if version != game.version:
            raise StaleVersion(game.version)
        state = GameState.from_snapshot(game.state)
        before = _to_act_key(state)
        try:
            engine_events = engine.apply(state, seat, move)
        except EngineError as error:
            raise from_engine(error) from None
        now = timezone.now()
        game.state = state.to_snapshot()
        if _to_act_key(state) != before:
            game.turn_deadline = _deadline(game, now)
        _finish_if_over(game, state, now)
        events = _append(game, _engine_items(engine_events), now)
        _save(game, ["state", "turn_deadline", "status", "winner", "finished_at"])
        _record_results(game, engine_events)
    return Outcome(game, events, state)
