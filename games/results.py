"""What a finished game leaves behind: each seat's result, and the ratings it moves.

Called by the services, inside the transaction that ends the game, with the game row
locked: `lock_ratings` first (before the change's clock is read, see there), then
`record`. Also the one place that knows who a seat is rated as, which the recompute
command (`games.management.commands.recompute_ratings`) shares.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from django.db import transaction

from games import engine
from games.engine import GameState
from games.engine.vocabulary import GameRatedData, RatingChangeData, RatingData, SeatRatingData
from games.models import Game, GameStatus, Result
from players import rating
from players.models import BOT_KEY_PREFIX, Rating, bot_key
from unoservice import fastsql

# A rated game needs this many human players: games among bots are not rated, nor is
# one player against bots (the bots' ratings would move on nobody's contest).
MIN_HUMANS_TO_RATE = 2


def seat_key(entry: dict[str, Any]) -> str:
    """Whose rating a seat of `Game.seating` counts for: its player's, kept when a bot
    finished the game for them (leaving does not dodge a loss), else its bot's."""
    if entry["player"] is not None:
        return str(entry["player"]["id"])
    return bot_key(entry["bot"])


def is_rated(game: Game) -> bool:
    humans = sum(1 for entry in game.seating if entry["player"] is not None)
    return game.rated and humans >= MIN_HUMANS_TO_RATE


def lock_ratings(game: Game) -> dict[str, Rating] | None:
    """The ratings of the seats of `game`, which has just finished, locked in key
    order (two games ending at once lock their shared rows in the same order, so they
    cannot deadlock), created at the default for a first rated game; None when the
    game is not rated.

    Called before the ending change reads the clock: a game that shares a rating with
    one ending at the same moment waits here for that one to commit, so its
    `finished_at` comes later, and ordering games by `finished_at` replays the
    updates in the order they were made."""
    if not is_rated(game):
        return None
    keys = sorted({seat_key(entry) for entry in game.seating})
    fresh = rating.Skill()
    missing = [_fresh_row(key, fresh) for key in keys]
    with fastsql.pipelined():  # create the first-timers' rows and lock all, unawaited
        fastsql.insert_rows(Rating, missing, ignore_conflicts=True)
        rows = fastsql.select_in(Rating, "key", keys, order_by="key", lock=True)
    return {row.key: row for row in rows}


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


def record(
    game: Game,
    state: GameState,
    now: dt.datetime,
    ratings: dict[str, Rating] | None,
) -> list[engine.Event]:
    """Write the results of the finished `game` and, when it is rated (`ratings`, as
    `lock_ratings` locked them), move every seat's rating; returns the `game_rated`
    event to log with the ending change (none for an unrated game)."""
    results = _results(game, state, now, rated=ratings is not None)
    if ratings is None:
        fastsql.insert_rows(Result, results)
        return []
    moved = _rate_results(results, ratings)
    changed = list(ratings.values())
    for row in changed:
        row.updated_at = now
    with fastsql.pipelined():  # both writes in one round trip
        fastsql.update_rows(Rating, changed, ["mu", "sigma", "ordinal", "games", "updated_at"])
        fastsql.insert_rows(Result, results)
    keys = [result.key for result in results]
    return [engine.Event("game_rated", None, _rated_data(moved, keys), state.round)]


def _rate_results(
    results: Sequence[Result], ratings: dict[str, Rating]
) -> list[tuple[rating.Skill, rating.Skill, int]]:
    """Rate the game of `results` (its seats, in order), moving `ratings` in memory,
    and write each seat's rating before and after into its result."""
    moved = rate([r.key for r in results], [r.place for r in results], ratings)
    for result, (before, after, games) in zip(results, moved, strict=True):
        result.mu_before, result.sigma_before = before.mu, before.sigma
        result.mu_after, result.sigma_after = after.mu, after.sigma
        result.games_after = games
    return moved


def rate(
    keys: Sequence[str], places: Sequence[int], ratings: dict[str, Rating]
) -> list[tuple[rating.Skill, rating.Skill, int]]:
    """Rate one game whose seat i counted for `keys[i]` and placed `places[i]`: update
    the `ratings` rows in memory (each key once, however many seats it held) and
    return each seat's (before, after, rated games after). The incremental update
    and the recompute both rate through here."""
    priors = {key: rating.Skill(row.mu, row.sigma) for key, row in ratings.items()}
    posteriors = rating.rate([priors[key] for key in keys], places)
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


def rating_json(skill: rating.Skill, games: int) -> RatingData:
    """A rating as the API shows it."""
    return RatingData(mu=skill.mu, sigma=skill.sigma, ordinal=skill.ordinal, games=games)


def rating_change(before: rating.Skill, after: rating.Skill) -> RatingChangeData:
    """What a game changed of a rating, as the API shows it."""
    return RatingChangeData(
        mu=after.mu - before.mu,
        sigma=after.sigma - before.sigma,
        ordinal=after.ordinal - before.ordinal,
    )


def recompute() -> tuple[int, int]:
    """Rate every finished rated game again, in the order they finished, from the
    default rating: the ratings and the results' before and after are rewritten.
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
        games = 0
        changed: list[Result] = []
        by_game: dict[Any, list[Result]] = {}
        ordered = Result.objects.filter(rated=True).order_by("finished_at", "game_id", "seat")
        for result in ordered:
            by_game.setdefault(result.game_id, []).append(result)
        for seats in by_game.values():
            _rate_results(seats, {r.key: rows[r.key] for r in seats})
            changed += seats
            games += 1
        Rating.objects.bulk_update(list(rows.values()), ["mu", "sigma", "ordinal", "games"])
        Result.objects.bulk_update(
            changed,
            ["mu_before", "sigma_before", "mu_after", "sigma_after", "games_after"],
            batch_size=500,
        )
    return games, len(rows)


def _backfill() -> None:
    """Results for the games that finished before results were kept (their ratings'
    rows too, at the default), so that the recompute rates them in their turn."""
    done = Result.objects.values("game_id")
    finished = Game.objects.filter(status=GameStatus.FINISHED, finished_at__isnull=False)
    for game in finished.exclude(pk__in=done).order_by("finished_at", "id").iterator():
        state = GameState.from_snapshot(game.state)
        assert game.finished_at is not None
        rated = is_rated(game)
        if rated:
            fresh = rating.Skill()
            Rating.objects.bulk_create(
                [_fresh_row(key, fresh) for key in sorted({seat_key(e) for e in game.seating})],
                ignore_conflicts=True,
            )
        Result.objects.bulk_create(_results(game, state, game.finished_at, rated=rated))


def _results(
    game: Game, state: GameState, finished_at: dt.datetime, *, rated: bool
) -> list[Result]:
    """The seats' results of the finished `game`, whose final state is `state`."""
    assert state.winner is not None
    places = rating.places(state.scores, state.winner)
    return [
        Result(
            game=game,
            seat=seat,
            player_id=entry["player"]["id"] if entry["player"] is not None else None,
            bot=entry["bot"],
            key=seat_key(entry),
            place=places[seat],
            points=state.scores[seat],
            finished_at=finished_at,
            rated=rated,
        )
        for seat, entry in enumerate(game.seating)
    ]
