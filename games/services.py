"""The one door for every change to a game.

Each service is one transaction: it locks the game row first (``SELECT ... FOR
UPDATE``), checks who asks and what phase the game is in, lets the engine decide,
then saves the snapshot, appends the events with gap-free seqs and bumps `version`
by exactly one. A rejected request raises a `ServiceError` and changes nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import random
import secrets
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from games import (
    bot_costs,
    bots,
    combining,
    dispatch,
    engine,
    invites,
    privacy,
    results,
    selectors,
)
from games.engine import TIMEOUTS_BEFORE_BOT, EngineError, GameConfig, GameState, Move, Rules
from games.engine.rng import SEED_BITS, derive, new_seed
from games.engine.vocabulary import (
    BotAddedData,
    EventType,
    GameAbandonedData,
    GamePausedData,
    GameResumedData,
    PlayerJoinedData,
    PlayerLeftData,
    PlayerRef,
    RematchOfferedData,
    SeatResumedData,
    SeatTakenByBotData,
)
from games.errors import SeatTakenOver, from_engine
from games.live import notify
from games.models import (
    OPEN_STATUSES,
    OVER_STATUSES,
    BotStrategy,
    Event,
    Game,
    GameStatus,
    Heartbeat,
    Seat,
    StreamTicket,
    Visibility,
    seating_entry,
)
from players.models import Player, hash_token
from unoservice import fastsql, metrics
from unoservice.errors import (
    Forbidden,
    GameFull,
    InvalidRequest,
    NotFound,
    ServiceError,
    StaleVersion,
    TooManyGames,
    WrongPhaseError,
)

log = logging.getLogger(__name__)

# The strategy that takes over the seat of a player who leaves or keeps timing out.
REPLACEMENT_BOT = BotStrategy.GREEDY
# A countdown task fires this long after the deadline, so that it never finds the
# deadline a hair in the future and does nothing.
TIMER_SLACK = dt.timedelta(milliseconds=20)
# Countdowns beyond this are left to the sweeper: a task held by a worker longer
# than the broker's visibility timeout would be delivered twice.
LONGEST_COUNTDOWN = dt.timedelta(minutes=30)
# How long a game paused for want of humans waits for a timed-out player to resume
# before it is abandoned (docs/rules.md).
PAUSE_FOR = dt.timedelta(minutes=5)
# Waiting or running games a player may host or sit in at once (docs/api.md): a player
# cannot leave a trail of tables that bots play on for nobody.
MAX_OPEN_GAMES = 10

# Draws of an invite code before giving up: a draw repeats an open game's code with
# odds of (open games) / 31**8, so a second draw is already a rarity.
INVITE_CODE_ATTEMPTS = 5

# The reason a game gets when its last human leaves and nobody may resume a seat.
LAST_PLAYER_LEFT = "the last player left"

# Quick match (`match_find`): seconds after a game's first seat was taken before its
# empty seats go to bots, when the request does not say (null there means never).
DEFAULT_BOTS_AFTER = 30
MIN_BOTS_AFTER, MAX_BOTS_AFTER = 5, 600
# The oldest waiting quick-match games with the same settings one batch looks at.
MATCH_CANDIDATES = 10


@dataclass
class Outcome:
    """What a service did: the game as saved and the events it appended."""

    game: Game
    events: list[Event]
    state: GameState | None = None  # the engine state as saved, when the service had it


# -- helpers ---------------------------------------------------------------------------


def _lock_game(game_id: Any, *, skip_locked: bool = False) -> Game:
    try:
        return selectors.game_by_id(game_id, lock=True, skip_locked=skip_locked)
    except (ValueError, TypeError, ValidationError):
        raise NotFound("no such game") from None


def _lock_game_for(game_id: Any, player: Player) -> Game:
    """Lock the game `player` acts on. A private game they may not see does not exist
    for them (`privacy.conceal`): checked before anything that would tell it does."""
    game = _lock_game(game_id)
    privacy.conceal(game, player)
    return game


def _seats(game: Game) -> list[Seat]:
    return list(Seat.objects.filter(game=game).select_related("player").order_by("seat"))


def _seat_of(seats: Sequence[Seat], player: Player) -> Seat | None:
    for seat in seats:
        if seat.player_id == player.pk and seat.bot is None:
            return seat
    return None


def _append(
    game: Game,
    items: Sequence[engine.Event],
    now: dt.datetime,
) -> list[Event]:
    """Insert events with the next seqs (the game row is locked, so seqs cannot race).
    Services build theirs as `engine.Event`s too: one typed vocabulary for both."""
    rows = _event_rows(game, items, now)
    fastsql.insert_rows(Event, rows)
    return rows


def _event_rows(game: Game, items: Sequence[engine.Event], now: dt.datetime) -> list[Event]:
    """The rows of `items`, with the game's next seqs (its `last_seq` moves on); the
    caller inserts them."""
    rows = []
    for offset, item in enumerate(items, start=1):
        rows.append(
            Event(
                game=game,
                seq=game.last_seq + offset,
                round=item.round,
                type=item.type,
                seat=item.seat,
                data=item.data,
                at=now,
            )
        )
    game.last_seq += len(rows)
    return rows


def _to_act_key(state: GameState) -> tuple[int | None, str | None]:
    return state.to_act, state.pending.type if state.pending is not None else None


def _bot_at(game: Game, seat: int | None) -> str | None:
    return None if seat is None else game.seating[seat]["bot"]


def _set_timers(game: Game, state: GameState, now: dt.datetime, *, turn_changed: bool) -> None:
    """Arm the clock of whoever must act now: a human's turn deadline (kept while the
    same decision is pending, so that moves out of turn do not extend it), or a bot's
    due time, one think time away."""
    running = game.status == GameStatus.PLAYING and game.paused_until is None
    seat = state.to_act if running else None
    if seat is None:
        game.turn_deadline = game.bot_due_at = None
    elif _bot_at(game, seat) is not None:
        game.turn_deadline = None
        game.bot_due_at = now + dt.timedelta(seconds=settings.BOT_THINK_SECONDS)
    else:
        game.bot_due_at = None
        if game.turn_timeout is None:
            game.turn_deadline = None
        elif turn_changed or game.turn_deadline is None:
            game.turn_deadline = now + dt.timedelta(seconds=game.turn_timeout)


def _bots_may_act(game: Game, state: GameState) -> bool:
    """Whether a bot must move (its turn) or may (a catch, a call, a jump-in)."""
    to_act = state.to_act
    for seat, entry in enumerate(game.seating):
        if entry["bot"] is not None and (seat == to_act or engine.legal_moves(state, seat)):
            return True
    return False


def _schedule(game: Game, state: GameState, now: dt.datetime) -> None:
    """On commit, send the tasks the saved game calls for, each for this version."""
    if game.status != GameStatus.PLAYING:
        return
    if game.paused_until is not None:
        dispatch.send_on_commit(
            dispatch.PAUSE_EXPIRY, game.pk, game.version, eta=game.paused_until + TIMER_SLACK
        )
        return
    if game.turn_deadline is not None:
        eta = game.turn_deadline + TIMER_SLACK
        if eta - now <= LONGEST_COUNTDOWN:
            dispatch.send_on_commit(dispatch.TURN_TIMEOUT, game.pk, game.version, eta=eta)
    if _bots_may_act(game, state):
        think = settings.BOT_THINK_SECONDS
        dispatch.send_on_commit(
            dispatch.BOT_TURN, game.pk, game.version, countdown=think if think > 0 else None
        )


def _store(
    game: Game,
    state: GameState,
    items: Sequence[engine.Event],
    now: dt.datetime,
    *,
    turn_changed: bool,
    fields: Sequence[str] = (),
    seated: Sequence[object] = (),
) -> list[Event]:
    """Save the locked game with its new state, append `items` and arm what comes next
    (`seated`: players who just got a seat, as `_save` takes them)."""
    _follow_state(game, state, now, turn_changed=turn_changed)
    events = _append(game, items, now)
    _save(
        game,
        ["state", "turn_deadline", "bot_due_at", "status", "winner", "finished_at", *fields],
        seated=seated,
    )
    _schedule(game, state, now)
    return events


def _follow_state(game: Game, state: GameState, now: dt.datetime, *, turn_changed: bool) -> None:
    """Set the game's fields that follow from its new engine state: the state itself,
    the end of the game, the timers."""
    game.state = state.to_snapshot()
    _finish_if_over(game, state, now)
    _set_timers(game, state, now, turn_changed=turn_changed)


def _save(game: Game, fields: list[str], *, seated: Sequence[object] = ()) -> None:
    """Write `fields` of the locked row, `last_seq` and `updated_at`, and bump its
    version, in one UPDATE (`fastsql`: this runs on every move). On PostgreSQL the
    statement also sends the live streams' notification (games.live.notify), which
    PostgreSQL delivers only if the transaction commits, and one per player in
    `seated` (they just got a seat here: their lobby streams start watching)."""
    game.version += 1
    game.updated_at = timezone.now()
    # Only PostgreSQL has NOTIFY: elsewhere the hub polls for changes.
    notification = (
        notify.expression(game.pk, game.last_seq, seated=seated)
        if connection.vendor == "postgresql"
        else None
    )
    fastsql.update_fields(game, [*fields, "version", "last_seq", "updated_at"], also=notification)


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


# -- lobby -----------------------------------------------------------------------------


def game_create(
    *,
    host: Player,
    max_players: int = 4,
    target_score: int = 500,
    turn_timeout: int | None = None,
    rules: dict[str, bool] | None = None,
    seed: int | None = None,
    visibility: str = Visibility.PUBLIC,
    rated: bool = True,
) -> Outcome:
    """Create a waiting game with `host` at seat 0. Locks the host's player row, so
    that their count of open games cannot race past `MAX_OPEN_GAMES`.

    `seed` fixes the deal, so whoever picks it can compute every hand: only staff may,
    unless the service runs with ``CLIENT_SEEDS`` (development). A private game gets
    an invite code unique among open games (a draw that repeats one is drawn again)."""
    if visibility not in Visibility.values:
        raise InvalidRequest(f"unknown visibility {visibility!r}")
    if seed is not None and not (settings.CLIENT_SEEDS or host.is_staff):
        raise Forbidden("only staff may choose a game's seed: the seed fixes every hand")
    with transaction.atomic():
        _check_open_games(host)
        return _game_insert(
            host=host,
            max_players=max_players,
            target_score=target_score,
            turn_timeout=turn_timeout,
            rules=rules,
            seed=seed,
            host_plays=True,
            visibility=visibility,
            rated=rated,
        )


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


def _game_insert(
    *,
    host: Player,
    max_players: int,
    target_score: int,
    turn_timeout: int | None,
    rules: dict[str, bool] | None,
    seed: int | None,
    host_plays: bool,
    visibility: str = Visibility.PUBLIC,
    rated: bool = True,
) -> Outcome:
    """Insert a waiting game (in the caller's transaction); quick match builds its
    own (`_match_game_build`)."""
    try:
        parsed_rules = Rules.from_json(rules or {})
        GameConfig(max_players, target_score, parsed_rules)
    except EngineError as error:
        raise from_engine(error) from None
    if seed is not None and not 0 <= seed < 2**SEED_BITS:
        # Larger seeds would reach clients as numbers a double cannot hold exactly.
        problem = f"must be from 0 to 2^{SEED_BITS} - 1"
        raise InvalidRequest(f"seed: {problem}", details={"fields": {"seed": [problem]}})
    now = timezone.now()
    game = _insert_with_code(
        private=visibility == Visibility.PRIVATE,
        host=host,
        max_players=max_players,
        target_score=target_score,
        turn_timeout=turn_timeout,
        rules=parsed_rules.to_json(),
        seed=new_seed() if seed is None else seed,
        seating=[seating_entry(host, None)] if host_plays else [],
        visibility=visibility,
        rated=rated,
    )
    events: list[Event] = []
    if host_plays:
        Seat.objects.create(game=game, seat=0, player=host)
        joined = engine.Event("player_joined", 0, PlayerJoinedData(player=_player(host)), None)
        events = _append(game, [joined], now)
        game.save(update_fields=["last_seq"])
        _announce_seat(host, game)
    return Outcome(game, events)


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


def _insert_with_code(*, private: bool, **fields: Any) -> Game:
    """Insert the game row, with a fresh invite code when it is `private`. The code
    must be unique among open games (the database's partial unique index): a draw
    that collides, here or in a transaction racing this one, is drawn again, each
    attempt in a savepoint of its own."""
    if not private:  # no code, nothing to draw again: no savepoint either
        return Game.objects.create(invite_code=None, **fields)
    for attempt in range(1, INVITE_CODE_ATTEMPTS + 1):
        code = invites.new_code()
        try:
            with transaction.atomic():
                return Game.objects.create(invite_code=code, **fields)
        except IntegrityError:
            if attempt == INVITE_CODE_ATTEMPTS:
                raise
            log.info("invite code drawn twice among open games; drawing again")
    raise AssertionError("unreachable")


def bot_match_start(
    *,
    host: Player,
    strategies: Sequence[str],
    target_score: int = 500,
    rules: dict[str, bool] | None = None,
    seed: int | None = None,
) -> Outcome:
    """Create and start a game among bots only, hosted by `host` from outside: a
    soak test for operators, and a show to watch (an operator's command, so `seed`
    is theirs to choose). Locks the new game row."""
    if not 2 <= len(strategies) <= 10:
        raise InvalidRequest("a game among bots needs 2 to 10 bots")
    with transaction.atomic():
        created = _game_insert(
            host=host,
            max_players=len(strategies),
            target_score=target_score,
            turn_timeout=None,
            rules=rules,
            seed=seed,
            host_plays=False,
        )
        game = created.game
        for strategy in strategies:
            # The operator's: not seated on a player's behalf, so not capped.
            added = BotAddedData(strategy=strategy)
            _seat_next(game, None, strategy, "bot_added", added)
        return game_start(game_id=game.pk, player=host)


def _player(player: Player) -> PlayerRef:
    return PlayerRef(id=str(player.pk), name=player.name)


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
    events = _append(game, items, now)
    _save(game, ["seating"], seated=seated)
    _arm_match_bots(game)
    return events


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
    `items` (seats just taken, by the players `seated`) logged first, as one change."""
    state, engine_events = _start(game, now)
    events = _store(
        game,
        state,
        [*items, *engine_events],
        now,
        turn_changed=True,
        fields=["started_at", "bots_at", "seating"],
        seated=seated,
    )
    return Outcome(game, events, state)


def _start(game: Game, now: dt.datetime) -> tuple[GameState, list[engine.Event]]:
    """Deal round 1 of the waiting `game` with the seats it has, and mark it started
    (the caller stores it): the state and the engine's events."""
    config = GameConfig(len(game.seating), game.target_score, Rules.from_json(game.rules))
    state, engine_events = engine.new_game(config, game.seed)
    game.status = GameStatus.PLAYING
    game.started_at = now
    game.bots_at = None
    return state, engine_events


def _arm_match_bots(game: Game) -> None:
    """On commit, send the quick-match bots' task for the saved game's version, while
    it waits with a `bots_at` (the sweeper is the backstop)."""
    if game.status == GameStatus.WAITING and game.bots_at is not None:
        dispatch.send_on_commit(
            dispatch.MATCH_BOTS, game.pk, game.version, eta=game.bots_at + TIMER_SLACK
        )


def game_join(*, game_id: Any, player: Player, invited: bool = False) -> Outcome:
    """Seat `player` at the next free seat. Locks the game row.

    Joining a game one already sits in changes nothing. A private game is joined
    with its code (`invited`: the caller found the game by it); to anyone else
    not among its players it does not exist.
    """
    with transaction.atomic():
        game = _lock_game(game_id)
        if game.seat_of(player) is not None:
            return Outcome(game, [])
        # Not `privacy.conceal`: staff too join a private game with its code only.
        if game.visibility == Visibility.PRIVATE and not (
            invited or privacy.is_player(game, player)
        ):
            raise NotFound("no such game")
        if game.status != GameStatus.WAITING:
            raise WrongPhaseError("the game has already started")
        if len(game.seating) >= game.max_players:
            raise GameFull(f"all {game.max_players} seats are taken")
        _check_open_games(player)
        joined = PlayerJoinedData(player=_player(player))
        events = _seat_next(game, player, None, "player_joined", joined)
    return Outcome(game, events)


def game_add_bot(*, game_id: Any, player: Player, strategy: str) -> Outcome:
    """Seat a bot (host only, while waiting), an expert only within the host's cap
    (`bot_costs`). Locks the game row, then the host's row for an expert."""
    if strategy not in BotStrategy.values:
        raise InvalidRequest(f"unknown bot strategy {strategy!r}")
    with transaction.atomic():
        game = _lock_game_for(game_id, player)
        if game.host_id != player.pk:
            raise Forbidden("only the host can add bots")
        if game.status != GameStatus.WAITING:
            raise WrongPhaseError("bots can only be added before the game starts")
        if len(game.seating) >= game.max_players:
            raise GameFull(f"all {game.max_players} seats are taken")
        bot_costs.check_expert_bots(player, bot_costs.experts_among([strategy]))
        added = BotAddedData(strategy=strategy)
        events = _seat_next(game, None, strategy, "bot_added", added)
    return Outcome(game, events)


def game_start(*, game_id: Any, player: Player) -> Outcome:
    """Deal round 1 (host only, at least 2 seats). Locks the game row."""
    with transaction.atomic():
        game = _lock_game_for(game_id, player)
        if game.host_id != player.pk:
            raise Forbidden("only the host can start the game")
        if game.status != GameStatus.WAITING:
            raise WrongPhaseError("the game has already started")
        if len(game.seating) < 2:
            raise WrongPhaseError("a game needs at least 2 seats to start")
        return _deal(game, [], timezone.now())


def game_leave(*, game_id: Any, player: Player) -> Outcome:
    """Leave a game. Waiting: the seat is freed (later seats move up, the host role
    passes on). Playing: a bot takes the seat for good; a player whose seat a bot
    already holds after their timeouts gives up the right to resume it. With no
    human left the game pauses when a timed-out player may still resume, and is
    abandoned otherwise. Locks the game row."""
    with transaction.atomic():
        return _leave(game_id, player, OPEN_STATUSES)


def _leave(game_id: Any, player: Player, statuses: Sequence[str]) -> Outcome:
    """`game_leave` of a game whose status is one of `statuses` (else
    `WrongPhaseError`), in the caller's transaction; locks the game row."""
    game, seats, seat = _lock_for_seat_holder(game_id, player, statuses)
    now = timezone.now()
    round_no = _round_of(game)
    left = PlayerLeftData(player=_player(player))
    items = [engine.Event("player_left", seat.seat, left, round_no)]
    if game.status == GameStatus.WAITING:
        seat.delete()
        remaining = [s for s in seats if s.pk != seat.pk]
        for number, other in enumerate(remaining):
            if other.seat != number:
                other.seat = number
                other.save(update_fields=["seat"])
        seats = remaining
        if game.host_id == player.pk:
            humans = [s.player_id for s in seats if s.player_id is not None and s.bot is None]
            if humans:
                game.host_id = humans[0]
        game.seating = [s.seating_entry() for s in seats]
    elif seat.bot is None:
        items.append(_hand_to_bot(game, seat, round_no, timed_out=False))
    else:
        seat.timed_out = False
        seat.save(update_fields=["timed_out"])
    items += _without_humans(game, seats, now)
    if game.state is None:
        game.turn_deadline = game.bot_due_at = None
        events = _append(game, items, now)
        _save(game, ["status", "host_id", "finished_at", "seating", "turn_deadline"])
        _arm_match_bots(game)
    else:
        state = GameState.from_snapshot(game.state)
        events = _store(
            game,
            state,
            items,
            now,
            turn_changed=False,
            fields=["host_id", "seating", "paused_until"],
        )
    return Outcome(game, events)


def game_rematch(*, game_id: Any, player: Player) -> Outcome:
    """The next game with the same settings as a game that is over, for one of its
    players: the first to ask creates it, hosts it and gets back the bots the game
    was created with; whoever asks later joins it (`game_join`). Answers with the
    rematch.

    Locks the finished game's row first, so that players asking at once are served
    one after the other and the rematch is made once, recorded on that row with a
    `rematch_offered` event; then the caller's player row (the open-game cap) and,
    when joining, the rematch's row.

    Who may ask: a player who still holds their seat, or whose seat a bot holds
    after their timeouts (they never left); not a player who left. The game must
    have been played: finished, or abandoned after its start."""
    with transaction.atomic():
        game, _, seat = _lock_for_seat_holder(game_id, player, OVER_STATUSES)
        if game.started_at is None:
            raise WrongPhaseError("the game was abandoned before it started: nothing to replay")
        if game.rematch_id is not None:
            # One of the game's players: a private rematch is theirs to join too.
            return game_join(game_id=game.rematch_id, player=player, invited=True)
        _check_open_games(player)
        # The bots the game was created with, in their order. A bot that took over a
        # player's seat (its entry still names the player) does not come back: that
        # seat is the player's to take in the rematch.
        strategies = [e["bot"] for e in game.seating if e["player"] is None and e["bot"]]
        bot_costs.check_expert_bots(player, bot_costs.experts_among(strategies))
        created = _game_insert(host=player, **_settings_of(game), seed=None, host_plays=True)
        rematch = created.game
        for strategy in strategies:
            added = BotAddedData(strategy=strategy)
            created.events += _seat_next(rematch, None, strategy, "bot_added", added)
        game.rematch = rematch
        offered = RematchOfferedData(game=str(rematch.pk), by=_player(player))
        item = engine.Event("rematch_offered", seat.seat, offered, _round_of(game))
        _append(game, [item], timezone.now())
        _save(game, ["rematch"])
    return Outcome(rematch, created.events)


def _settings_of(game: Game) -> dict[str, Any]:
    """What a game was created with, but its seed: what its rematch copies. A private
    game's rematch is private too, with an invite code of its own."""
    return {
        "max_players": game.max_players,
        "target_score": game.target_score,
        "turn_timeout": game.turn_timeout,
        "rules": game.rules,
        "visibility": game.visibility,
        "rated": game.rated,
    }


def _lock_for_seat_holder(
    game_id: Any, player: Player, statuses: Sequence[str]
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


def _timed_out_seat_of(seats: Sequence[Seat], player: Player) -> Seat | None:
    """The seat a bot holds for `player` after their timeouts, which they may resume."""
    for seat in seats:
        if seat.player_id == player.pk and seat.bot is not None and seat.timed_out:
            return seat
    return None


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
    seat.save(update_fields=["bot", "timed_out"])
    seating = list(game.seating)
    seating[seat.seat] = seat.seating_entry()
    game.seating = seating


def seat_resume(*, game_id: Any, player: Player) -> Outcome:
    """Give `player` back the seat a bot took over after their timeouts (docs/rules.md);
    their run of timeouts starts again from zero, and a game paused for want of
    humans goes on. Locks the game row."""
    with transaction.atomic():
        game = _lock_game_for(game_id, player)
        seats = _seats(game)
        if not any(s.player_id == player.pk for s in seats):
            raise Forbidden("you are not seated in this game")
        if game.status != GameStatus.PLAYING:
            raise WrongPhaseError(f"the game is {game.status}")
        seat = _timed_out_seat_of(seats, player)
        if seat is None:
            raise WrongPhaseError(
                "no seat of yours is held by a bot after timeouts: only such a seat is resumed"
            )
        seat.bot = None
        seat.timed_out = False
        _reseat(game, seat)
        state = GameState.from_snapshot(game.state)
        engine.clear_timeouts(state, seat.seat)
        now = timezone.now()
        resumed = SeatResumedData(player=_player(player))
        items = [engine.Event("seat_resumed", seat.seat, resumed, state.round)]
        if game.paused_until is not None:
            game.paused_until = None
            items.append(engine.Event("game_resumed", None, GameResumedData(), state.round))
        # Timers are re-armed from scratch: a paused game has none, and the seat to
        # act may have changed hands.
        events = _store(
            game, state, items, now, turn_changed=False, fields=["seating", "paused_until"]
        )
    return Outcome(game, events, state)


def game_pause_expire(*, game_id: Any, version: int, skip_locked: bool = False) -> Outcome | None:
    """Abandon a game paused for want of humans once its pause has run out with
    nobody resuming. Locks the game row (with `skip_locked`, a game locked elsewhere
    is left for a later sweep). Does nothing (returns None) when the game is not at
    `version`, not paused, or the pause has not yet run out."""
    with transaction.atomic():
        due = _lock_when_due(game_id, version, lambda game: game.paused_until, skip_locked)
        if due is None:
            return None
        game, now = due
        return _abandon(game, now, "no player resumed within the pause")


def _lock_when_due(
    game_id: Any,
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


def game_abandon(*, game_id: Any, reason: str, by: str | None = None) -> Outcome:
    """End a waiting or running game without a winner, for an operator (`reason`
    is recorded in the `game_abandoned` event, with `by`, the staff member's
    username, when given: staff read it, players never do). Locks the game row."""
    with transaction.atomic():
        game = _lock_game(game_id)
        if game.status not in OPEN_STATUSES:
            raise WrongPhaseError(f"the game is {game.status}")
        return _abandon(game, timezone.now(), reason, by)


def _abandon(game: Game, now: dt.datetime, reason: str, by: str | None = None) -> Outcome:
    metrics.GAMES_ENDED.labels(GameStatus.ABANDONED, "false").inc()
    game.status = GameStatus.ABANDONED
    game.finished_at = now
    game.turn_deadline = game.bot_due_at = game.paused_until = None
    abandoned = GameAbandonedData(reason=reason)
    if by is not None:
        abandoned["by"] = by
    events = _append(game, [engine.Event("game_abandoned", None, abandoned, _round_of(game))], now)
    _save(game, ["status", "finished_at", "turn_deadline", "bot_due_at", "paused_until"])
    return Outcome(game, events)


def _round_of(game: Game) -> int | None:
    return game.state["round"] if game.state is not None else None


# -- quick match -------------------------------------------------------------------------


def match_key(max_players: int, target_score: int, rules: Rules) -> str:
    """The settings quick match pairs players on, as `Game.match_key` stores them:
    seats, target score and the house rules that are on, in a fixed order (the other
    settings of a quick-match game are always the defaults)."""
    on = ",".join(sorted(name for name, value in rules.to_json().items() if value))
    return f"{max_players}:{target_score}:{on}"


def _lock_match(key: str) -> None:
    """Serialize quick match per settings until the caller's transaction ends: on
    PostgreSQL a transaction-level advisory lock keyed by a 64-bit hash of `key` (a
    hash collision only makes two settings wait for each other). SQLite lets one
    writer at a time anyway."""
    if connection.vendor != "postgresql":
        return
    digest = hashlib.blake2b(f"quick-match\x00{key}".encode(), digest_size=8).digest()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(%s)", [int.from_bytes(digest, "big", signed=True)]
        )


@dataclass(frozen=True)
class MatchRequest:
    """One player's quick-match request, checked, as `match_find` queues it."""

    player: Player
    max_players: int
    target_score: int
    rules: Rules
    bots_after: int | None


def match_find(
    *,
    player: Player,
    max_players: int = 4,
    target_score: int = 500,
    rules: dict[str, bool] | None = None,
    bots_after: int | None = DEFAULT_BOTS_AFTER,
) -> Outcome:
    """Quick match: seat `player` in the oldest public waiting quick-match game with
    exactly these settings that has room, or create one they host, whose empty seats
    go to bots `bots_after` seconds from now (None: never). A game this fills starts
    at once. A player already waiting in a quick-match game with these settings gets
    it back, unchanged.

    Requests for the same settings are served one batch at a time, in one
    transaction per batch (`_match_batch`): the threads of this process that ask
    together hand their requests to one of them (`games.combining`), and the
    processes take turns through the settings' advisory lock. Called inside a
    transaction (an Idempotency-Key's), the request is served alone, in that
    transaction. Locks what `_match_batch` locks."""
    if bots_after is not None and not MIN_BOTS_AFTER <= bots_after <= MAX_BOTS_AFTER:
        raise InvalidRequest(
            f"bots_after must be {MIN_BOTS_AFTER}-{MAX_BOTS_AFTER} seconds, or null for never"
        )
    try:
        parsed_rules = Rules.from_json(rules or {})
        GameConfig(max_players, target_score, parsed_rules)
    except EngineError as error:
        raise from_engine(error) from None
    request = MatchRequest(player, max_players, target_score, parsed_rules, bots_after)
    key = match_key(max_players, target_score, parsed_rules)
    if connection.in_atomic_block:
        # The caller's transaction would keep a batch's seats uncommitted after its
        # answers were handed out: this request goes alone.
        return MATCHES.serve_alone(key, request)
    return MATCHES.submit(key, request)


def _match_batch(key: str, take: Callable[[], list[MatchRequest]]) -> list[Outcome | ServiceError]:
    """Serve a batch of quick-match requests for the settings `key`, in order, in one
    transaction, committed when this returns; an answer per request.

    Locks, in this order: the settings' advisory lock (`_lock_match`), held to the
    end of the transaction, before the batch is taken; the waiting games it may
    seat players in, oldest first, in one statement; then the rows of the players
    (`_lock_seat_holders`: the open-game cap, and whether they already wait in a
    game of `key`). The advisory lock makes batches for the same settings
    wait for each other, so each sees the seats the one before it took (READ
    COMMITTED reads what committed before the lock was granted): games fill one
    before another is opened, and a player cannot be seated twice. Batches for other
    settings do not wait. Each game row is still locked, and its status and room
    checked again, because leaving, joining by id and the bots' timer change
    quick-match games without the advisory lock."""
    with transaction.atomic():
        _lock_match(key)
        requests = take()
        # A player who asks twice in one batch is served once: both get that answer.
        unique = list({request.player.pk: request for request in requests}.values())
        games = _match_games_with_room(key, len(unique))
        seats_of = _lock_seat_holders([r.player for r in unique])
        answers: dict[Any, Outcome | ServiceError] = {}
        waiting: dict[Any, uuid.UUID] = {}
        to_seat = []
        for request in unique:
            seats = seats_of[request.player.pk]
            waits_in = _waiting_quick_match(seats, key)
            refused = _too_many_games(seats)
            if waits_in is not None:
                waiting[request.player.pk] = waits_in
            elif refused is not None:
                answers[request.player.pk] = refused
            else:
                to_seat.append(request)
        with fastsql.pipelined():
            for game in games:
                room = game.max_players - len(game.seating)
                group, to_seat = to_seat[:room], to_seat[room:]
                if group:
                    events = _seat_players(game, [r.player for r in group])
                    answers.update((r.player.pk, Outcome(game, events)) for r in group)
            built = []
            while to_seat:
                room = to_seat[0].max_players
                group, to_seat = to_seat[:room], to_seat[room:]
                built.append(_match_game_build(key, group))
                outcome = built[-1].outcome
                games.append(outcome.game)
                answers.update((r.player.pk, outcome) for r in group)
            _insert_built(built)
        # Those already waiting get their game as this batch leaves it.
        known = {game.pk: game for game in games}
        for request in unique:
            game_id = waiting.get(request.player.pk)
            if game_id is not None:
                if game_id not in known:
                    known[game_id] = selectors.game_by_id(game_id)
                answers[request.player.pk] = Outcome(known[game_id], [])
    return [answers[request.player.pk] for request in requests]


@dataclass
class _Built:
    """A new game built in memory, with its seats, for `_insert_built` to write."""

    outcome: Outcome
    seats: list[Seat]


def _match_game_build(key: str, group: Sequence[MatchRequest]) -> _Built:
    """A new quick-match game of `key`, hosted by the first of `group`, with each of
    `group` seated in order (as many as it has seats at most), and started if they
    fill it: the whole of its first change, built in memory."""
    host = group[0]
    now = timezone.now()
    players = [request.player for request in group]
    game = Game(
        host=host.player,
        max_players=host.max_players,
        target_score=host.target_score,
        rules=host.rules.to_json(),
        seed=new_seed(),
        seating=[],
        match_key=key,
        bots_at=None if host.bots_after is None else now + dt.timedelta(seconds=host.bots_after),
    )
    seats, items = _seat_rows(game, players)
    state = None
    if len(players) == game.max_players:
        state, dealt = _start(game, now)
        items += dealt
        _follow_state(game, state, now, turn_changed=True)
    return _Built(Outcome(game, _event_rows(game, items, now), state), seats)


def _insert_built(built: Sequence[_Built]) -> None:
    """Write the games built in memory: one INSERT for the games, one for their seats,
    one for their events, and one statement for their players' notifications; and
    arm on commit what each calls for. A new game is at its first version, which its
    row was inserted with."""
    if not built:
        return
    fastsql.insert_rows(Game, [b.outcome.game for b in built])
    fastsql.insert_rows(Seat, [seat for b in built for seat in b.seats])
    fastsql.insert_rows(Event, [event for b in built for event in b.outcome.events])
    _announce_seats([(seat.player_id, b.outcome.game.pk) for b in built for seat in b.seats])
    now = timezone.now()
    for b in built:
        game, state = b.outcome.game, b.outcome.state
        if state is not None:
            _schedule(game, state, now)
        else:
            _arm_match_bots(game)


def _match_games_with_room(key: str, wanted: int) -> list[Game]:
    """Lock the oldest waiting public quick-match games of `key` that have room,
    oldest first: as many as `wanted` players could need (each has a free seat at
    least), at most `MATCH_CANDIDATES`."""
    games = selectors.quick_match_candidates(key, limit=min(wanted, MATCH_CANDIDATES))
    return [game for game in games if len(game.seating) < game.max_players]


def _waiting_quick_match(seats: Sequence[selectors.OpenSeat], key: str) -> uuid.UUID | None:
    """The oldest waiting quick-match game of `key` that a player with these open
    seats plays in, if any."""
    waiting = [
        seat
        for seat in seats
        if seat.plays and seat.status == GameStatus.WAITING and seat.match_key == key
    ]
    return (
        min(waiting, key=lambda seat: (seat.created_at, seat.game_id)).game_id if waiting else None
    )


# The quick-match requests of this process, combined per settings.
MATCHES: combining.Combiner[str, MatchRequest, Outcome] = combining.Combiner(_match_batch)


def ratings_recompute() -> tuple[int, int]:
    """Rate every finished rated game again, in the order they finished, from the
    default ratings (`games.results.recompute`); returns (games, ratings). Locks every
    rating row, in key order, for the duration: a game that ends meanwhile waits."""
    return results.recompute()


def match_cancel(*, player: Player) -> list[uuid.UUID]:
    """Leave every waiting quick-match game `player` sits in (`game_leave`), oldest
    first; returns their ids. `WrongPhaseError` when there is none. Locks each of
    those game rows in turn, oldest first (so two cancels cannot deadlock), and
    skips a game that started or that the player left meanwhile."""
    with transaction.atomic():
        left = []
        for game_id in selectors.quick_matches_waiting_for(player):
            try:
                _leave(game_id, player, (GameStatus.WAITING,))
            except (WrongPhaseError, Forbidden):
                continue
            left.append(game_id)
        if not left:
            raise WrongPhaseError("you are not waiting in any quick match")
    return left


def match_bots_fill(*, game_id: Any, version: int, skip_locked: bool = False) -> Outcome | None:
    """Give the empty seats of a waiting quick-match game to `REPLACEMENT_BOT`s and
    start it, once its `bots_at` has come. Locks the game row (with `skip_locked`, a
    game locked elsewhere is left for a later sweep). Does nothing (returns None)
    when the game is not waiting at `version` or its time has not come."""
    with transaction.atomic():
        due = _lock_when_due(
            game_id, version, lambda game: game.bots_at, skip_locked, GameStatus.WAITING
        )
        if due is None:
            return None
        game, now = due
        added = BotAddedData(strategy=REPLACEMENT_BOT)
        items = [
            _take_seat(game, None, REPLACEMENT_BOT, "bot_added", added)
            for _ in range(len(game.seating), game.max_players)
        ]
        return _deal(game, items, now)


# -- play ------------------------------------------------------------------------------


def move_apply(*, game_id: Any, player: Player, version: int, move: Move) -> Outcome:
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
    ratings = results.lock_ratings(game) if state.finished else None  # before the clock
    now = timezone.now()
    game.moves += 1
    items = list(engine_events)
    if state.finished:
        items += results.record(game, state, now, ratings)
    events = _store(
        game,
        state,
        items,
        now,
        turn_changed=_to_act_key(state) != before,
        fields=["moves"],
    )
    _record_results(game, engine_events)
    metrics.MOVES.labels(move.action, actor).inc()
    return Outcome(game, events, state)


# -- bots and timers -------------------------------------------------------------------


def bot_act(*, game_id: Any, version: int) -> Outcome | None:
    """Make the next bot move of the game at `version`, if a bot has one.

    Bots that may act out of turn (catch a forgotten UNO, jump in) go before the
    bot whose turn it is, since its move would close their chance. The bot thinks
    without a lock; then the game row is locked and the move applied only if the
    game is still at `version`. Does nothing (returns None) when the game has moved
    on, is not running, or no bot wants to move.
    """
    try:
        game = selectors.game_by_id(game_id)
    except (NotFound, ValueError, TypeError, ValidationError):
        return None
    if not _bots_may_move(game, version):
        return None
    choice = _bot_choice(game, GameState.from_snapshot(game.state))
    if choice is None:
        return None
    seat, move = choice
    with transaction.atomic():
        game = _lock_game(game_id)
        if not _bots_may_move(game, version):
            return None
        state = GameState.from_snapshot(game.state)
        turn_came = game.updated_at  # the change that gave the bot its move
        try:
            outcome = _play(game, state, seat, move, actor="bot")
        except ServiceError:
            # A bot asked for something the engine refused: a bug in the bot, but the
            # game must go on. The bot to act falls back on its first legal move.
            log.exception("bot at seat %s of game %s chose %s", seat, game.pk, move)
            if seat != state.to_act:
                return None
            fallback = engine.legal_moves(state, seat)[0]
            outcome = _play(game, state, seat, fallback, actor="bot")
        strategy = str(game.seating[seat]["bot"])
        reaction = (game.updated_at - turn_came).total_seconds()
        metrics.BOT_REACTION_SECONDS.labels(strategy).observe(max(reaction, 0.0))
        return outcome


def _bots_may_move(game: Game, version: int) -> bool:
    """A bot moves only in a running game at `version` that is not paused."""
    return (
        game.status == GameStatus.PLAYING and game.version == version and game.paused_until is None
    )


def _bot_choice(game: Game, state: GameState) -> tuple[int, Move] | None:
    """The next bot action of the game at its current version (`bots.next_action`):
    each decision drawn from the game's seed, the version and the seat."""

    def decide(
        strategy: str, view: engine.PlayerView, rng: random.Random, seat: int
    ) -> Move | None:
        started = time.perf_counter()
        try:
            return bots.choose(strategy, view, rng)
        except Exception:
            # A bug in a bot must not stall the table: log it, and let the bot to act
            # make its first legal move instead.
            log.exception("bot %s at seat %s of game %s failed", strategy, seat, game.pk)
            return None
        finally:
            metrics.BOT_DECISION_SECONDS.labels(strategy).observe(time.perf_counter() - started)

    return bots.next_action(
        state,
        [taken["bot"] for taken in game.seating],
        history=lambda: selectors.round_history(game, state.round),
        rng_for=lambda seat: random.Random(derive(game.seed, "bot", game.version, seat)),
        decide=decide,
    )


def turn_timeout_apply(*, game_id: Any, version: int, skip_locked: bool = False) -> Outcome | None:
    """Give the human to act the default action once their deadline has passed
    (docs/rules.md); the third timeout in a row hands the seat to a bot.

    Locks the game row (with `skip_locked`, a game locked elsewhere is left for a
    later sweep: whoever holds it is changing it). Does nothing (returns None) when
    the game is not at `version`, not running, or the deadline is not yet due.
    """
    with transaction.atomic():
        due = _lock_when_due(game_id, version, lambda game: game.turn_deadline, skip_locked)
        if due is None:
            return None
        game, now = due
        state = GameState.from_snapshot(game.state)
        seat = state.to_act
        if seat is None or _bot_at(game, seat) is not None:
            return None
        assert game.turn_deadline is not None  # due: it has passed
        lateness = (now - game.turn_deadline).total_seconds()
        engine_events = engine.apply_timeout(state)
        items = list(engine_events)
        game.moves += 1
        fields = ["moves"]
        if state.timeouts[seat] >= TIMEOUTS_BEFORE_BOT and not state.finished:
            seats = _seats(game)
            items.append(_hand_to_bot(game, seats[seat], state.round, timed_out=True))
            items += _without_humans(game, seats, now)
            fields += ["seating", "paused_until"]
        if state.finished:
            ratings = results.lock_ratings(game)
            now = timezone.now()  # after the ratings' locks, as for a move
            items += results.record(game, state, now, ratings)
        events = _store(game, state, items, now, turn_changed=True, fields=fields)
        _record_results(game, engine_events)
    metrics.MOVES.labels("timeout", "timer").inc()
    metrics.TIMEOUT_LATENESS_SECONDS.labels("sweep" if skip_locked else "timer").observe(lateness)
    return Outcome(game, events, state)


class Swept(NamedTuple):
    """What one sweep applied."""

    timeouts: int
    bot_moves: int
    pauses_ended: int
    quick_matches_started: int


def sweep_overdue(*, bot_grace: dt.timedelta) -> Swept:
    """The backstop of the timers: apply every overdue turn timeout, move every bot
    overdue by more than `bot_grace` (its task was lost), abandon every game
    whose pause ran out, and give bots the empty seats of every quick-match game
    whose `bots_at` came. Each game is locked with skip_locked in its own
    transaction. First, the sweep's heartbeat is recorded, in a transaction of its
    own that locks only that row."""
    now = timezone.now()
    Heartbeat.objects.update_or_create(name=Heartbeat.SWEEP, defaults={"at": now})
    timeouts = sum(
        turn_timeout_apply(game_id=game_id, version=version, skip_locked=True) is not None
        for game_id, version in selectors.overdue_turns(now)
    )
    moved = sum(
        bot_act(game_id=game_id, version=version) is not None
        for game_id, version in selectors.overdue_bots(now - bot_grace)
    )
    ended = sum(
        game_pause_expire(game_id=game_id, version=version, skip_locked=True) is not None
        for game_id, version in selectors.expired_pauses(now)
    )
    started = sum(
        match_bots_fill(game_id=game_id, version=version, skip_locked=True) is not None
        for game_id, version in selectors.overdue_quick_matches(now)
    )
    return Swept(timeouts, moved, ended, started)


# -- stream tickets ----------------------------------------------------------------------

STREAM_TICKET_LIFETIME = dt.timedelta(seconds=60)


def stream_ticket_issue(*, game_id: Any | None, player: Player) -> tuple[str, dt.datetime]:
    """A ticket that opens `player`'s stream of the game (or, with no game, their
    lobby stream) once, within 60 seconds (returned with its expiry; only its hash
    is kept). Locks nothing: it inserts."""
    game = None if game_id is None else selectors.game_get(game_id)
    ticket = secrets.token_urlsafe(32)
    expires_at = timezone.now() + STREAM_TICKET_LIFETIME
    with transaction.atomic():
        StreamTicket.objects.create(
            ticket_hash=hash_token(ticket), player=player, game=game, expires_at=expires_at
        )
    return ticket, expires_at


def stream_tickets_purge() -> int:
    """Delete the tickets that expired (used or not); returns how many went. Locks
    nothing: it only deletes rows no one can use any more."""
    deleted, _ = StreamTicket.objects.filter(expires_at__lt=timezone.now()).delete()
    return deleted


def stream_ticket_redeem(*, ticket: str, game_id: Any | None) -> Player | None:
    """The player of an unused, unexpired ticket for this game (None: a lobby
    stream's ticket), marking it used; None for any other ticket. One UPDATE: two
    uses at once cannot both succeed."""
    now = timezone.now()
    with transaction.atomic():
        for_stream = Q(game__isnull=True) if game_id is None else Q(game_id=game_id)
        used = StreamTicket.objects.filter(
            for_stream,
            ticket_hash=hash_token(ticket),
            used_at__isnull=True,
            expires_at__gt=now,
        ).update(used_at=now)
        if used != 1:
            return None
        return (
            StreamTicket.objects.select_related("player").get(ticket_hash=hash_token(ticket)).player
        )
