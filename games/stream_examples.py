"""What the streams' schema shows: their security (a bearer token, or a one-time
ticket in the query for a browser's EventSource) and examples of their
`text/event-stream` answers, as a client reads them."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiResponse

# Either one opens a stream (the `streamTicket` scheme is in SPECTACULAR_SETTINGS).
# Typed loosely: drf-spectacular's annotation says names, its code takes requirements.
STREAM_AUTH: Any = [{"bearerAuth": []}, {"streamTicket": []}]

_GAME = "c4e2a9d1-7b35-4f08-a6c3-91d0e5b27f44"


def _view(version: int) -> str:
    """A player's game view at `version`, shortened."""
    return (
        f'{{"id":"{_GAME}","status":"playing","version":{version},...,"current_seat":0,'
        '"current_color":"red",...,"last_seq":6,"you":{"seat":0,"hand":[...],'
        f'"legal_moves":[{{"action":"play","card":12,"version":{version}}},'
        f'{{"action":"draw","version":{version}}}]}}}}'
    )


_PLAYED = (
    '{"seq":6,"at":"2025-03-14T09:26:53.589Z","round":1,"type":"card_played","seat":0,'
    '"data":{"card":{"id":12,"code":"R3","color":"red","kind":"number","number":3},'
    '"color":"red"}}'
)


def _message(name: str, description: str, value: dict[str, Any]) -> OpenApiExample:
    return OpenApiExample(
        name,
        value=value,
        description=description,
        response_only=True,
        media_type="text/event-stream",
    )


# Each message as a parser gives it; on the wire `retry: 2000`, then `event: game`
# and `data: {...}` lines, each message ended by an empty line.
GAME_STREAM_EXAMPLES = [
    _message("Reconnection delay", "The stream's first line.", {"retry": 2000}),
    _message(
        "An event",
        "Each event of a change, with its `seq` as the id to resume after.",
        {"event": "card_played", "id": "6", "data": _PLAYED},
    ),
    _message(
        "Your view",
        "The opening, and again after each change (one view for changes that came together).",
        {"event": "game", "data": _view(5)},
    ),
]

LOBBY_STREAM_EXAMPLES = [
    _message(
        "The games followed",
        "The opening, after `retry: 2000`.",
        {"event": "hello", "data": f'{{"games":["{_GAME}"]}}'},
    ),
    _message(
        "Your turn",
        "In the opening for each game whose turn is yours, then whenever one becomes so.",
        {
            "event": "your_turn",
            "data": f'{{"game":"{_GAME}","turn_deadline":"2025-03-14T09:27:53.589Z"}}',
        },
    ),
]


# One message of a stream, as an SSE parser (EventSource's, or a library's) gives it.
SSE_MESSAGE = {
    "type": "object",
    "description": "one message of the stream, as an SSE parser reads it",
    "properties": {
        "event": {"type": "string", "description": "the message's name"},
        "data": {"type": "string", "description": "its JSON"},
        "id": {"type": "string", "description": "an event's seq, to resume after"},
        "retry": {"type": "integer", "description": "milliseconds to wait to reconnect"},
    },
}


def stream_answer(description: str, examples: list[OpenApiExample]) -> OpenApiResponse:
    """A stream's 200: `text/event-stream`, its messages, with `examples` of the text."""
    return OpenApiResponse(response=SSE_MESSAGE, description=description, examples=examples)
