"""Recompute every rating from the finished games, in the order they finished.

    python manage.py recompute_ratings

Each rating starts again from the default and every rated game is rated again, as
it was when it ended; each result's rating before and after is rewritten too. The
incremental updates and this command rate through the same function in the same
order, so on an intact database nothing changes (a test checks it): run it after
restoring ratings from an older backup, or after a change to how games are rated.
Games that finished before results were kept get theirs first.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from games import services


class Command(BaseCommand):
    help = "Recompute every rating from the finished games, in order."

    def handle(self, *args: Any, **options: Any) -> None:
        games, ratings = services.ratings_recompute()
        self.stdout.write(f"{games} rated games replayed into {ratings} ratings")
