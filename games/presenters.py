"""Rendering games for the API and the live streams: the JSON a reader gets of a game,
a lobby row or an event, with what that reader may not see left out.

Presenters take what selectors and services read and return plain data; they run no
query but one: the host of a game is taken from its seating when they sit at the
table, else from `game.host`, which the lobby and the live channels load beforehand
and a game read by id does not (docs/design.md, "Presenters").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from games import deals
from games.engine import GameState, seat_view
from games.engine.events import players_data, render_data, visible_data
from games.models import (
    Event,
    Game,
    GameMode,
    GameStatus,
    SeatedPlayer,
    SeatingEntry,
    player_ref,
)
from games.ratings import rules
from games.talk.models import GameInvite
from players.models import Player
from unoservice.presence import Presence

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


def player_json(player: Player | None) -> SeatedPlayer | None:
    return None if player is None else player_ref(player)


def host_json(game: Game) -> SeatedPlayer | None:
    """The host, from the seating when they sit at the table (no query), else from
    `game.host` (a query, unless the selector loaded it)."""
    return game.seated_host() or player_json(game.host)


def game_view(
    game: Game, viewer: Player | None, state: GameState | None = None, *, presence: Presence
) -> dict[str, Any]:
    """The game as `viewer` may see it: their own hand and legal moves, counts for
    everyone else (a spectator view when they are not seated), and who is present
    (`selectors.presence_of`). `state`, when given, is the game's engine state
    already decoded."""
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
        "visibility": game.visibility,
        **_rated_json(game),
        # The code is for the players to pass on: a spectator who holds it sees null.
        "invite_code": game.invite_code if viewer_seat is not None else None,
        "created_at": game.created_at.isoformat(),
        "quick_match": game.match_key is not None,
        "free_text": game.free_text,
        "mode": game.mode,
        "partners_see_hands": game.partners_see_hands,
        **deck_json(game),
        "deal_algorithm": deals.algorithm(game),
        "deal_commitment": deals.commitment(game),
        "bots_at": (
            game.bots_at.isoformat()
            if game.bots_at is not None and game.status == GameStatus.WAITING
            else None
        ),
    }
    table = None
    if game.state is not None:
        if state is None:
            state = GameState.from_snapshot(game.state)
        table = seat_view(state, viewer_seat)
    playing = game.status == GameStatus.PLAYING
    partners = game.mode == GameMode.PARTNERS
    view["seats"] = [
        {
            "seat": number,
            "player": entry["player"],
            "bot": entry["bot"],
            **(
                _IDLE_SEAT
                if table is None
                else {key: table["seats"][number][key] for key in _IDLE_SEAT}
            ),
            "online": _online(entry, presence),
            # Partners: seats 0 and 2 against 1 and 3.
            "team": number % 2 if partners else None,
        }
        for number, entry in enumerate(game.seating)
    ]
    view["spectators"] = presence.spectators
    for name in _ROUND_FIELDS:
        view[name] = None if table is None else table[name]
    if not playing:
        view["current_seat"] = None
    if table is None:
        you = None if viewer_seat is None else {"seat": viewer_seat, "hand": [], "legal_moves": []}
    else:
        you = table["you"]
        if not playing and you is not None:
            you["legal_moves"] = []  # an abandoned game takes no more moves
        elif you is not None:
            # Whole `/moves` bodies: a client sends one back as it is.
            version = game.version
            you["legal_moves"] = [{**move, "version": version} for move in you["legal_moves"]]
    if you is not None:
        you["client_seed"] = deals.client_seed_of(game, viewer_seat, state)
        # Shown in partners with `partners_see_hands`, while the seat is the viewer's.
        you["partner_hand"] = you.get("partner_hand") if playing else None
    view.update(
        {
            "turn_deadline": game.turn_deadline.isoformat() if game.turn_deadline else None,
            "paused_until": game.paused_until.isoformat() if game.paused_until else None,
            "winner": game.winner,
            "rematch": _rematch_json(game),
            "last_seq": game.last_seq,
            "you": you,
        }
    )
    return view


def _rated_json(game: Game) -> dict[str, Any]:
    """Whether the game counts for ratings and, when not, why (`rules.unrated_now`):
    once it is finished, what its results say."""
    reason = rules.unrated_now(game)
    return {"rated": reason is None, "unrated_reason": reason}


def _online(entry: SeatingEntry, presence: Presence) -> bool:
    """Bots are always there; a human when seen lately or watching a stream."""
    if entry["bot"] is not None:
        return True
    player = entry["player"]
    return player is not None and player["id"] in presence.online


def _rematch_json(game: Game) -> str | None:
    return None if game.rematch_id is None else str(game.rematch_id)


def deck_json(game: Game) -> dict[str, Any]:
    """The deck, and what its modern cards do (null for the classic deck, which has
    none of them)."""
    modern = game.deck == "modern_112"
    return {
        "deck": game.deck,
        "shuffle_hands_last_card": game.shuffle_hands_last_card if modern else None,
        "wild_customizable": game.wild_customizable if modern else None,
    }


def game_summary(game: Game, viewer: Player) -> dict[str, Any]:
    """A lobby row: the game without its table, and whose turn it is (as the view
    shows it), with whether that is `viewer`'s."""
    return {
        "id": str(game.pk),
        "status": game.status,
        "host": host_json(game),
        "players": [
            {"seat": number, "player": entry["player"], "bot": entry["bot"]}
            for number, entry in enumerate(game.seating)
        ],
        "max_players": game.max_players,
        "target_score": game.target_score,
        "mode": game.mode,
        **deck_json(game),
        "rules": game.rules,
        "visibility": game.visibility,
        **_rated_json(game),
        "created_at": game.created_at.isoformat(),
        # Read off the snapshot as it is: no state to rebuild for a list's row.
        "round": game.state.get("round") if game.state else None,
        "to_act": game.seat_to_act(),
        "your_turn": game.is_turn_of(viewer),
        "turn_deadline": game.turn_deadline.isoformat() if game.turn_deadline else None,
    }


def invitation_json(game: Game) -> dict[str, Any]:
    """What an invite code tells before joining: whose game it is and how full."""
    return {
        "host": host_json(game),
        "seats_taken": len(game.seating),
        "max_players": game.max_players,
        "status": game.status,
    }


def invite_json(invite: GameInvite) -> dict[str, Any]:
    """An invite of a friend to a game (`services.game_invite`), its players loaded."""
    return {
        "game": str(invite.game_id),
        "player": player_ref(invite.player),
        "by": player_ref(invite.by),
        "created_at": invite.created_at.isoformat(),
    }


def log_is_complete(game: Game) -> bool:
    """Once a game is over nothing is secret any more."""
    return game.is_over


def event_json(
    event: Event, viewer_seat: int | None, *, complete: bool = False, staff: bool = False
) -> dict[str, Any]:
    """An event as a reader sees it: while the game runs, others' cards are left out;
    the keys for staff alone (which staff member abandoned a game) are left out for
    everyone but `staff`."""
    data = event.data if complete else visible_data(event.type, event.seat, event.data, viewer_seat)
    if not staff:
        data = players_data(event.type, data)
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
