"""The notification that a game changed: "game G reached seq N", nothing more; and
the one that a player got a seat: "player P sits in game G" (what the lobby streams
of P need to watch one more game, without reading the player's games again); and the
one that some of a player's tokens stopped working (a device signed out, a new token,
the player disabled): "revoke P's tokens H1,H2" (every stream of P opened with one of
them ends, wherever it is served).

On PostgreSQL the services send it with ``pg_notify`` inside the change's own
transaction (folded into the game's UPDATE, so it costs no extra statement), and
PostgreSQL delivers it to every listening server process when, and only if, the
change commits. The events table stays the truth: a listener that hears the seq
reads the events itself, and one that missed it catches up at its next heal.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from unoservice.notices import CHANNEL

PLAYER_PREFIX = "player "
REVOKE_PREFIX = "revoke "


def payload(game_id: object, seq: int) -> str:
    return f"{game_id} {seq}"


def player_payload(player_id: object, game_id: object) -> str:
    return f"{PLAYER_PREFIX}{player_id} {game_id}"


def revoke_payload(player_id: object, token_hashes: Sequence[str]) -> str:
    # At most `players.sessions.MAX_SESSIONS` hashes of 64 characters: far below the
    # 8,000 bytes a notification may carry.
    return f"{REVOKE_PREFIX}{player_id} {','.join(token_hashes)}"


def revoke_expression(player_id: object, token_hashes: Sequence[str]) -> tuple[str, list[str]]:
    """The revocation as an SQL expression and its parameters."""
    return "pg_notify(%s, %s)", [CHANNEL, revoke_payload(player_id, token_hashes)]


def expression(
    game_id: object, seq: int, *, seated: Sequence[object] = ()
) -> tuple[str, list[object]]:
    """The notification as an SQL expression and its parameters, for the game's
    UPDATE to evaluate (``unoservice.fastsql.update_fields(also=...)``); with
    `seated`, one more notification per player who just got a seat in the game."""
    calls = ["pg_notify(%s, %s)"]
    params: list[object] = [CHANNEL, payload(game_id, seq)]
    if seated:
        seat_calls, seat_params = seats_expression([(player, game_id) for player in seated])
        calls.append(seat_calls)
        params += seat_params
    return ", ".join(calls), params


def seats_expression(seats: Sequence[tuple[object, object]]) -> tuple[str, list[str]]:
    """The notifications that each (player id, game id) of `seats` got a seat, as one
    SQL expression and its parameters."""
    calls = ", ".join(["pg_notify(%s, %s)"] * len(seats))
    params: list[str] = []
    for player_id, game_id in seats:
        params += [CHANNEL, player_payload(player_id, game_id)]
    return calls, params


def parse_payload(text: str) -> tuple[uuid.UUID, int] | None:
    """(game id, seq) from a payload, or None for anything else on the channel."""
    game_id, _, seq = text.partition(" ")
    try:
        return uuid.UUID(game_id), int(seq)
    except ValueError:
        return None


def parse_player_payload(text: str) -> tuple[str, uuid.UUID] | None:
    """(player id, game id) of a player's notification, or None for anything else."""
    if not text.startswith(PLAYER_PREFIX):
        return None
    player_id, _, game_id = text[len(PLAYER_PREFIX) :].partition(" ")
    try:
        return (player_id, uuid.UUID(game_id)) if player_id else None
    except ValueError:
        return None


def parse_revoke_payload(text: str) -> tuple[str, frozenset[str]] | None:
    """(player id, the token hashes that stopped working) of a revocation, or None
    for anything else."""
    if not text.startswith(REVOKE_PREFIX):
        return None
    player_id, _, hashes = text[len(REVOKE_PREFIX) :].partition(" ")
    revoked = frozenset(h for h in hashes.split(",") if h)
    if not player_id or not revoked:
        return None
    return player_id, revoked
