"""An operator annuls a finished game's rating: the game no longer counts, and every
rating it moved is recomputed from it on.

The annulled game's results become unrated (`rules.ANNULLED`) and a
`RatingAnnulment` records who did it, when and why. Its seats' ratings go back to
what they were before it, and every later rated game of theirs is rated again in the
order the games finished; a later game rated again moves its other seats' ratings
differently too, so their later games are rated again in turn, and so on. The result
is what `writes.recompute` (every game from scratch) makes of the same games.

The game's log keeps its `game_rated` event: the log is what happened, and replays
as it did. What the game counts for now is read from its results, and from
`Game.unrated_reason`, which says it too; its `RatedPair` rows go.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games import selectors
from games.models import Game, GameStatus, RatedPair, RatingAnnulment, Result
from games.ratings import opponents, rules, writes
from players import rating
from players.models import Rating
from players.services import clean_reason
from unoservice.errors import NotFound, WrongPhaseError


@dataclass(frozen=True)
class Annulled:
    """What an annulment did."""

    annulment: RatingAnnulment
    games_rerated: int  # later rated games whose ratings were computed again
    ratings_changed: int  # ratings that moved (the annulled game's seats' included)


def game_rating_annul(*, game_id: Any, by: Any, reason: str) -> Annulled:
    """Annul the rating of the finished, rated game `game_id` for the staff user `by`,
    who says why, and recompute the ratings it moved from it on (see the module).

    Locks the game row first, as every service does, then every rating row in key
    order, as `writes.recompute` does and for the same reason: which ratings the
    recomputation reaches is known only as it goes, and with every row held no game
    ending meanwhile can rate from a rating about to change (such a game waits in
    `writes.lock_ratings`, whose locks are taken in the same key order, so the two
    cannot deadlock). The results are read once the locks are held, so that a game
    that ended while this waited is rated again as well. A game that is not
    finished, was not rated, or was annulled already is a `WrongPhaseError`."""
    reason = clean_reason(reason)
    with transaction.atomic():
        game = _lock_finished(game_id)
        rows = {row.key: row for row in Rating.objects.select_for_update().order_by("key")}
        seats = list(Result.objects.filter(game=game).order_by("seat"))
        if RatingAnnulment.objects.filter(game=game).exists():
            raise WrongPhaseError("the game's rating is annulled already")
        if not seats or not seats[0].rated:
            raise WrongPhaseError("the game was not rated")
        now = timezone.now()
        rerated, changed = _rerate_without(game, seats, rows, now)
        annulment = RatingAnnulment.objects.create(
            game=game,
            by=by,
            by_username=by.get_username(),
            at=now,
            reason=reason,
            games_rerated=rerated,
            ratings_changed=len(changed),
        )
    return Annulled(annulment, rerated, len(changed))


def _lock_finished(game_id: Any) -> Game:
    try:
        game = selectors.game_by_id(uuid.UUID(str(game_id)), lock=True)
    except (ValueError, TypeError, ValidationError):
        raise NotFound("no such game") from None
    if game.status != GameStatus.FINISHED:
        raise WrongPhaseError(f"the game is {game.status}")
    return game


def _rerate_without(
    game: Game, seats: list[Result], rows: dict[str, Rating], now: dt.datetime
) -> tuple[int, set[str]]:
    """Unrate `game` (its `seats`' results) and rate again every later rated game
    that one of the ratings it reached took part in, moving `rows` (locked) and the
    results; returns (games rated again, keys of the ratings changed)."""
    for seat in seats:
        _restore(rows[seat.key], seat)
    reached = {seat.key for seat in seats}
    for seat in seats:
        seat.rated, seat.unrated_reason = False, rules.ANNULLED
        seat.mu_before = seat.sigma_before = seat.mu_after = seat.sigma_after = None
        seat.games_after = None
    changed_results = list(seats)
    rerated = 0
    for table in _later_games(seats[0]):
        if not reached.intersection(r.key for r in table):
            continue
        for seat in table:
            if seat.key not in reached:
                _restore(rows[seat.key], seat)
                reached.add(seat.key)
        writes.rate_results(table, {seat.key: rows[seat.key] for seat in table})
        changed_results += table
        rerated += 1
    Result.objects.bulk_update(
        changed_results, [*writes.RATING_OF_RESULT, "rated", "unrated_reason"], batch_size=500
    )
    _meet_again(rows)  # from the results as they now stand
    RatedPair.objects.filter(game=game).delete()
    game.unrated_reason = rules.ANNULLED
    game.save(update_fields=["unrated_reason"])
    changed = [rows[key] for key in sorted(reached)]
    for row in changed:
        row.updated_at = now
    Rating.objects.bulk_update(changed, [*writes.RATED_FIELDS, "updated_at"])
    return rerated, reached


def _restore(row: Rating, seat: Result) -> None:
    """Set `row` in memory to what it was before the game of `seat`, its result."""
    assert seat.mu_before is not None
    assert seat.sigma_before is not None
    assert seat.games_after is not None
    before = rating.Skill(seat.mu_before, seat.sigma_before)
    row.mu, row.sigma, row.ordinal = before.mu, before.sigma, before.ordinal
    row.games = seat.games_after - 1


def _later_games(first: Result) -> Iterable[list[Result]]:
    """The rated games that finished after the game of `first` (one of its results),
    each as its seats' results, in the order `writes.recompute` rates them."""
    after = Q(finished_at__gt=first.finished_at) | Q(
        finished_at=first.finished_at, game_id__gt=first.game_id
    )
    ordered = Result.objects.filter(after, rated=True).order_by("finished_at", "game_id", "seat")
    table: list[Result] = []
    for result in ordered.iterator(chunk_size=2000):
        if table and table[0].game_id != result.game_id:
            yield table
            table = []
        table.append(result)
    if table:
        yield table


def _meet_again(rows: dict[str, Rating]) -> None:
    """Work out again the opponents and the humans met of every rating, from the rated
    games as they now stand, in the order they finished, as the games themselves did
    (`opponents.meet_in_order`): the annulled game may have been the one that brought
    an opponent, or that made one established for a later game, and who was
    established for whom depends on the humans each had met. Reads two columns of
    every rated result."""
    ordered = (
        Result.objects.filter(rated=True)
        .order_by("finished_at", "game_id", "seat")
        .values_list("game_id", "key")
    )
    tables: dict[Any, list[str]] = {}
    for game_id, key in ordered.iterator(chunk_size=2000):
        tables.setdefault(game_id, []).append(key)
    opponents.meet_in_order(tables.values(), rows)
