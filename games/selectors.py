"""Reading games and their logs: the queries of the API, the live streams, the timers
and the admin, returning model instances and plain values. Rendering them for a
reader is `games.presenters`' job."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from django.db.models import Exists, OuterRef, Q, QuerySet

from games import engine
from games.engine.vocabulary import is_event_type
from games.filters import GameFilter
from games.models import (
    OPEN_STATUSES,
    OVER_STATUSES,
    BotStrategy,
    Event,
    Game,
    GameStatus,
    Heartbeat,
    Seat,
    Visibility,
)
from players.models import Player
from players.social import selectors as social
from unoservice import codes, fastsql, presence
from unoservice.errors import InvalidRequest, LogCorrupt, NotFound


def parse_game_id(raw: object) -> uuid.UUID:
    """A malformed id is just another game that does not exist."""
    try:
        return uuid.UUID(str(raw))
    except ValueError:
        raise NotFound("no such game") from None


def game_by_id(game_id: object, *, lock: bool = False, skip_locked: bool = False) -> Game:
    """One game row, optionally locked (``FOR UPDATE``) for the caller's transaction.
    With `skip_locked`, a row another transaction holds counts as not found. Every
    move and view read starts here, hence `fastsql`."""
    game = fastsql.select_by(Game, "id", game_id, lock=lock, skip_locked=skip_locked)
    if game is None:
        raise NotFound("no such game")
    return game


def game_get(game_id: object) -> Game:
    return game_by_id(parse_game_id(game_id))


def game_or_none(game_id: object) -> Game | None:
    """One game row by an id as typed (the admin's URLs), or None for an id that is
    malformed or names no game."""
    try:
        return Game.objects.filter(pk=uuid.UUID(str(game_id))).first()
    except ValueError:
        return None


def games_with_id(games: QuerySet[Game], game_id: uuid.UUID) -> QuerySet[Game]:
    """`games` narrowed to the one with this id (the admin's search by id)."""
    return games.filter(pk=game_id)


def games_with_bots(games: QuerySet[Game], *, bots: bool) -> QuerySet[Game]:
    """`games` narrowed to those where a bot holds a seat, or (`bots` False) to those
    of humans only."""
    if bots:
        return games.filter(seats__bot__isnull=False).distinct()
    return games.exclude(seats__bot__isnull=False)


def with_players(seats: QuerySet[Seat]) -> QuerySet[Seat]:
    """`seats` with their players read in the same query (a seat is named by them)."""
    return seats.select_related("player")


def ids_of(games: QuerySet[Game]) -> list[uuid.UUID]:
    return list(games.values_list("pk", flat=True))


def abandonment(game: Game) -> Event | None:
    """The `game_abandoned` event that ended `game`, if one did."""
    return Event.objects.filter(game=game, type="game_abandoned").order_by("-seq").first()


# The seats a player plays, and those a bot holds after their timeouts (which they
# may resume): what makes them one of a game's players.
HELD = Q(bot__isnull=True) | Q(timed_out=True)


def _seats_held(player: Player) -> QuerySet[Seat]:
    """The seats that make `player` one of a game's players (`HELD`)."""
    return Seat.objects.filter(HELD, player=player)


def holds_seat(game: Game, player: Player) -> bool:
    """Whether `player` is one of `game`'s players (see `_seats_held`)."""
    return game.seat_of(player) is not None or _seats_held(player).filter(game=game).exists()


def expert_bots_of(player: Player) -> int:
    """The expert bots seated as bots (not in a seat a player left or lost) in the
    waiting and running games `player` is one of the players of (`HELD`)."""
    theirs = _seats_held(player).filter(game=OuterRef("game"))
    experts = Seat.objects.filter(
        Exists(theirs),
        bot=BotStrategy.EXPERT,
        player__isnull=True,
        game__status__in=OPEN_STATUSES,
    )
    return experts.count()


def game_list(*, viewer: Player, filters: Mapping[str, Any]) -> QuerySet[Game]:
    """The lobby and history: every game `viewer` may see listed (the public ones,
    and the private ones among whose players they are: seated, or holding a seat a
    bot took over after their timeouts), newest first, narrowed by the query's
    `status`, `mine` (the games `viewer` sits in) and `your_turn` (the running games
    waiting on `viewer`'s move). A filter value that is not one of its choices is an
    `InvalidRequest` naming the field."""
    theirs = _seats_held(viewer).filter(game=OuterRef("pk"))
    games = (
        Game.objects.select_related("host")
        .filter(Q(visibility=Visibility.PUBLIC) | Exists(theirs))
        .order_by("-created_at")
    )
    filterset = GameFilter(filters, games, viewer=viewer)
    if not filterset.is_valid():
        fields = {
            name: [str(message) for message in messages]
            for name, messages in filterset.errors.items()
        }
        first = next(iter(fields))
        raise InvalidRequest(f"{first}: {fields[first][0]}", details={"fields": fields})
    return filterset.qs


def presence_of(game: Game, prefetched: presence.Prefetched | None = None) -> presence.Presence:
    """Which of the game's seated humans are online and how many spectators' streams
    are open on it: one cache round trip, none when the request's rate-limit round
    trip read it (`prefetched`), and no query (`unoservice.presence`)."""
    return presence.read(game.human_player_ids(), game.pk, prefetched)


def _open_games_by_code(typed: str) -> QuerySet[Game]:
    """The waiting or running games whose invite code `typed` is (read by
    `codes.read_code`): one at most, none for a code not of the code's shape."""
    code = codes.read_code(typed)
    if code is None:
        return Game.objects.none()
    return Game.objects.filter(invite_code=code, status__in=OPEN_STATUSES)


def open_game_id_by_code(typed: str) -> uuid.UUID:
    """The id of the waiting or running game whose invite code `typed` is; `NotFound`
    when there is none."""
    found = _open_games_by_code(typed).values_list("pk", flat=True).first()
    if found is None:
        raise NotFound("no open game has this invite code")
    return found


def blocked_at(game: Game, player: Player) -> bool:
    """Whether a human seated in `game` blocks `player` or is blocked by them: then
    the game does not exist for them (docs/api.md, Join)."""
    seated = game.human_player_ids()
    return bool(seated) and bool(social.blockers_among(str(player.pk), seated))


def invitation(typed: str, viewer: Player | None) -> Game:
    """The open game the invite code `typed` leads to, as `viewer` (None: someone
    not signed up yet) may know it: `NotFound` for a code of no open game, and word
    for word so for a game `blocked_at` for the viewer, as joining it would answer."""
    game = _open_games_by_code(typed).select_related("host").first()
    if game is None or (viewer is not None and blocked_at(game, viewer)):
        raise NotFound("no open game has this invite code")
    return game


def game_last_seq(game_id: uuid.UUID) -> int:
    """The seq of a game's latest event: what a long poll watches for."""
    return Game.objects.filter(pk=game_id).values_list("last_seq", flat=True).get()


def games_last_seqs(game_ids: Iterable[uuid.UUID]) -> list[tuple[uuid.UUID, int]]:
    """(id, last seq) of each of these games, in one query."""
    return list(Game.objects.filter(pk__in=list(game_ids)).values_list("pk", "last_seq"))


# A lobby stream follows the games its player finished this recently (and that have
# no rematch yet): a rematch of one of them is news for the lobby.
LOBBY_RECENT_OVER = dt.timedelta(minutes=10)
LOBBY_RECENT_GAMES = 20


def lobby_games(player: Player, now: dt.datetime) -> tuple[list[uuid.UUID], list[uuid.UUID]]:
    """What a lobby stream of `player` follows: (the waiting and running games they
    are one of the players of, the games they played that ended in the last
    `LOBBY_RECENT_OVER` with no rematch yet, newest first, at most
    `LOBBY_RECENT_GAMES`)."""
    held = _seats_held(player)
    open_ids = list(held.filter(game__status__in=OPEN_STATUSES).values_list("game_id", flat=True))
    over = held.filter(
        game__status__in=OVER_STATUSES,
        game__started_at__isnull=False,
        game__rematch__isnull=True,
        game__finished_at__gte=now - LOBBY_RECENT_OVER,
    ).order_by("-game__finished_at")
    return open_ids, list(over.values_list("game_id", flat=True)[:LOBBY_RECENT_GAMES])


def open_games_of(player_ids: Iterable[str]) -> dict[str, frozenset[uuid.UUID]]:
    """For each of these players, the waiting and running games they are one of the
    players of, in one query: what the hub compares to hear that a player got a new
    seat without PostgreSQL's notifications."""
    found = open_seats_of([uuid.UUID(str(pid)) for pid in player_ids])
    return {str(pid): frozenset(seat.game_id for seat in seats) for pid, seats in found.items()}


def game_with_recent_events(game_id: uuid.UUID, after: int, keep: int) -> tuple[Game, list[Event]]:
    """A game (with its host, when they do not play: the view names them) and its
    events after `after`, at most the `keep` newest, in order: what a live channel
    reads when it hears of a change. `Game.DoesNotExist` when it is gone."""
    game = fastsql.select_by(Game, "id", game_id)
    if game is None:
        raise Game.DoesNotExist
    if game.seated_host() is None:
        game.host  # noqa: B018  (loaded on this thread: views are rendered off it)
    events = fastsql.select_newest(
        Event, "game", game_id, order="seq", after=after, upto=game.last_seq, limit=keep
    )
    return game, events


def events_between(game_id: uuid.UUID, after: int, upto: int) -> list[Event]:
    """The events with `after` < seq <= `upto`, in order."""
    rows = Event.objects.filter(game_id=game_id, seq__gt=after, seq__lte=upto)
    return list(rows.order_by("seq"))


def events_around(game: Game, seq: int, *, reach: int) -> list[Event]:
    """The events within `reach` of `seq`, in order (the replay viewer's context)."""
    rows = Event.objects.filter(game=game, seq__gte=max(seq - reach, 1), seq__lte=seq + reach)
    return list(rows.order_by("seq"))


def event_log(game: Game) -> QuerySet[Event]:
    """A game's whole log, in order, to be paged by the caller."""
    return Event.objects.filter(game=game).order_by("seq")


def log_reaches(game_id: uuid.UUID, seq: int) -> bool:
    """Whether the database read holds a game's log up to `seq` (a replica that lags
    may not yet)."""
    return Game.objects.filter(pk=game_id, last_seq__gte=seq).exists()


def all_events(game: Game) -> list[Event]:
    return list(event_log(game))


def round_history(game: Game, round_number: int) -> list[engine.Event]:
    """The stored events of one round, complete, in order: what `player_view` redacts
    for a bot's `history`."""
    rows = Event.objects.filter(game=game, round=round_number).order_by("seq")
    history = []
    for row in rows.only("seq", "type", "seat", "data"):
        if not is_event_type(row.type):
            raise LogCorrupt(f"event {row.seq} has the unknown type {row.type!r}")
        history.append(engine.Event(row.type, row.seat, row.data, round_number))
    return history


def events_after(game: Game, after: int, limit: int) -> list[Event]:
    return list(Event.objects.filter(game=game, seq__gt=after).order_by("seq")[:limit])


def overdue_turns(now: dt.datetime, *, limit: int = 200) -> list[tuple[uuid.UUID, int]]:
    """(id, version) of running games whose human to act is past the deadline."""
    rows = Game.objects.filter(status=GameStatus.PLAYING, turn_deadline__lte=now)
    return list(rows.order_by("turn_deadline").values_list("id", "version")[:limit])


def overdue_bots(before: dt.datetime, *, limit: int = 200) -> list[tuple[uuid.UUID, int]]:
    """(id, version) of running games whose bot to act was due before `before`."""
    rows = Game.objects.filter(status=GameStatus.PLAYING, bot_due_at__lte=before)
    return list(rows.order_by("bot_due_at").values_list("id", "version")[:limit])


def expired_pauses(now: dt.datetime, *, limit: int = 200) -> list[tuple[uuid.UUID, int]]:
    """(id, version) of running games paused for want of humans whose pause ran out."""
    rows = Game.objects.filter(status=GameStatus.PLAYING, paused_until__lte=now)
    return list(rows.order_by("paused_until").values_list("id", "version")[:limit])


def quick_matches_waiting_for(player: Player) -> list[uuid.UUID]:
    """The ids of the waiting quick-match games `player` sits in, oldest first."""
    games = Game.objects.filter(
        status=GameStatus.WAITING,
        match_key__isnull=False,
        seats__player=player,
        seats__bot__isnull=True,
    )
    return list(games.order_by("created_at", "pk").values_list("pk", flat=True))


class OpenSeat(NamedTuple):
    """A seat that makes a player one of the players of a waiting or running game."""

    game_id: uuid.UUID
    status: str
    match_key: str | None
    plays: bool  # False: a bot holds it after their timeouts, until they resume
    created_at: dt.datetime  # the game's


def open_seats_of(player_ids: Sequence[Any]) -> dict[Any, list[OpenSeat]]:
    """For each of these players, the seats that make them one of the players of a
    waiting or running game (`HELD`), in one query."""
    found: dict[Any, list[OpenSeat]] = {player_id: [] for player_id in player_ids}
    rows = Seat.objects.filter(
        HELD, player_id__in=player_ids, game__status__in=OPEN_STATUSES
    ).values_list(
        "player_id", "game_id", "game__status", "game__match_key", "bot", "game__created_at"
    )
    for player_id, game_id, status, key, bot, created_at in rows:
        found[player_id].append(OpenSeat(game_id, status, key, bot is None, created_at))
    return found


def quick_match_candidates(key: str, *, limit: int) -> list[Game]:
    """The oldest waiting public quick-match games with settings `key`, oldest first,
    locked (``FOR UPDATE``) for the caller's transaction in that order: where quick
    match seats a player. A game that stopped waiting while its lock was awaited is
    left out. Every batch of quick match starts here, hence `fastsql`."""
    equal = {"status": GameStatus.WAITING, "match_key": key, "visibility": Visibility.PUBLIC}
    return fastsql.select_where(Game, equal, order_by=("created_at", "id"), limit=limit, lock=True)


def quick_matches_seating(key: str, player_ids: Sequence[str]) -> list[Game]:
    """The waiting public quick-match games of `key` where any of `player_ids` sits,
    oldest first, locked (``FOR UPDATE``) in that order."""
    equal = {"status": GameStatus.WAITING, "match_key": key, "visibility": Visibility.PUBLIC}
    seated = Seat.objects.filter(player_id__in=player_ids, bot__isnull=True).values("game_id")
    rows = Game.objects.filter(**equal, pk__in=seated).order_by("created_at", "id")
    return list(rows.select_for_update(of=("self",)))


def overdue_quick_matches(now: dt.datetime, *, limit: int = 200) -> list[tuple[uuid.UUID, int]]:
    """(id, version) of waiting quick-match games whose bots are due."""
    rows = Game.objects.filter(status=GameStatus.WAITING, bots_at__lte=now)
    return list(rows.order_by("bots_at").values_list("id", "version")[:limit])


def queue_heartbeat_ages(now: dt.datetime) -> dict[str, float]:
    """Seconds since each queue's heartbeat last ran, by queue (those that never ran
    are missing)."""
    rows = Heartbeat.objects.filter(name__startswith=Heartbeat.QUEUE).values_list("name", "at")
    return {
        name.removeprefix(Heartbeat.QUEUE): max(0.0, (now - at).total_seconds())
        for name, at in rows
    }


def last_sweep_age(now: dt.datetime) -> float | None:
    """Seconds since the sweeper last ran (beat sends it), or None if it never did."""
    at = Heartbeat.objects.filter(name=Heartbeat.SWEEP).values_list("at", flat=True).first()
    return None if at is None else max(0.0, (now - at).total_seconds())
