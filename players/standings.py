"""Ratings as the leaderboard reads them: a rating for the API, ranks, and the
leaderboard itself. The ratings are written by the games when they end
(`games.ratings.writes`); a bot strategy's profile and everyone's history, which read the
games, are `games.ratings.reads`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

from django.db.models import Q, QuerySet

from players import rating
from players.models import Player, Rating
from unoservice import fastsql

# The record the leaderboard asks for: rated games, a few games' luck should not put
# anyone on it; and different established human opponents among them
# (games.ratings.writes.meet). An opponent is established for a player when, before
# the game that met them, they had MIN_GAMES_TO_RANK rated games and had met
# MIN_OPPONENTS_TO_RANK different humans in rated games other than that player: a
# ring of accounts that only play each other does not vouch for its own members
# (each has met the ring's others only, the player judged among them). Two humans
# rate each other at most REPEATS_PER_WINDOW times a day (games.ratings.writes), and
# not at all from one address group. Until then a rating is provisional.
MIN_GAMES_TO_RANK = 5
MIN_OPPONENTS_TO_RANK = 3
# The different humans each rating keeps of those it met (`Rating.met`): enough to
# tell MIN_OPPONENTS_TO_RANK others, whoever the player judged is.
MET_KEPT = MIN_OPPONENTS_TO_RANK + 1


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
    rank: int | None  # on the leaderboard: with the record, not hidden nor disabled
    # Without the record yet (`has_record`): not ranked, whatever the rating says.
    provisional: bool = True
    # Different established human opponents met (`games.ratings.writes.meet`), counted up
    # to the record's.
    opponents: int = 0


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
    rank = rank_of(row, hidden=not listed(player))
    return standing(str(player.pk), player.name, None, player, row, rank)


def standing(
    key: str,
    name: str,
    bot: str | None,
    player: Player | None,
    row: Rating | None,
    rank: int | None,
) -> Standing:
    """A rated entity's `Standing`, from its rating row (None: never rated)."""
    return Standing(
        key,
        name,
        bot,
        player,
        rating_data(row),
        rank,
        provisional=not has_record(row),
        opponents=0 if row is None else row.opponents_met,
    )


def listed(player: Player) -> bool:
    """Whether `player` may stand on the leaderboard at all: not when an operator hid
    or disabled them, nor once they deleted their account. `leaderboard()` filters
    the same way."""
    return (
        not player.leaderboard_hidden and player.disabled_at is None and player.deleted_at is None
    )


def has_record(row: Rating | None) -> bool:
    """Whether a rating has the record the leaderboard asks for."""
    return (
        row is not None
        and row.games >= MIN_GAMES_TO_RANK
        and row.opponents_met >= MIN_OPPONENTS_TO_RANK
    )


def rank_of(row: Rating | None, *, hidden: bool = False) -> int | None:
    """The place on the leaderboard: 1 + how many listed rank strictly higher, so that
    equal ordinals share a rank. None when it is not listed: without the record, or
    `hidden` (its player not `listed`)."""
    if row is None or hidden or not has_record(row):
        return None
    return leaderboard().filter(ordinal__gt=row.ordinal).count() + 1


def leaderboard() -> QuerySet[Rating]:
    """The ratings with the record (`has_record`), but for players an operator hid
    or disabled and deleted accounts (`listed`), best first: by ordinal, then key (a
    stable order for pages)."""
    rows = Rating.objects.filter(
        games__gte=MIN_GAMES_TO_RANK, opponents_met__gte=MIN_OPPONENTS_TO_RANK
    ).filter(
        Q(player__isnull=True)
        | Q(
            player__leaderboard_hidden=False,
            player__disabled_at__isnull=True,
            player__deleted_at__isnull=True,
        )
    )
    return rows.select_related("player").order_by("-ordinal", "key")


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
