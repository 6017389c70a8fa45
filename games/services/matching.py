"""Quick match: requests for the same settings served in batches, the games they
fill or open, cancelling, and the bots that fill the seats nobody took."""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from games import combining, selectors
from games.engine import EngineError, GameConfig, Rules, fair
from games.engine.rng import new_seed
from games.engine.state import PARTNERS_SEATS
from games.engine.vocabulary import BotAddedData
from games.errors import from_engine
from games.models import Event, Game, GameMode, GameStatus, Seat
from games.services.common import REPLACEMENT_BOT, Outcome, _lock_when_due
from games.services.lobby import _leave
from games.services.saving import adopt_state, event_rows, schedule_tasks
from games.services.seating import (
    _announce_seats,
    _deal,
    _lock_seat_holders,
    _networks,
    _note_client_seeds,
    _seat_players,
    _seat_rows,
    _start,
    _take_seat,
    _too_many_games,
)
from games.services.teams import place_partners, team_order
from players.models import Player
from players.social import selectors as social
from unoservice import fastsql
from unoservice.errors import (
    Forbidden,
    InvalidRequest,
    ServiceError,
    SettingsConflict,
    WrongPhaseError,
)

# Quick match (`match_find`): seconds after a game's first seat was taken before its
# empty seats go to bots, when the request does not say (null there means never).
DEFAULT_BOTS_AFTER = 30

MIN_BOTS_AFTER, MAX_BOTS_AFTER = 5, 600

# The oldest waiting quick-match games with the same settings one batch looks at.
MATCH_CANDIDATES = 10


def match_key(
    max_players: int, target_score: int, rules: Rules, mode: str = GameMode.CLASSIC
) -> str:
    """The settings quick match pairs players on, as `Game.match_key` stores them:
    seats, target score and the house rules that are on, in a fixed order, and
    `:partners` for the partners queue (the other settings of a quick-match game are
    always the defaults)."""
    on = ",".join(sorted(name for name, value in rules.to_json().items() if value))
    key = f"{max_players}:{target_score}:{on}"
    return key if mode == GameMode.CLASSIC else f"{key}:{mode}"


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
    address: str | None = None  # where the request came from (`Game.networks`)
    client_seed: str | None = None  # for the deal; one is made when None
    mode: str = GameMode.CLASSIC
    partner: str | None = None  # partners: the friend's id to sit on one team with


def match_find(
    *,
    player: Player,
    max_players: int = 4,
    target_score: int = 500,
    rules: dict[str, bool] | None = None,
    bots_after: int | None = DEFAULT_BOTS_AFTER,
    address: str | None = None,
    client_seed: str | None = None,
    mode: str = GameMode.CLASSIC,
    partner: uuid.UUID | None = None,
) -> Outcome:
    """Quick match: seat `player` in the oldest public waiting quick-match game with
    exactly these settings that has room, or create one they host, whose empty seats
    go to bots `bots_after` seconds from now (None: never). A game this fills starts
    at once. A player already waiting in a quick-match game with these settings gets
    it back, unchanged. Two players with a block between them (either way) are
    never seated in one game. In the partners queue (`mode`), a player may name a
    friend as `partner`: when each names the other they sit on one team (`teams`).

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
    _check_partner(player, max_players, mode, partner)
    problem = None if client_seed is None else fair.client_seed_problem(client_seed)
    if problem is not None:
        raise InvalidRequest(
            f"client_seed: {problem}", details={"fields": {"client_seed": [problem]}}
        )
    request = MatchRequest(
        player,
        max_players,
        target_score,
        parsed_rules,
        bots_after,
        address,
        client_seed,
        mode,
        None if partner is None else str(partner),
    )
    key = match_key(max_players, target_score, parsed_rules, mode)
    if connection.in_atomic_block:
        # The caller's transaction would keep a batch's seats uncommitted after its
        # answers were handed out: this request goes alone.
        return MATCHES.serve_alone(key, request)
    return MATCHES.submit(key, request)


def _check_partner(player: Player, seats: int, mode: str, partner: uuid.UUID | None) -> None:
    """The partners queue is four seats; a partner is a friend, and only there."""
    if mode == GameMode.PARTNERS and seats != PARTNERS_SEATS:
        raise SettingsConflict(f"partners is played by {PARTNERS_SEATS}: max_players must be 4")
    if partner is None:
        return
    if mode != GameMode.PARTNERS:
        raise SettingsConflict("partner is for the partners queue (mode partners)")
    if partner == player.pk:
        raise InvalidRequest("partner: name a friend, not yourself")
    if not social.are_friends(player.pk, partner):
        raise Forbidden("you may queue as a team only with a friend")


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
    quick-match games without the advisory lock.

    Nobody is seated with a player they block or who blocks them: the blocks among
    the batch's players and the humans seated in those games are read in one query,
    and a request goes to the first game where it has none (`_place`)."""
    with transaction.atomic():
        _lock_match(key)
        requests = take()
        # A player who asks twice in one batch is served once: both get that answer.
        unique = list({request.player.pk: request for request in requests}.values())
        partners = bool(unique) and unique[0].mode == GameMode.PARTNERS
        # In the partners queue the oldest games may have no seat left but those held
        # for partners still to come: look further.
        games = _match_games_with_room(key, MATCH_CANDIDATES if partners else len(unique))
        games += _games_holding_seats_for(key, unique, games)
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
        place = place_partners if partners else _place
        placed, fresh = place(to_seat, games, _blocks_among(to_seat, games))
        with fastsql.pipelined():
            for game, group in zip(games, placed, strict=True):
                if group:
                    game.networks = _networks(game.networks, [(r.player, r.address) for r in group])
                    _note_client_seeds(game, {r.player.pk: r.client_seed for r in group})
                    game.duos = {**game.duos, **_duos_of(group)}
                    events = _seat_players(game, [r.player for r in group])
                    answers.update((r.player.pk, Outcome(game, events)) for r in group)
            built = []
            for group in fresh:
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


def _games_holding_seats_for(
    key: str, requests: Sequence[MatchRequest], known: Sequence[Game]
) -> list[Game]:
    """The waiting games of `key` where the partners the `requests` name sit, beyond
    the `known` ones, locked: where a seat may be held for them."""
    partners = [r.partner for r in requests if r.partner is not None]
    if not partners:
        return []
    known_ids = {game.pk for game in known}
    games = selectors.quick_matches_seating(key, partners)
    return [game for game in games if game.pk not in known_ids]


def _duos_of(group: Sequence[MatchRequest]) -> dict[str, str]:
    return {str(r.player.pk): r.partner for r in group if r.partner is not None}


def _blocks_among(requests: Sequence[MatchRequest], games: Sequence[Game]) -> dict[str, set[str]]:
    """Who blocks whom, either way, among the players of `requests` and the humans
    seated in `games`: each player's id with the ids they must not sit with, read in
    one query (none when nobody is to be seated)."""
    if not requests:
        return {}
    ids = {str(request.player.pk) for request in requests}
    for game in games:
        ids.update(game.human_player_ids())
    apart: dict[str, set[str]] = {}
    for pair in social.blocked_pairs(ids):
        one, other = tuple(pair)
        apart.setdefault(one, set()).add(other)
        apart.setdefault(other, set()).add(one)
    return apart


def _place(
    requests: Sequence[MatchRequest], games: Sequence[Game], apart: Mapping[str, set[str]]
) -> tuple[list[list[MatchRequest]], list[list[MatchRequest]]]:
    """Where each of `requests` sits, in order: in the first of `games` (the waiting
    candidates, oldest first) with a free seat where nobody seated or placed before
    has a block with it (`apart`), else in the first new game that has room and no
    such player, else in one more new game. Returns the requests placed in each of
    `games`, and the groups of the new games (each hosted by its first). Without
    blocks, this fills the candidates one after the other, then new games."""
    members = [set(game.human_player_ids()) for game in games]
    rooms = [game.max_players - len(game.seating) for game in games]
    placed: list[list[MatchRequest]] = [[] for _ in games]
    fresh: list[list[MatchRequest]] = []
    fresh_members: list[set[str]] = []
    nobody: set[str] = set()
    for request in requests:
        player_id = str(request.player.pk)
        kept_from = apart.get(player_id, nobody)
        for n in range(len(games)):
            if rooms[n] > 0 and kept_from.isdisjoint(members[n]):
                placed[n].append(request)
                members[n].add(player_id)
                rooms[n] -= 1
                break
        else:
            for group, ids in zip(fresh, fresh_members, strict=True):
                if len(group) < request.max_players and kept_from.isdisjoint(ids):
                    group.append(request)
                    ids.add(player_id)
                    break
            else:
                fresh.append([request])
                fresh_members.append({player_id})
    return placed, fresh


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
    duos = _duos_of(group)
    if len(group) == PARTNERS_SEATS and host.mode == GameMode.PARTNERS:
        ids = [str(request.player.pk) for request in group]
        group = [group[seat] for seat in team_order(ids, duos)]
    players = [request.player for request in group]
    game = Game(
        host=host.player,
        max_players=host.max_players,
        target_score=host.target_score,
        rules=host.rules.to_json(),
        seed=new_seed(),
        server_seed=fair.new_server_seed(),
        seating=[],
        networks=_networks({}, [(r.player, r.address) for r in group]),
        match_key=key,
        mode=host.mode,
        duos=duos,
        bots_at=None if host.bots_after is None else now + dt.timedelta(seconds=host.bots_after),
    )
    _note_client_seeds(game, {r.player.pk: r.client_seed for r in group})
    seats, items = _seat_rows(game, players)
    state = None
    if len(players) == game.max_players:
        state, dealt = _start(game, now)
        items += dealt
        adopt_state(game, state, now, turn_changed=True)
    return _Built(Outcome(game, event_rows(game, items, now), state), seats)


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
        schedule_tasks(b.outcome.game, b.outcome.state, now)


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


def match_bots_fill(
    *, game_id: uuid.UUID, version: int, skip_locked: bool = False
) -> Outcome | None:
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
