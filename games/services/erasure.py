"""A player deleted their account (`players.signals.player_erased`): they leave
every game still open, and every game they played shows the placeholder name in
their seat and in its log. The log keeps every event, so each replay stays exact
(names are not part of any table the engine makes)."""

from __future__ import annotations

import contextlib
from typing import Any

from django.db import transaction

from games.models import OPEN_STATUSES, Event, Game, Seat
from games.services.common import _lock_game
from games.services.lobby import game_leave
from players.models import Player
from unoservice.errors import ServiceError

# The events that name a player, and the key of their data that does.
_NAMING_EVENTS = {
    "player_joined": "player",
    "player_left": "player",
    "seat_resumed": "player",
    "rematch_offered": "by",
}


def on_player_erased(sender: Any, *, player: Player, **_: Any) -> None:
    player_games_erase(player=player)


def player_games_erase(*, player: Player) -> int:
    """Leave `player`'s open games (`game_leave`: a waiting seat freed, a playing one
    taken by a bot for good), then write `player.name` (the placeholder) wherever
    their name stood in each of their games. Returns how many games were written.
    Locks each game row in turn, in its own transaction."""
    game_ids = list(Seat.objects.filter(player=player).values_list("game_id", flat=True))
    for game_id in Game.objects.filter(pk__in=game_ids, status__in=OPEN_STATUSES).values_list(
        "pk", flat=True
    ):
        # Left already, or a seat a bot holds for good: nothing to leave.
        with contextlib.suppress(ServiceError):
            game_leave(game_id=game_id, player=player)
    for game_id in game_ids:
        _rename_in(game_id, player)
    return len(game_ids)


def _rename_in(game_id: Any, player: Player) -> None:
    player_id = str(player.pk)
    with transaction.atomic():
        game = _lock_game(game_id)
        seating = game.seating
        for entry in seating:
            ref = entry.get("player")
            if ref is not None and ref.get("id") == player_id:
                ref["name"] = player.name
        Game.objects.filter(pk=game.pk).update(seating=seating)
        renamed = []
        for event in Event.objects.filter(game_id=game.pk, type__in=list(_NAMING_EVENTS)):
            ref = event.data.get(_NAMING_EVENTS[event.type])
            if isinstance(ref, dict) and ref.get("id") == player_id:
                ref["name"] = player.name
                renamed.append(event)
        Event.objects.bulk_update(renamed, ["data"])
