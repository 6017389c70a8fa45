"""Reading games: what each caller may see of a game, its seats and its log."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from games.engine import GameState, seat_view
from games.engine.events import render_data, visible_data
from games.models import Event, Game, GameStatus, Seat
from players.models import Player
from unoservice.errors import NotFound

_ROUND_FIELDS = (
    "round",
    "dealer",
    "current_seat",
    "direction",
    "current_color",
    "top_card",
    "draw_pile_count",
    "discard_pile_count",
    "pending",
)


def parse_game_id(raw: object) -> uuid.UUID:
    """A malformed id is just another game that does not exist."""
    try:
        return uuid.UUID(str(raw))
    except ValueError:
        raise NotFound("no such game") from None


def game_get(game_id: object) -> Game:
    try:
        return Game.objects.select_related("host").get(pk=parse_game_id(game_id))
    except Game.DoesNotExist:
        raise NotFound("no such game") from None


def game_seats(game: Game) -> list[Seat]:
    return list(Seat.objects.filter(game=game).select_related("player").order_by("seat"))


def seat_number_of(seats: Sequence[Seat], player: Player | None) -> int | None:
    """The seat `player` plays at (a seat handed to a bot is no longer theirs)."""
    if player is None:
        return None
    for seat in seats:
        if seat.player_id == player.pk and seat.bot is None:
            return seat.seat
    return None


def player_json(player: Player | None) -> dict[str, Any] | None:
    return None if player is None else {"id": str(player.pk), "name": player.name}


def _seat_json(seat: Seat, engine_seat: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "seat": seat.seat,
        "player": player_json(seat.player) if seat.player_id is not None else None,
        "bot": seat.bot,
        "card_count": engine_seat["card_count"] if engine_seat else 0,
        "score": engine_seat["score"] if engine_seat else 0,
        "said_uno": engine_seat["said_uno"] if engine_seat else False,
        "timeouts": engine_seat["timeouts"] if engine_seat else 0,
    }


def game_view(game: Game, seats: Sequence[Seat], viewer: Player | None) -> dict[str, Any]:
    """The game as `viewer` may see it: their own hand and legal moves, counts for
    everyone else (a spectator view when they are not seated)."""
    viewer_seat = seat_number_of(seats, viewer)
    view: dict[str, Any] = {
        "id": str(game.pk),
        "status": game.status,
        "version": game.version,
        "host": player_json(game.host),
        "max_players": game.max_players,
        "target_score": game.target_score,
        "turn_timeout": game.turn_timeout,
        "rules": game.rules,
        "created_at": game.created_at.isoformat(),
    }
    if game.state is None:
        view["seats"] = [_seat_json(seat, None) for seat in seats]
        view.update(dict.fromkeys(_ROUND_FIELDS))
        view.update({"turn_deadline": None, "winner": None, "last_seq": game.last_seq})
        view["you"] = (
            None if viewer_seat is None else {"seat": viewer_seat, "hand": [], "legal_moves": []}
        )
        return view
    state = GameState.from_snapshot(game.state)
    table = seat_view(state, viewer_seat)
    if game.status != GameStatus.PLAYING and table["you"] is not None:
        table["you"]["legal_moves"] = []  # an abandoned game takes no more moves
    view["seats"] = [_seat_json(seat, table["seats"][seat.seat]) for seat in seats]
    for name in _ROUND_FIELDS:
        view[name] = table[name]
    if game.status != GameStatus.PLAYING:
        view["current_seat"] = None
    view.update(
        {
            "turn_deadline": game.turn_deadline.isoformat() if game.turn_deadline else None,
            "winner": game.winner,
            "last_seq": game.last_seq,
            "you": table["you"],
        }
    )
    return view


def game_summary(game: Game, seats: Sequence[Seat]) -> dict[str, Any]:
    return {
        "id": str(game.pk),
        "status": game.status,
        "host": player_json(game.host),
        "players": [
            {"seat": seat.seat, "player": player_json(seat.player), "bot": seat.bot}
            for seat in seats
        ],
        "max_players": game.max_players,
        "rules": game.rules,
        "created_at": game.created_at.isoformat(),
    }


def event_json(event: Event, viewer_seat: int | None, *, complete: bool = False) -> dict[str, Any]:
    """An event as a reader sees it: while the game runs, others' cards are left out."""
    data = event.data if complete else visible_data(event.type, event.seat, event.data, viewer_seat)
    return {
        "seq": event.seq,
        "at": event.at.isoformat(),
        "round": event.round,
        "type": event.type,
        "seat": event.seat,
        "data": render_data(data),
    }


def events_json(events: Iterable[Event], viewer_seat: int | None) -> list[dict[str, Any]]:
    return [event_json(event, viewer_seat) for event in events]


def events_after(game: Game, after: int, limit: int) -> list[Event]:
    return list(Event.objects.filter(game=game, seq__gt=after).order_by("seq")[:limit])
