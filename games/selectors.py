"""Reading games: what each caller may see of a game and its log."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable
from typing import Any

from django.db import connection

from games import engine
from games.engine import GameState, seat_view
from games.engine.events import render_data, visible_data
from games.models import Event, Game, GameStatus, Heartbeat
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
_IDLE_SEAT = {"card_count": 0, "score": 0, "said_uno": False, "timeouts": 0}


def parse_game_id(raw: object) -> uuid.UUID:
    """A malformed id is just another game that does not exist."""
    try:
        return uuid.UUID(str(raw))
    except ValueError:
        raise NotFound("no such game") from None


def game_by_id(game_id: object, *, lock: bool = False, skip_locked: bool = False) -> Game:
    """One game row, optionally locked (``FOR UPDATE``) for the caller's transaction.
    With `skip_locked`, a row another transaction holds counts as not found.

    Raw SQL on purpose: every move and view read starts here, and compiling the
    ORM's SELECT of this wide row costs more CPU than PostgreSQL spends running it.
    """
    pk = Game._meta.pk
    assert pk is not None
    quote = connection.ops.quote_name
    sql = f"SELECT * FROM {quote(Game._meta.db_table)} WHERE {quote(pk.column)} = %s"
    if lock and connection.features.has_select_for_update:
        sql += " FOR UPDATE SKIP LOCKED" if skip_locked else " FOR UPDATE"
    params = [pk.get_db_prep_value(pk.to_python(game_id), connection)]
    for game in Game.objects.raw(sql, params):
        return game
    raise NotFound("no such game")


def game_get(game_id: object) -> Game:
    return game_by_id(parse_game_id(game_id))


def player_json(player: Player | None) -> dict[str, Any] | None:
    return None if player is None else {"id": str(player.pk), "name": player.name}


def host_json(game: Game) -> dict[str, Any] | None:
    """The host, from the seating when they sit at the table (no query)."""
    host_id = str(game.host_id)
    for entry in game.seating:
        if entry["player"] and entry["player"]["id"] == host_id:
            return dict(entry["player"])
    return player_json(game.host)


def game_view(game: Game, viewer: Player | None, state: GameState | None = None) -> dict[str, Any]:
    """The game as `viewer` may see it: their own hand and legal moves, counts for
    everyone else (a spectator view when they are not seated). `state`, when given,
    is the game's engine state already decoded."""
    viewer_seat = game.seat_of(viewer)
    view: dict[str, Any] = {
        "id": str(game.pk),
        "status": game.status,
        "version": game.version,
        "host": host_json(game),
        "max_players": game.max_players,
        "target_score": game.target_score,
        "turn_timeout": game.turn_timeout,
        "rules": game.rules,
        "created_at": game.created_at.isoformat(),
    }
    if game.state is None:
        view["seats"] = [
            {"seat": number, "player": entry["player"], "bot": entry["bot"], **_IDLE_SEAT}
            for number, entry in enumerate(game.seating)
        ]
        view.update(dict.fromkeys(_ROUND_FIELDS))
        view.update(
            {"turn_deadline": None, "paused_until": None, "winner": None, "last_seq": game.last_seq}
        )
        view["you"] = (
            None if viewer_seat is None else {"seat": viewer_seat, "hand": [], "legal_moves": []}
        )
        return view
    if state is None:
        state = GameState.from_snapshot(game.state)
    table = seat_view(state, viewer_seat)
    playing = game.status == GameStatus.PLAYING
    if not playing and table["you"] is not None:
        table["you"]["legal_moves"] = []  # an abandoned game takes no more moves
    view["seats"] = [
        {
            "seat": number,
            "player": entry["player"],
            "bot": entry["bot"],
            **{key: table["seats"][number][key] for key in _IDLE_SEAT},
        }
        for number, entry in enumerate(game.seating)
    ]
    for name in _ROUND_FIELDS:
        view[name] = table[name]
    if not playing:
        view["current_seat"] = None
    view.update(
        {
            "turn_deadline": game.turn_deadline.isoformat() if game.turn_deadline else None,
            "paused_until": game.paused_until.isoformat() if game.paused_until else None,
            "winner": game.winner,
            "last_seq": game.last_seq,
            "you": table["you"],
        }
    )
    return view


def game_summary(game: Game) -> dict[str, Any]:
    return {
        "id": str(game.pk),
        "status": game.status,
        "host": host_json(game),
        "players": [
            {"seat": number, "player": entry["player"], "bot": entry["bot"]}
            for number, entry in enumerate(game.seating)
        ],
        "max_players": game.max_players,
        "rules": game.rules,
        "created_at": game.created_at.isoformat(),
    }


def log_is_complete(game: Game) -> bool:
    """Once a game is over nothing is secret any more."""
    return game.status in (GameStatus.FINISHED, GameStatus.ABANDONED)


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


def all_events(game: Game) -> list[Event]:
    return list(Event.objects.filter(game=game).order_by("seq"))


def round_history(game: Game, round_number: int) -> list[engine.Event]:
    """The stored events of one round, complete, in order: what `player_view` redacts
    for a bot's `history`."""
    rows = Event.objects.filter(game=game, round=round_number).order_by("seq")
    return [
        engine.Event(row.type, row.seat, row.data, row.round)
        for row in rows.only("type", "seat", "data", "round")
    ]


def events_after(game: Game, after: int, limit: int) -> list[Event]:
    return list(Event.objects.filter(game=game, seq__gt=after).order_by("seq")[:limit])


def overdue_turns(now: dt.datetime, *, limit: int = 200) -> list[tuple[uuid.UUID, int]]:
    """(id, version) of running games whose human to act is past the deadline."""
    rows = Game.objects.filter(status=GameStatus.PLAYING, turn_deadline__lte=now)
    return list(rows.order_by("turn_deadline").values_list("id", "version")[:limit])


def overdue_bots(before: dt.datetime, *, limit: int = 200) -> list[tuple[uuid.UUID, int]]:
    """(id, version) of running games whose bot to act was due before `before`."""
    rows = Game.objects.filter(status=GameStatus.PLAYING, bot_due_at__lte=before)
    return list(rows.order_by("bot_due_at").values_list("id", "version")[:limit])


def expired_pauses(now: dt.datetime, *, limit: int = 200) -> list[tuple[uuid.UUID, int]]:
    """(id, version) of running games paused for want of humans whose pause ran out."""
    rows = Game.objects.filter(status=GameStatus.PLAYING, paused_until__lte=now)
    return list(rows.order_by("paused_until").values_list("id", "version")[:limit])


def last_sweep_age(now: dt.datetime) -> float | None:
    """Seconds since the sweeper last ran (beat sends it), or None if it never did."""
    at = Heartbeat.objects.filter(name=Heartbeat.SWEEP).values_list("at", flat=True).first()
    return None if at is None else max(0.0, (now - at).total_seconds())
