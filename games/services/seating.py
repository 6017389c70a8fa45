"""Seats: taking them, handing them to bots, and the cap on a player's open games."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import connection
from django.utils import timezone

from games import engine, selectors
from games.engine import GameState, fair
from games.engine.vocabulary import (
    EventType,
    GameAbandonedData,
    GamePausedData,
    PlayerJoinedData,
    SeatTakenByBotData,
)
from games.models import Event, Game, GameStatus, Seat, seating_entry
from games.ratings import rules
from games.replay import config_of
from games.services import notify
from games.services.common import (
    PAUSE_FOR,
    REPLACEMENT_BOT,
    Outcome,
    _lock_game_for,
    _player,
    _round_of,
    _seat_of,
    _seats,
    _timed_out_seat_of,
)
from games.services.saving import commit_change
from games.services.teams import teams_arranged
from players.models import Player
from unoservice import fastsql
from unoservice.errors import Forbidden, GameFull, InvalidRequest, TooManyGames, WrongPhaseError

# Waiting or running games a player may host or sit in at once (docs/api.md): a player
# cannot leave a trail of tables that bots play on for nobody.
MAX_OPEN_GAMES = 10

# The reason a game gets when its last human leaves and nobody may resume a seat.
LAST_PLAYER_LEFT = "the last player left"


def _check_open_games(player: Player) -> None:
    """Refuse a new seat to a player who already sits in `MAX_OPEN_GAMES` waiting or
    running games. Locks the player's row first: two requests of one
    player at once are counted one after the other."""
    refused = _too_many_games(_lock_seat_holders([player])[player.pk])
    if refused is not None:
        raise refused


def _lock_seat_holders(players: Sequence[Player]) -> dict[Any, list[selectors.OpenSeat]]:
    """The waiting and running games each of `players` is one of the players of, by
    player id, read once their rows are locked: in id order (requests of one player
    at once are counted one after the other, and two groups cannot deadlock), in
    one statement, then one statement for the seats."""
    ids = sorted({player.pk for player in players})
    if not ids:
        return {}
    with fastsql.pipelined():  # one round trip: the seats are read once the locks are held
        fastsql.lock_keys(Player, ids)
        return selectors.open_seats_of(ids)


def _too_many_games(seats: Sequence[selectors.OpenSeat]) -> TooManyGames | None:
    """The error for a player with these open seats, if they may take no other."""
    if len(seats) < MAX_OPEN_GAMES:
        return None
    return TooManyGames(
        f"you already host or sit in {len(seats)} waiting or running games"
        f" (at most {MAX_OPEN_GAMES}); finish or leave one first",
        details={"limit": MAX_OPEN_GAMES},
    )


def _announce_seat(player: Player, game: Game) -> None:
    """Tell the lobby streams of `player` (games.live.hub) that they sit in `game`,
    when the transaction commits (PostgreSQL; elsewhere the hub polls)."""
    _announce_seats([(player.pk, game.pk)])


def _announce_seats(seats: Sequence[tuple[object, object]]) -> None:
    """`_announce_seat` for each (player id, game id) of `seats`, in one statement."""
    if connection.vendor == "postgresql" and seats:
        calls, params = notify.seats_expression(seats)
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {calls}", params)


def _networks(
    known: Mapping[str, str], joining: Sequence[tuple[Player, str | None]]
) -> dict[str, str]:
    """`Game.networks` with the players `joining` (each with the client address they
    joined from, None when unknown) noted: never the address, its group's digest."""
    noted = dict(known)
    for player, address in joining:
        if address is not None:
            noted[str(player.pk)] = rules.network_of(address)
    return noted


def _note_client_seeds(game: Game, seeds: Mapping[Any, str | None]) -> None:
    """Keep each player's client seed for the deal (by player id: `seeds`), one made
    for those who sent none; a seed that is not one is `InvalidRequest`, before
    anything changes."""
    noted = dict(game.client_seeds)
    for player_id, client_seed in seeds.items():
        if client_seed is None:
            client_seed = fair.new_client_seed()
        problem = fair.client_seed_problem(client_seed)
        if problem is not None:
            raise InvalidRequest(
                f"client_seed: {problem}", details={"fields": {"client_seed": [problem]}}
            )
        noted[str(player_id)] = client_seed
    game.client_seeds = noted


def _client_seeds_at_start(game: Game) -> list[str]:
    """Every seat's client seed in seat order, as the deal takes them: a human's as
    noted (one made now for a seat noted without: a seat taken before seeds were),
    a bot's empty."""
    seeds = []
    for entry in game.seating:
        player = entry["player"]
        if entry["bot"] is not None or not player:
            seeds.append("")
        else:
            seeds.append(game.client_seeds.get(player["id"]) or fair.new_client_seed())
    return seeds


def _seat_next(
    game: Game,
    player: Player | None,
    bot: str | None,
    event_type: EventType,
    data: Mapping[str, Any],
) -> list[Event]:
    """Take the next free seat of the locked, waiting `game` and record it. A
    quick-match game that this fills starts at once, in the same change."""
    items = [_take_seat(game, player, bot, event_type, data)]
    return _seated(game, items, [] if player is None else [player.pk])


def _seat_players(game: Game, players: Sequence[Player]) -> list[Event]:
    """Seat `players`, in order, at the next free seats of the locked, waiting `game`
    (there is room for them all), as one change: one INSERT of seats, one of
    events, one UPDATE. A quick-match game that this fills starts at once, in the
    same change."""
    rows, items = _seat_rows(game, players)
    fastsql.insert_rows(Seat, rows)
    return _seated(game, items, [player.pk for player in players])


def _seat_rows(game: Game, players: Sequence[Player]) -> tuple[list[Seat], list[engine.Event]]:
    """Seat `players`, in order, at the next free seats of `game` in `game.seating`
    (there is room for them all): their Seat rows, which the caller inserts, and the
    events that say so."""
    first = len(game.seating)
    rows = [Seat(game=game, seat=first + n, player=player) for n, player in enumerate(players)]
    game.seating = [*game.seating, *(seating_entry(player, None) for player in players)]
    items = [
        engine.Event("player_joined", seat.seat, PlayerJoinedData(player=_player(player)), None)
        for seat, player in zip(rows, players, strict=True)
    ]
    return rows, items


def _seated(game: Game, items: list[engine.Event], seated: list[Any]) -> list[Event]:
    """Save the seats just taken in the locked, waiting `game` (`items`, for the
    players `seated`): the game starts if it is a quick-match game they filled."""
    now = timezone.now()
    if game.match_key is not None and len(game.seating) == game.max_players:
        return _deal(game, items, now, seated=seated).events
    fields = ["seating", "networks", "client_seeds", "duos"]
    return commit_change(game, None, items, now, fields=fields, seated=seated)


def _take_seat(
    game: Game,
    player: Player | None,
    bot: str | None,
    event_type: EventType,
    data: Mapping[str, Any],
) -> engine.Event:
    """Seat `player` or `bot` at the next free seat of the locked, waiting `game` (its
    Seat row and `game.seating`; the caller saves the game); returns the event that
    says so."""
    number = len(game.seating)
    if number >= game.max_players:
        raise GameFull(f"all {game.max_players} seats are taken")
    Seat.objects.create(game=game, seat=number, player=player, bot=bot)
    game.seating = [*game.seating, seating_entry(player, bot)]
    return engine.Event(event_type, number, data, None)


def _deal(
    game: Game, items: Sequence[engine.Event], now: dt.datetime, *, seated: Sequence[object] = ()
) -> Outcome:
    """Start the locked, waiting `game` with the seats it has: deal round 1 and save,
    `items` (seats just taken, by the players `seated`) logged first, as one change.
    The duos of a partners quick match are seated across the table first (`teams`)."""
    items = list(items)
    if game.duos:
        arranged = teams_arranged(game)
        if arranged is not None:
            items.append(arranged)
    state, engine_events = _start(game, now)
    events = commit_change(
        game,
        state,
        [*items, *engine_events],
        now,
        turn_changed=True,
        fields=["started_at", "bots_at", "seating", "networks", "client_seeds", "duos"],
        seated=seated,
    )
    return Outcome(game, events, state)


def _start(game: Game, now: dt.datetime) -> tuple[GameState, list[engine.Event]]:
    """Deal round 1 of the waiting `game` with the seats it has, and mark it started
    (the caller stores it): the state and the engine's events."""
    config = config_of(game)
    if game.server_seed:
        seeds = _client_seeds_at_start(game)
        state, engine_events = engine.new_game(config, game.server_seed, client_seeds=seeds)
    else:
        state, engine_events = engine.new_game(config, game.seed)
    game.status = GameStatus.PLAYING
    game.started_at = now
    game.bots_at = None
    return state, engine_events


def _lock_for_seat_holder(
    game_id: uuid.UUID, player: Player, statuses: Sequence[str]
) -> tuple[Game, list[Seat], Seat]:
    """Lock the game and return it with its seats and `player`'s seat: the one they
    hold, or the one a bot holds after their timeouts (a seat they left is no longer
    theirs: `Forbidden`). A game whose status is not one of `statuses` is a
    `WrongPhaseError`. A private game `player` may not see does not exist for them."""
    game = _lock_game_for(game_id, player)
    seats = _seats(game)
    seat = _seat_of(seats, player) or _timed_out_seat_of(seats, player)
    if seat is None:
        raise Forbidden("you are not seated in this game")
    if game.status not in statuses:
        raise WrongPhaseError(f"the game is {game.status}")
    return game, seats, seat


def _without_humans(game: Game, seats: Sequence[Seat], now: dt.datetime) -> list[engine.Event]:
    """What becomes of the locked game when a seat has just gone to a bot (or its
    player gave up resuming it): nothing while a human still sits at the table. With
    none left, a running game that a timed-out player may still resume pauses
    (docs/rules.md) and waits `PAUSE_FOR` for them; otherwise it is abandoned."""
    if any(s.player_id is not None and s.bot is None for s in seats):
        return []
    resumable = game.status == GameStatus.PLAYING and any(s.timed_out for s in seats)
    if not resumable:
        game.status = GameStatus.ABANDONED
        game.finished_at = now
        game.paused_until = None
        # The log says why the game ended, as for any other abandoned game.
        abandoned = GameAbandonedData(reason=LAST_PLAYER_LEFT)
        return [engine.Event("game_abandoned", None, abandoned, _round_of(game))]
    if game.paused_until is not None:  # already paused: the wait is not extended
        return []
    game.paused_until = now + PAUSE_FOR
    paused = GamePausedData(until=game.paused_until.isoformat())
    return [engine.Event("game_paused", None, paused, _round_of(game))]


def _hand_to_bot(game: Game, seat: Seat, round_no: int | None, *, timed_out: bool) -> engine.Event:
    """Give a running game's seat to the replacement bot, in the Seat row and in
    `game.seating` (the caller saves the game); returns the event that says so.
    `timed_out`: the player lost it through timeouts and may resume it."""
    seat.bot = REPLACEMENT_BOT
    seat.timed_out = timed_out
    _reseat(game, seat)
    taken = SeatTakenByBotData(strategy=seat.bot)
    return engine.Event("seat_taken_by_bot", seat.seat, taken, round_no)


def _reseat(game: Game, seat: Seat) -> None:
    """Save who holds `seat` now, in its row and in `game.seating` (the caller saves
    the game)."""
    save_seat(game, seat, ["bot", "timed_out"])
    seating = list(game.seating)
    seating[seat.seat] = seat.seating_entry()
    game.seating = seating


def save_seat(game: Game, seat: Seat, fields: Sequence[str]) -> None:
    """Write `fields` of `seat`, a seat of the locked `game`, found by the game's id
    and its number: a statement of a game names the game, so that a database
    distributed by game id runs it on the game's shard alone (docs/operations.md)."""
    Seat.objects.filter(game_id=game.pk, seat=seat.seat).update(
        **{field: getattr(seat, field) for field in fields}
    )
