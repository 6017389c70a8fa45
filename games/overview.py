"""Figures for the staff overview page: how much is played, how long games last,
and how bots fare against humans."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db.models import Count
from django.db.models.functions import TruncDate
from django.utils import timezone

from games.models import Game, GameStatus

DAYS = 14
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
        for number, entry in enumerate(seating):
            tally = bots if entry["bot"] is not None else humans
            tally[0] += 1
            tally[1] += int(number == winner)
    peak = max(per_day.values()) or 1
    return {
        "by_status": by_status,
        "total": sum(by_status.values()),
        "per_day": [(day, n, round(100 * n / peak)) for day, n in per_day.items()],
        "sampled": len(moves),
        "mean_moves": round(sum(moves) / len(moves), 1) if moves else None,
        "mean_minutes": round(sum(minutes) / len(minutes), 1) if minutes else None,
        "bots": WinRate(*bots),
        "humans": WinRate(*humans),
    }
