"""Verify many games: each log re-run from its seed must give the stored game.

    python manage.py verify_games [--since 2026-11-01] [--status finished] [--limit N]

Prints each game that fails with the seq where it differs, then a summary; exits 1
when any game failed.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from games import replay
from games.models import Game, GameStatus


def since_date(raw: str) -> dt.datetime:
    try:
        day = dt.date.fromisoformat(raw)
    except ValueError:
        raise CommandError(f"--since {raw!r} is not a date like 2026-11-01") from None
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min))


class Command(BaseCommand):
    help = "Verify the replay of every started game (or those chosen by the options)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--since", type=since_date, help="games created on or after a date")
        parser.add_argument("--status", choices=GameStatus.values, action="append")
        parser.add_argument("--limit", type=int, help="at most this many, newest first")

    def handle(self, *args: Any, **options: Any) -> None:
        games = Game.objects.exclude(started_at=None).order_by("-created_at")
        if options["since"] is not None:
            games = games.filter(created_at__gte=options["since"])
        if options["status"]:
            games = games.filter(status__in=options["status"])
        if options["limit"] is not None:
            games = games[: options["limit"]]
        checked = failed = 0
        for game in games.iterator(chunk_size=100):
            checked += 1
            try:
                replay.verify(game)
            except replay.ReplayMismatch as error:
                failed += 1
                self.stdout.write(f"game {game.pk}: differs at seq {error.seq}: {error.reason}")
        self.stdout.write(f"{checked} games checked, {checked - failed} verified, {failed} failed")
        if failed:
            raise CommandError(f"{failed} of {checked} games do not replay")
