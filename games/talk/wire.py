"""A table message as readers receive it, and how it is told to the live layer.

A message is not an event of its game: it is told on the live channel as
"talk G <the message>", the message whole in the notification, so that a server
hearing it reads nothing back; the streams of the game send it to each reader it
may reach (`reaches`). A server that missed notifications reads the game's messages
after the last id it heard (`games.live.talk`).
"""

from __future__ import annotations

import uuid
from typing import Any

import orjson
from django.db import connection

from games.talk.models import TableMessage
from players.models import player_tag
from unoservice.notices import CHANNEL

TALK_PREFIX = "talk "


def message_json(message: TableMessage, sender_name: str) -> dict[str, Any]:
    """The message as every reader sees it (the free text masked already)."""
    return {
        "id": message.pk,
        "at": message.at.isoformat(),
        "kind": message.kind,
        "code": message.code,
        "text": message.text,
        "seat": message.seat,
        "spectator": message.seat is None,
        "from": {
            "id": str(message.sender_id),
            "name": sender_name,
            "tag": player_tag(message.sender_id),
        },
    }


def announce(game_id: uuid.UUID, message: dict[str, Any]) -> None:
    """Tell every server, when the current transaction commits, that `message` (as
    `message_json` renders it) was said at `game_id`'s table. Without PostgreSQL the
    servers' poll reads it from the table instead."""
    if connection.vendor != "postgresql":
        return
    payload = f"{TALK_PREFIX}{game_id} {orjson.dumps(message).decode()}"
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, payload])


def parse_talk(text: str) -> tuple[uuid.UUID, dict[str, Any]] | None:
    """(game id, message) of a table message's notification, or None for anything
    else on the channel."""
    if not text.startswith(TALK_PREFIX):
        return None
    game_id, _, body = text[len(TALK_PREFIX) :].partition(" ")
    try:
        parsed = orjson.loads(body)
        game = uuid.UUID(game_id)
    except (ValueError, orjson.JSONDecodeError):
        return None
    if not isinstance(parsed, dict) or not isinstance(parsed.get("id"), int):
        return None
    return game, parsed


def reaches(message: dict[str, Any], *, hidden: frozenset[str], hide_spectators: bool) -> bool:
    """Whether `message` reaches a reader who blocks or mutes the players `hidden`
    (their ids), and hides spectators' emotes or not."""
    if message["from"]["id"] in hidden:
        return False
    return not (hide_spectators and message["spectator"])
