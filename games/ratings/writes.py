"""What a finished game leaves behind: each seat's result, and the ratings it moves.

Called by the services, inside the transaction that ends the game, with the game row
locked: `lock_ratings` first (before the change's clock is read, see there), then
`record`. Also the one place that knows who a seat is rated as, which the recompute
command (`games.management.commands.recompute_ratings`) and an operator's annulment
(`games.ratings.annulment`) share. What decides whether a game counts, and
who a seat is rated as, is `games.ratings.rules`.

The rules that keep ratings from being farmed live here too: a player who forfeited
(left, or lost the seat to timeouts and never took it back) places last whatever the
bot did with the seat (`players.rating.places`); humans who joined from one address
group do not rate each other (`rules.SAME_NETWORK`); a game in which two of its
humans had already finished `REPEATS_PER_WINDOW` rated games together within
`REPEAT_WINDOW` finishes unrated (`REPEAT_OPPONENTS`), counted per pair
(`RatedPair`), whatever else sat at the tables; and each rating keeps the first few
different established humans it met (`games.ratings.opponents`), which the
leaderboard asks for (`players.standings`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from games import engine
from games.engine import GameState
from games.engine.vocabulary import GameRatedData, SeatRatingData
from games.models import Game, GameStatus, RatedPair, Result
from games.ratings import opponents
from games.ratings.opponents import is_human
from games.ratings.rules import (
    REPEAT_OPPONENTS,
    forfeited,
    rating_change,
    rating_json,
    seat_key,
    unrated_setting,
)
from players import rating
from players.models import BOT_KEY_PREFIX, Rating
from unoservice import fastsql, metrics

# Two humans' rated games together within the window, beyond which a game of both
# finishes unrated, whoever else sits with them: two accounts that keep meeting (the
# same quick match asked for at once, or one account beating another that lets it)
# stop moving ratings, at a table of two or of ten.
REPEATS_PER_WINDOW = 3
REPEAT_WINDOW = dt.timedelta(hours=24)


@dataclass(frozen=True)
class Rated:
    """What `lock_ratings` found for a finished game: the locked ratings of its seats
    when it is rated, else why it is not."""

    ratings: dict[str, Rating] | None
    unrated_reason: str | None = None


def humans_of(game: Game) -> str:
    """The set of human players of `game` (those who forfeited included), as a short
    digest: equal for two games of the same humans, whatever their seats."""
    ids = sorted({str(e["player"]["id"]) for e in game.seating if e["player"] is not None})
    return hashlib.sha256(" ".join(ids).encode()).hexdigest()[:32]


def lock_ratings(game: Game) -> Rated:
    """The ratings of the seats of `game`, which has just finished, locked in key
    order (two games ending at once lock their shared rows in the same order, so they
    cannot deadlock), created at the default for a first rated game; or why the game
    is not rated.

    Called before the ending change reads the clock: a game that shares a rating with
    one ending at the same moment waits here for that one to commit, so its
    `finished_at` comes later, and ordering games by `finished_at` replays the
    updates in the order they were made. The repeat limit is counted after the locks
    are held, so that two games of the same humans ending at once are counted one
    after the other: the count sees the pairs the first one committed."""
    reason = unrated_setting(game)
    if reason is not None:
        return Rated(None, reason)
    keys = sorted({seat_key(entry) for entry in game.seating})
    fresh = rating.Skill()
    missing = [_fresh_row(key, fresh) for key in keys]
    with fastsql.pipelined():  # create the first-timers' rows and lock all, unawaited
        fastsql.insert_rows(Rating, missing, ignore_conflicts=True)
        rows = fastsql.select_in(Rating, "key", keys, order_by="key", lock=True)
    locked = {row.key: row for row in rows}
    # A newcomer's first games skip the count: a pair of whom one has fewer rated
    # games in all cannot have used up its limit.
    veterans = sorted(
        key for key, row in locked.items() if is_human(key) and row.games >= REPEATS_PER_WINDOW
    )
    if len(veterans) >= 2 and repeated(veterans, timezone.now() - REPEAT_WINDOW):
        return Rated(None, REPEAT_OPPONENTS)
    return Rated(locked)


def repeated(humans: Sequence[str], since: dt.datetime) -> bool:
    """Whether two of `humans` (player ids, sorted) finished `REPEATS_PER_WINDOW`
    rated games together since `since`: index ranges of `rated_pair_recent`, at most
    that many rows each, one per pair of them (45 at a table of ten), so the cost does
    not grow with how much anyone plays. Hand-built SQL: it runs in every rated
    game's ending move, in the statement the count by set of humans took before."""
    table = connection.ops.quote_name(RatedPair._meta.db_table)
    marks = ", ".join(["%s"] * len(humans))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT 1 FROM {table} WHERE low IN ({marks}) AND high IN ({marks})"
            " AND finished_at >= %s GROUP BY low, high HAVING COUNT(*) >= %s LIMIT 1",
            [*humans, *humans, since, REPEATS_PER_WINDOW],
        )
        return cursor.fetchone() is not None


def insert_pairs(game: Game, finished_at: dt.datetime) -> None:
    """Write a rated game's rows of `RatedPair`, every pair of its humans (45 at a
    table of ten), in one INSERT. Hand-built SQL, the values converted once: it runs in
    every rated game's ending move, where 45 model instances cost a millisecond."""
    humans = sorted({str(e["player"]["id"]) for e in game.seating if e["player"] is not None})
    pairs = list(itertools.combinations(humans, 2))
    if not pairs:
        return
    meta = RatedPair._meta
    game_id = meta.get_field("game").get_db_prep_save(game.pk, connection)
    at = meta.get_field("finished_at").get_db_prep_save(finished_at, connection)
    quote = connection.ops.quote_name
    columns = ", ".join(quote(name) for name in ("game_id", "low", "high", "finished_at"))
    rows = ", ".join(["(%s, %s, %s, %s)"] * len(pairs))
    params = [value for low, high in pairs for value in (game_id, low, high, at)]
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES {rows}", params)


def _fresh_row(key: str, fresh: rating.Skill) -> Rating:
    bot = key.removeprefix(BOT_KEY_PREFIX) if key.startswith(BOT_KEY_PREFIX) else None
    return Rating(
        key=key,
        player_id=None if bot is not None else key,
        bot=bot,
        mu=fresh.mu,
        sigma=fresh.sigma,
        ordinal=fresh.ordinal,
    )


# The columns of a rating that rating a game changes.
RATED_FIELDS = ("mu", "sigma", "ordinal", "games", "opponents", "opponents_met", "met")


def record(
    game: Game,
    state: GameState,
    now: dt.datetime,
    rated: Rated | None,
) -> list[engine.Event]:
    """Write the results of the finished `game` and, when it is rated (`rated`, as
    `lock_ratings` found it), move every seat's rating; returns the `game_rated`
    event to log with the ending change (none for an unrated game). Sets the game's
    `unrated_reason`, which the caller saves with the ending change."""
    assert rated is not None, "lock_ratings comes first"
    ratings = rated.ratings
    game.unrated_reason = rated.unrated_reason if ratings is None else None
    # Counted here, where the repeat limit's word is known.
    metrics.GAMES_ENDED.labels(GameStatus.FINISHED, str(ratings is not None).lower()).inc()
    results = _results(game, state, now, rated=ratings is not None, reason=rated.unrated_reason)
    if ratings is None:
        fastsql.insert_rows(Result, results)
        return []
    moved = rate_results(results, ratings)
    changed = list(ratings.values())
    for row in changed:
        row.updated_at = now
    with fastsql.pipelined():  # the three writes in one round trip
        fastsql.update_rows(Rating, changed, [*RATED_FIELDS, "updated_at"])
        fastsql.insert_rows(Result, results)
        insert_pairs(game, now)
    keys = [result.key for result in results]
    return [engine.Event("game_rated", None, _rated_data(moved, keys), state.round)]


def rate_results(
    results: Sequence[Result], ratings: dict[str, Rating]
) -> list[tuple[rating.Skill, rating.Skill, int]]:
    """Rate the game of `results` (its seats, in order), moving `ratings` in memory,
    and write each seat's rating before and after into its result. A partners game
    (its results name their teams) is rated by team."""
    teams = None
    if results and all(r.team is not None for r in results):
        teams = [[i for i, r in enumerate(results) if r.team == t] for t in (0, 1)]
    moved = rate([r.key for r in results], [r.place for r in results], ratings, teams)
    for result, (before, after, games) in zip(results, moved, strict=True):
        result.mu_before, result.sigma_before = before.mu, before.sigma
        result.mu_after, result.sigma_after = after.mu, after.sigma
        result.games_after = games
    return moved


def rate(
    keys: Sequence[str],
    places: Sequence[int],
    ratings: dict[str, Rating],
    teams: Sequence[Sequence[int]] | None = None,
) -> list[tuple[rating.Skill, rating.Skill, int]]:
    """Rate one game whose seat i counted for `keys[i]` and placed `places[i]` (with
    `teams`, the seats of each team, which place together): update the `ratings` rows
    in memory (each key once, however many seats it held) and return each seat's
    (before, after, rated games after). The incremental update and the recompute
    both rate through here."""
    priors = {key: rating.Skill(row.mu, row.sigma) for key, row in ratings.items()}
    seat_priors = [priors[key] for key in keys]
    if teams is None:
        posteriors = rating.rate(seat_priors, places)
    else:
        team_places = [places[team[0]] for team in teams]
        posteriors = rating.rate_teams(seat_priors, teams, team_places)
    # Judged on the ratings as they stood before this game counts.
    opponents.meet_all(keys, ratings)
    now_games = {}
    for key, row in ratings.items():
        seats = [posteriors[i] for i, k in enumerate(keys) if k == key]
        after = rating.combine(priors[key], seats)
        row.mu, row.sigma, row.ordinal = after.mu, after.sigma, after.ordinal
        row.games += 1
        now_games[key] = row.games
    return [
        (priors[key], rating.Skill(ratings[key].mu, ratings[key].sigma), now_games[key])
        for key in keys
    ]


def _rated_data(
    moved: Sequence[tuple[rating.Skill, rating.Skill, int]], keys: Sequence[str]
) -> GameRatedData:
    return GameRatedData(
        ratings=[
            SeatRatingData(
                seat=seat,
                rated_as=keys[seat],
                rating=rating_json(after, games),
                change=rating_change(before, after),
            )
            for seat, (before, after, games) in enumerate(moved)
        ]
    )


# The columns of a result that rating its game writes.
RATING_OF_RESULT = ("mu_before", "sigma_before", "mu_after", "sigma_after", "games_after")


def recompute() -> tuple[int, int]:
    """Rate every finished rated game again, in the order they finished, from the
    default rating: the ratings and the results' before and after are rewritten.
    The decisions taken when each game ended stand: who forfeited (their places),
    which games the repeat limit left unrated, which an operator annulled.
    Returns (games rated, ratings written). Locks every rating row for the
    duration, in key order, so that no game ending meanwhile interleaves."""
    with transaction.atomic():
        _backfill()
        rows = {row.key: row for row in Rating.objects.select_for_update().order_by("key")}
        fresh = rating.Skill()
        for row in rows.values():
            row.mu, row.sigma, row.ordinal, row.games = (
                fresh.mu,
                fresh.sigma,
                fresh.ordinal,
                0,
            )
            row.opponents, row.opponents_met, row.met = "", 0, ""
        games = 0
        changed: list[Result] = []
        by_game: dict[Any, list[Result]] = {}
        ordered = Result.objects.filter(rated=True).order_by("finished_at", "game_id", "seat")
        for result in ordered:
            by_game.setdefault(result.game_id, []).append(result)
        for seats in by_game.values():
            rate_results(seats, {r.key: rows[r.key] for r in seats})
            changed += seats
            games += 1
        Rating.objects.bulk_update(list(rows.values()), list(RATED_FIELDS))
        Result.objects.bulk_update(changed, list(RATING_OF_RESULT), batch_size=500)
    return games, len(rows)


def _backfill() -> None:
    """Results for the games that finished before results were kept (their ratings'
    rows too, at the default), so that the recompute rates them in their turn."""
    done = Result.objects.values("game_id")
    finished = Game.objects.filter(status=GameStatus.FINISHED, finished_at__isnull=False)
    for game in finished.exclude(pk__in=done).order_by("finished_at", "id").iterator():
        state = GameState.from_snapshot(game.state)
        assert game.finished_at is not None
        reason = unrated_setting(game)
        rated = reason is None
        if rated:
            fresh = rating.Skill()
            Rating.objects.bulk_create(
                [_fresh_row(key, fresh) for key in sorted({seat_key(e) for e in game.seating})],
                ignore_conflicts=True,
            )
        results = _results(game, state, game.finished_at, rated=rated, reason=reason)
        Result.objects.bulk_create(results)


def _results(
    game: Game,
    state: GameState,
    finished_at: dt.datetime,
    *,
    rated: bool,
    reason: str | None,
) -> list[Result]:
    """The seats' results of the finished `game`, whose final state is `state`."""
    assert state.winner is not None
    gone = [forfeited(entry) for entry in game.seating]
    teams = [state.config.team_of(seat) for seat in range(state.players)]
    if state.config.partners:
        # A team's place is the team's: the winner's partner placed first with them.
        places = [1 if team == state.winner % 2 else 2 for team in teams]
    else:
        places = rating.places(state.scores, state.winner, gone)
    humans = humans_of(game)
    return [
        Result(
            game=game,
            seat=seat,
            player_id=entry["player"]["id"] if entry["player"] is not None else None,
            bot=entry["bot"],
            key=seat_key(entry),
            place=places[seat],
            team=teams[seat],
            points=state.scores[seat],
            finished_at=finished_at,
            rated=rated,
            unrated_reason=None if rated else reason,
            forfeited=gone[seat],
            humans=humans,
        )
        for seat, entry in enumerate(game.seating)
    ]
