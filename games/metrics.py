"""The game families read from the database when ``/metrics`` is scraped."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Count
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from games.models import Game, GameStatus


class GamesCollector(Collector):
    """`uno_games{status}`: the games in the database, counted when scraped."""

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily(
            "uno_games", "Games in the database, by status.", labels=["status"]
        )
        counts = dict.fromkeys(GameStatus.values, 0)
        for row in Game.objects.values("status").annotate(n=Count("id")).order_by():
            counts[row["status"]] = row["n"]
        for status, count in counts.items():
            family.add_metric([status], count)
        yield family
