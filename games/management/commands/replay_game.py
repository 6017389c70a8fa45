"""Re-run one game's complete log through the engine from its seed.

    python manage.py replay_game <game id>            # the table after every event
    python manage.py replay_game <game id> --verify   # check it, quietly

Exits 1 at the first event the engine does not make exactly as logged, or when the
replayed table is not the stored one, naming the seq.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import replay, selectors
from games.engine.cards import CODE_OF, COLOR_NAMES
from games.models import Event
from unoservice.errors import NotFound


class Command(BaseCommand):
    help = "Replay a game from its log and seed; --verify compares it with what is stored."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game_id")
        parser.add_argument(
            "--verify", action="store_true", help="only check, printing one line of verdict"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            game = selectors.game_get(options["game_id"])
        except NotFound:
            raise CommandError(f"no game {options['game_id']}") from None
        try:
            if options["verify"]:
                replay.verify(game)
                self.stdout.write(f"game {game.pk}: {game.last_seq} events verified")
                return
            events = {e.seq: e for e in Event.objects.filter(game=game)}
            for table in replay.tables(game):
                self.stdout.write(describe(events[table.seq], table))
        except replay.ReplayMismatch as error:
            raise CommandError(
                f"game {game.pk}: differs at seq {error.seq}: {error.reason}"
            ) from None


def describe(event: Event, table: replay.Table) -> str:
    """One line: the event, then the table after it."""
    who = "" if event.seat is None else f" seat {event.seat}"
    line = (
        f"#{event.seq:<4} {event.type}{who} {event.data if event.type != 'round_started' else ''}"
    )
    state = table.state
    if state is None:
        return line.rstrip()
    hands = " ".join(str(len(hand)) for hand in state.hands)
    top = CODE_OF[state.discard[-1]] if state.discard else "-"
    color = COLOR_NAMES[state.color] if state.color >= 0 else "-"
    return f"{line.rstrip()} | hands {hands} | top {top} {color} | to act {state.to_act}"
