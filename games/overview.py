"""Figures for the staff overview page: how much is played, how long games last,
how bots fare against humans, and whether the service's parts are up."""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any

from django.db.models import Count
from django.db.models.functions import TruncDate, TruncHour
from django.utils import timezone

from games.models import Event, Game, GameStatus, SeatingEntry
from unoservice import health, metrics

logger = logging.getLogger(__name__)

DAYS = 14
HOURS = 24
# The events a move may begin with (`games.engine.replay.move_of`). Every event of a
# move is stored with the same time, so a game's distinct times among them count its
# moves: a draw and the pass that follows it, a play and the round it ends, a timeout
# and the default move its timer makes, each once. A first card's draw is the deal's.
MOVE_EVENTS = (
    "card_played",
    "cards_drawn",
    "turn_passed",
    "color_chosen",
    "uno_called",
    "uno_caught",
    "challenged",
)
DEALT = "first_card"
# Means and win rates are over the most recent finished games, so the page stays
# quick however many games the database holds.
RECENT_GAMES = 2000


@dataclass(frozen=True)
class WinRate:
    seats: int
    wins: int

    @property
    def percent(self) -> float | None:
        return round(100 * self.wins / self.seats, 1) if self.seats else None


def moves_per_hour(now: dt.datetime | None = None) -> list[tuple[dt.datetime, int]]:
    """The moves made in each of the last `HOURS` hours, this one included, oldest
    first: (the hour's start, moves).

    Counted from the log rather than from `Game.moves`, which says how many moves a
    game has had but not when. The events table is the largest and its `at` has no
    index, so the query reaches it only through the games changed in the window
    (every append writes the game's `updated_at`, so no event of the window is
    missed) and the index on (game, seq): its cost follows the recent games, not
    the whole history.
    """
    now = now or timezone.now()
    current = timezone.localtime(now).replace(minute=0, second=0, microsecond=0)
    hours = [current - dt.timedelta(hours=n) for n in range(HOURS - 1, -1, -1)]
    start = hours[0]
    # One row per game and hour (not per move), so what is read stays small.
    counted = (
        Event.objects.filter(game__updated_at__gte=start, at__gte=start, type__in=MOVE_EVENTS)
        .exclude(type="cards_drawn", data__reason=DEALT)
        .annotate(hour=TruncHour("at"))
        .values("hour", "game_id")
        .annotate(n=Count("at", distinct=True))
        .order_by()
    )
    per_hour = dict.fromkeys(hours, 0)
    for hour, _, count in counted.values_list("hour", "game_id", "n"):
        if hour in per_hour:  # aware datetimes: equal when the same instant
            per_hour[hour] += count
    return list(per_hour.items())


@dataclass(frozen=True)
class Check:
    """One part of the service on the health panel: its state in a word (`ok`, or
    `down`, `unknown`, `error`) and what was seen."""

    name: str
    state: str
    detail: str


def service_health() -> list[Check]:
    """The checks of ``/healthz`` (database, broker, worker, beat) and the streams
    open in every server process. A check that cannot be made reads `error`, and
    the page still shows the others."""
    try:
        _, body = health.health()
    except Exception:
        logger.exception("overview: the health checks failed")
        body = {}
    age = body.get("last_sweep_age_seconds")
    checks = [
        Check("database", body.get("database", health.ERROR), "answers SELECT 1"),
        Check("broker", body.get("broker", health.ERROR), "takes a connection"),
        Check("worker", body.get("worker", health.ERROR), "a Celery worker answers a ping"),
        Check(
            "beat",
            body.get("beat", health.ERROR),
            "no sweep of overdue turns yet" if age is None else f"last sweep {age} s ago",
        ),
    ]
    try:
        streams = metrics.open_streams()
        opened = f"{streams.get('game', 0)} game, {streams.get('lobby', 0)} lobby"
        checks.append(Check("open streams", health.OK, f"{opened}, in every server process"))
    except Exception:
        logger.exception("overview: the open streams cannot be read")
        checks.append(Check("open streams", health.ERROR, "the metrics cannot be read"))
    return checks


def figures(today: dt.date | None = None) -> dict[str, Any]:
    today = today or timezone.localdate()
    by_status = dict.fromkeys(GameStatus.values, 0)
    for row in Game.objects.values("status").annotate(n=Count("id")):
        by_status[row["status"]] = row["n"]

    first_day = today - dt.timedelta(days=DAYS - 1)
    start = timezone.make_aware(dt.datetime.combine(first_day, dt.time.min))
    per_day = dict.fromkeys((first_day + dt.timedelta(days=n) for n in range(DAYS)), 0)
    finished = Game.objects.filter(status=GameStatus.FINISHED)
    daily = (
        finished.filter(finished_at__gte=start)
        .annotate(day=TruncDate("finished_at"))
        .values("day")
        .annotate(n=Count("id"))
    )
    for day, count in daily.values_list("day", "n"):
        if day in per_day:
            per_day[day] = count

    recent = finished.order_by("-finished_at").values_list(
        "moves", "started_at", "finished_at", "seating", "winner"
    )[:RECENT_GAMES]
    moves: list[int] = []
    minutes: list[float] = []
    bots, humans = [0, 0], [0, 0]  # seats, wins
    for game_moves, started, ended, seating, winner in recent:
        moves.append(game_moves)
        if started and ended:
            minutes.append((ended - started).total_seconds() / 60)
        entries: list[SeatingEntry] = seating  # read raw: `values_list` types nothing
        for number, entry in enumerate(entries):
            tally = bots if entry["bot"] is not None else humans
            tally[0] += 1
            tally[1] += int(number == winner)
    return {
        "by_status": by_status,
        "total": sum(by_status.values()),
        "per_day": list(per_day.items()),
        "sampled": len(moves),
        "mean_moves": round(sum(moves) / len(moves), 1) if moves else None,
        "mean_minutes": round(sum(minutes) / len(minutes), 1) if minutes else None,
        "bots": WinRate(*bots),
        "humans": WinRate(*humans),
    }
