"""Ratings as the leaderboard reads them: a rating for the API, ranks, and the
leaderboard itself. The ratings are written by the games when they end
(`games.results`); a bot strategy's profile and everyone's history, which read the
games, are `games.standings`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

from django.db.models import QuerySet

from players import rating
from players.models import Player, Rating
from unoservice import fastsql

# Rated games a player needs before the leaderboard lists them: a few games' luck
# should not put anyone on it.
MIN_GAMES_TO_RANK = 5


class RatingJson(TypedDict):
    mu: float
    sigma: float
    ordinal: float
    games: int


@dataclass(frozen=True)
class Standing:
    """A rated entity as its public profile shows it: a player, or a bot strategy."""

    key: str  # the player's id, or bot:<strategy>
    name: str
    bot: str | None
    player: Player | None
    rating: RatingJson
    rank: int | None  # on the leaderboard, when it has played enough rated games


def rating_data(row: Rating | None) -> RatingJson:
    """A rating as the API shows it; the default for one never rated."""
    if row is None:
        fresh = rating.Skill()
        return RatingJson(mu=fresh.mu, sigma=fresh.sigma, ordinal=fresh.ordinal, games=0)
    return RatingJson(mu=row.mu, sigma=row.sigma, ordinal=row.ordinal, games=row.games)


def player_standing(player: Player) -> Standing:
    """A player's rating and rank. `GET /players/me`, a client's first request and its
    cheapest, reads this, hence `fastsql`."""
    row = fastsql.select_by(Rating, "key", str(player.pk))
    return Standing(str(player.pk), player.name, None, player, rating_data(row), rank_of(row))


def rank_of(row: Rating | None) -> int | None:
    """The place on the leaderboard: 1 + how many listed rank strictly higher, so that
    equal ordinals share a rank."""
    if row is None or row.games < MIN_GAMES_TO_RANK:
        return None
    return leaderboard().filter(ordinal__gt=row.ordinal).count() + 1


def leaderboard() -> QuerySet[Rating]:
    """The ratings with enough rated games, best first: by ordinal, then key (a
    stable order for pages)."""
    rows = Rating.objects.filter(games__gte=MIN_GAMES_TO_RANK).select_related("player")
    return rows.order_by("-ordinal", "key")


def ranks(rows: Sequence[Rating], first_position: int) -> list[int]:
    """The ranks of `rows`, a page of `leaderboard()` whose first row stands at
    `first_position` (1-based): a row with the ordinal of the row before shares its
    rank, otherwise its rank is its position."""
    found: list[int] = []
    for index, row in enumerate(rows):
        if index == 0:
            found.append(rank_of(row) or first_position)
        elif row.ordinal == rows[index - 1].ordinal:
            found.append(found[-1])
        else:
            found.append(first_position + index)
    return found


def display_name(row: Rating) -> str:
    return row.player.name if row.player is not None else str(row.bot)
