"""The notification that a game changed: "game G reached seq N", nothing more.

On PostgreSQL the services send it with ``pg_notify`` inside the change's own
transaction (folded into the game's UPDATE, so it costs no extra statement), and
PostgreSQL delivers it to every listening server process when, and only if, the
change commits. The events table stays the truth: a listener that hears the seq
reads the events itself, and one that missed it catches up at its next heal.
"""

from __future__ import annotations

import uuid

CHANNEL = "uno_game"


def payload(game_id: object, seq: int) -> str:
    return f"{game_id} {seq}"


def expression(game_id: object, seq: int) -> tuple[str, list[object]]:
    """The notification as an SQL expression and its parameters, for the game's
    UPDATE to evaluate (``unoservice.fastsql.update_fields(also=...)``)."""
    return "pg_notify(%s, %s)", [CHANNEL, payload(game_id, seq)]


def parse_payload(text: str) -> tuple[uuid.UUID, int] | None:
    """(game id, seq) from a payload, or None for anything else on the channel."""
    game_id, _, seq = text.partition(" ")
    try:
        return uuid.UUID(game_id), int(seq)
    except ValueError:
        return None
