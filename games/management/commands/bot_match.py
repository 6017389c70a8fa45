"""Start a game among bots, played by the Celery worker at the configured pace.

    python manage.py bot_match greedy expert random random [--target-score 0] [--seed 7]

Operators use it to watch bots play from the admin, and as a soak test of the worker,
the broker and the timers. The game is hosted by the player named with --host
(created when missing), who does not play.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import services
from games.models import BotStrategy
from players.models import Player
from players.services import player_create
from unoservice.errors import ServiceError


class Command(BaseCommand):
    help = "Start a game among bots (2-10 strategies), hosted by a non-playing player."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("strategies", nargs="+", choices=BotStrategy.values)
        parser.add_argument("--target-score", type=int, default=500)
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--host", default="House", help="name of the hosting player")

    def handle(self, *args: Any, **options: Any) -> None:
        host = Player.objects.filter(name=options["host"]).order_by("created_at").first()
        try:
            if host is None:
                host, _ = player_create(name=options["host"])
            outcome = services.bot_match_start(
                host=host,
                strategies=options["strategies"],
                target_score=options["target_score"],
                seed=options["seed"],
            )
        except ServiceError as error:
            raise CommandError(error.message) from None
        self.stdout.write(str(outcome.game.pk))
