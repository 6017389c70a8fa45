"""The host arranges the seats of a waiting game: who sits where, and so, in partners,
who plays with whom (seats 0 and 2 against 1 and 3)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone

from games import engine
from games.engine.vocabulary import SeatsArrangedData
from games.models import Game, Seat
from games.services.common import Outcome, _lock_waiting_for_host, _seats
from games.services.saving import commit_change
from players.models import Player
from unoservice.errors import SettingsConflict


def game_seats_arrange(*, game_id: uuid.UUID, player: Player, order: Sequence[int]) -> Outcome:
    """Seat again every holder of a seat of the waiting game (host only): `order`
    lists, for each seat from 0 up, the seat whose holder moves there. Logged as
    `seats_arranged`; the same order again changes nothing and logs nothing. Locks
    the game row."""
    with transaction.atomic():
        game = _lock_waiting_for_host(
            game_id,
            player,
            action="arrange the seats",
            started="seats can only be arranged before the game starts",
        )
        taken = len(game.seating)
        if sorted(order) != list(range(taken)):
            # 422, not 400: the same body fits the table once as many seats are taken.
            raise SettingsConflict(f"order must list each of the seats 0 to {taken - 1} once")
        if list(order) == list(range(taken)):
            return Outcome(game, [])
        _move_seats(game, order)
        arranged = engine.Event("seats_arranged", None, SeatsArrangedData(order=list(order)), None)
        events = commit_change(game, None, [arranged], timezone.now(), fields=["seating"])
    return Outcome(game, events)


def _move_seats(game: Game, order: Sequence[int]) -> None:
    """Renumber the game's Seat rows by `order` and set `game.seating` to match: each
    first past the last seat (a seat number is unique within its game), then to its
    place. Each statement names the game."""
    seats = _seats(game)
    offset = len(seats)
    for seat in seats:
        Seat.objects.filter(game_id=game.pk, seat=seat.seat).update(seat=seat.seat + offset)
    for new, old in enumerate(order):
        Seat.objects.filter(game_id=game.pk, seat=old + offset).update(seat=new)
    game.seating = [game.seating[old] for old in order]
