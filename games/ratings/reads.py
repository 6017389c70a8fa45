"""Reading ratings, the leaderboard and players' histories: who stands where, and the
finished games that put them there. The ratings themselves are written by
`games.ratings.writes`, in the transaction that ends a game, which nothing here
imports; the part that reads only
players is `players.standings`."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Sum

from games.engine.vocabulary import RatingChangeData, RatingData
from games.models import BotStrategy, Event, Result, Seat, Visibility, player_ref
from games.ratings import rules
from players import rating
from players.models import BOT_KEY_PREFIX, Player, Rating
from players.standings import (
    MIN_GAMES_TO_RANK,
    MIN_OPPONENTS_TO_RANK,
    Standing,
    display_name,
    has_record,
    leaderboard,
    listed,
    player_standing,
    rank_of,
    ranks,
    rating_data,
    standing,
)
from unoservice.errors import NotFound

# The players' part, read here too: the admin and the API take all of it from here.
__all__ = [
    "MIN_GAMES_TO_RANK",
    "MIN_OPPONENTS_TO_RANK",
    "HistoryEntry",
    "Standing",
    "bot_stats",
    "display_name",
    "has_record",
    "history",
    "history_entries",
    "leaderboard",
    "listed",
    "player_standing",
    "ranks",
    "rating_data",
    "rating_over_time",
    "standing_of",
]


def standing_of(raw_id: object) -> Standing:
    """The player with this id, or the bot strategy ``bot:<strategy>``, with their
    rating and rank. `NotFound` for anything else, a malformed id included."""
    text = str(raw_id)
    if text.startswith(BOT_KEY_PREFIX):
        strategy = text.removeprefix(BOT_KEY_PREFIX)
        if strategy not in BotStrategy.values:
            raise NotFound("no such player")
        row = Rating.objects.filter(key=text).first()
        return standing(text, strategy, strategy, None, row, rank_of(row))
    try:
        player_id = uuid.UUID(text)
    except ValueError:
        raise NotFound("no such player") from None
    player = Player.objects.filter(pk=player_id).first()
    if player is None:
        raise NotFound("no such player")
    return player_standing(player)


def bot_stats(strategy: str) -> dict[str, int]:
    """A bot strategy's statistics, as a player's are kept: the games its seats
    finished (those a bot took over from a player count for the player), the games
    and rounds it won, and the points it scored."""
    finished = Result.objects.filter(player__isnull=True, bot=strategy)
    classic = Q(team__isnull=True)
    totals = finished.aggregate(
        games=Count("game", distinct=True, filter=classic),
        won=Count("pk", filter=Q(place=1) & classic),
        points=Sum("points"),
        partners=Count("game", distinct=True, filter=~classic),
        # Both partners place first: a game won counts once.
        partners_won=Count("game", distinct=True, filter=Q(place=1) & ~classic),
    )
    own_seat = Seat.objects.filter(
        game=OuterRef("game"), seat=OuterRef("seat"), bot=strategy, player__isnull=True
    )
    rounds = Event.objects.filter(type="round_ended").filter(Exists(own_seat)).count()
    return {
        "games_played": totals["games"] or 0,
        "games_won": totals["won"] or 0,
        "rounds_won": rounds,
        "points": totals["points"] or 0,
        "partners_games_played": totals["partners"] or 0,
        "partners_games_won": totals["partners_won"] or 0,
    }


@dataclass(frozen=True)
class HistoryEntry:
    """One finished game of someone's history, from their seat."""

    game_id: uuid.UUID
    finished_at: dt.datetime
    place: int
    points: int
    players: list[dict[str, Any]]
    rating: RatingData | None  # after the game, when it was rated
    rating_change: RatingChangeData | None
    rated: bool
    unrated_reason: str | None  # games.ratings.rules.UNRATED_REASONS, for an unrated game
    forfeited: bool


def history(key: str, *, viewer: Player) -> QuerySet[Result]:
    """The results of `key` (a player's id, or bot:<strategy>), newest first. A
    private game is in it only for a viewer who played in it, or for staff: its id
    is for its players."""
    rows = Result.objects.filter(key=key).select_related("game")
    if not viewer.is_staff:
        theirs = Result.objects.filter(game=OuterRef("game"), player=viewer)
        rows = rows.filter(Q(game__visibility=Visibility.PUBLIC) | Exists(theirs))
    return rows.order_by("-finished_at", "-game_id", "seat")


def history_entries(page: Sequence[Result]) -> list[HistoryEntry]:
    """A page of `history`, with every seat of each game, read in one query."""
    tables: dict[Any, list[Result]] = {}
    for result in Result.objects.filter(game_id__in={r.game_id for r in page}).select_related(
        "player"
    ):
        tables.setdefault(result.game_id, []).append(result)
    entries = []
    for result in page:
        seats = sorted(tables.get(result.game_id, []), key=lambda r: r.seat)
        entries.append(
            HistoryEntry(
                game_id=result.game_id,
                finished_at=result.finished_at,
                place=result.place,
                points=result.points,
                players=[_seat_json(seat) for seat in seats],
                rating=_after(result),
                rating_change=_change(result),
                rated=result.rated,
                unrated_reason=result.unrated_reason,
                forfeited=result.forfeited,
            )
        )
    return entries


def _seat_json(result: Result) -> dict[str, Any]:
    player = result.player
    return {
        "seat": result.seat,
        "player": None if player is None else player_ref(player),
        "bot": result.bot,
        "place": result.place,
        "points": result.points,
        "forfeited": result.forfeited,
    }


def _skills(result: Result) -> tuple[rating.Skill, rating.Skill, int] | None:
    if (
        result.mu_before is None
        or result.sigma_before is None
        or result.mu_after is None
        or result.sigma_after is None
        or result.games_after is None
    ):
        return None
    before = rating.Skill(result.mu_before, result.sigma_before)
    return before, rating.Skill(result.mu_after, result.sigma_after), result.games_after


def _after(result: Result) -> RatingData | None:
    found = _skills(result)
    return None if found is None else rules.rating_json(found[1], found[2])


def _change(result: Result) -> RatingChangeData | None:
    found = _skills(result)
    return None if found is None else rules.rating_change(found[0], found[1])


def rating_over_time(key: str, *, limit: int = 200) -> list[tuple[dt.datetime, float]]:
    """(finished_at, ordinal after) of the last `limit` rated games of `key`, oldest
    first: what a plot of the rating shows. Starts at the default for a key whose
    first rated game is in range."""
    rows = list(
        Result.objects.filter(key=key, rated=True, mu_after__isnull=False)
        .order_by("-finished_at", "-game_id")
        .values_list("finished_at", "mu_after", "sigma_after", "games_after")[:limit]
    )
    rows.reverse()
    points = [
        (at, rating.Skill(mu, sigma).ordinal)
        for at, mu, sigma, _ in rows
        if mu is not None and sigma is not None
    ]
    if rows and rows[0][3] == 1:
        points.insert(0, (rows[0][0], rating.Skill().ordinal))
    return points
