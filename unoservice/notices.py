"""The live layer's one PostgreSQL channel, and the *notes* any app sends on it: a
small event for one player's lobby streams ("a friend request from Ann"), which is
not a change of any game.

A game's change is told on the channel as "game G reached seq N"
(`games.services.notify`), and its listeners read the change from the database. A
note instead carries its whole event in the notification (a few hundred bytes, far
under the 8,000 a notification may hold): nothing is stored, nothing is read back,
and a note that no stream is open to hear is simply gone, as the lobby stream's
events are never replayed (a client reads the state again when it reconnects).

On PostgreSQL a note is ``pg_notify`` in the sender's transaction, so it exists
exactly when the change that caused it committed. Without PostgreSQL (the SQLite
file of development, one server process) it is handed on commit to the listeners
registered in this process (`listen_locally`: the hub's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from django.db import connection, transaction

CHANNEL = "uno_game"
NOTE_PREFIX = "note "
# What a note may carry: far below the 8,000 bytes of a notification.
MAX_NOTE_BYTES = 4000

# A note for the lobby streams alone, not their clients: the player's friends
# changed (the streams follow their presence: `games.live.friends`).
FRIENDS_CHANGED = "_friends_changed"
# A note for every process's hub, not a stream: the player's table-talk choices
# (blocks either way, mutes, spectators' emotes) changed, so the streams judge
# messages for them by what they are now (`games.live.talk.Readers`).
TALK_CHANGED = "_talk_changed"

NoteListener = Callable[[str, str, dict[str, Any]], None]
_local_listeners: list[NoteListener] = []


def note(player_id: object, event: str, data: dict[str, Any]) -> None:
    """Tell `player_id`'s lobby streams `event` with `data` once the current
    transaction commits (at once outside one)."""
    payload = note_payload(player_id, event, data)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, payload])
        return
    player, event_data = str(player_id), dict(data)
    transaction.on_commit(lambda: _hand_locally(player, event, event_data))


def friends_changed(*player_ids: object) -> None:
    """Tell these players' lobby streams, on commit, to follow their friends anew."""
    for player_id in player_ids:
        note(player_id, FRIENDS_CHANGED, {})


def talk_changed(*player_ids: object) -> None:
    """Tell every process, on commit, that these players' table-talk choices changed."""
    for player_id in player_ids:
        note(player_id, TALK_CHANGED, {})


def note_payload(player_id: object, event: str, data: dict[str, Any]) -> str:
    body = orjson.dumps({"event": event, "data": data}).decode()
    payload = f"{NOTE_PREFIX}{player_id} {body}"
    if len(payload.encode()) > MAX_NOTE_BYTES:
        raise ValueError(f"a note of {len(payload)} characters is too long to send")
    return payload


def parse_note(text: str) -> tuple[str, str, dict[str, Any]] | None:
    """(player id, event, data) of a note, or None for anything else on the channel."""
    if not text.startswith(NOTE_PREFIX):
        return None
    player_id, _, body = text[len(NOTE_PREFIX) :].partition(" ")
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not player_id or not isinstance(parsed, dict):
        return None
    event, data = parsed.get("event"), parsed.get("data")
    if not isinstance(event, str) or not isinstance(data, dict):
        return None
    return player_id, event, data


def listen_locally(listener: NoteListener) -> Callable[[], None]:
    """Hand the notes of this process to `listener` (without PostgreSQL); returns
    what stops it."""
    _local_listeners.append(listener)
    return lambda: _local_listeners.remove(listener)


def _hand_locally(player_id: str, event: str, data: dict[str, Any]) -> None:
    for listener in list(_local_listeners):
        listener(player_id, event, data)
