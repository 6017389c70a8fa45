"""The OpenAPI schema of events, generated from the engine's vocabulary: one schema
per event type, its `data` as clients get it (cards as card objects, hands by seat,
secrets marked as such)."""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from games.engine.state import MAX_PLAYERS
from games.engine.vocabulary import (
    VOCABULARY,
    EventSpec,
    EventType,
    Means,
    Secret,
    card_form,
    keys_of,
    means,
)

# Registers a named schema and returns a reference to it.
Register = Callable[[str, dict[str, Any]], dict[str, str]]

SEAT_SCHEMA: dict[str, Any] = {"type": "integer", "minimum": 0, "maximum": MAX_PLAYERS - 1}
_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number"}


def _text(doc: str | None) -> str:
    return " ".join(inspect.cleandoc(doc or "").split())


def _pascal(event_type: str) -> str:
    return "".join(word.capitalize() for word in event_type.split("_"))


class EventSchemas:
    """The schemas of every event type, built with `card` (the schema of a card
    object) and `bot_strategies` (the names a bot's strategy may have)."""

    def __init__(self, card: dict[str, Any], bot_strategies: list[str]) -> None:
        self.card = card
        self.bot_strategies = bot_strategies

    def event(self, register: Register) -> dict[str, Any]:
        """An event of any type: one of the per-type schemas, told apart by `type`."""
        refs = {t: self._event(t, spec, register) for t, spec in VOCABULARY.items()}
        return {
            "oneOf": list(refs.values()),
            "discriminator": {
                "propertyName": "type",
                "mapping": {t: ref["$ref"] for t, ref in refs.items()},
            },
            "description": "One entry of a game's log; `type` says which, and what `seat` "
            "and `data` hold. While the game runs, what the reader may not see is left "
            "out of `data`; once it is over, and for staff in the log, nothing is.",
        }

    def _event(self, event_type: EventType, spec: EventSpec, register: Register) -> dict[str, str]:
        data = register(spec.data.__name__, self.data(spec))
        schema = {
            "type": "object",
            "description": _text(spec.data.__doc__),
            "properties": {
                "seq": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "the event's number in the game's log: 1, 2, 3, ... "
                    "without gaps",
                },
                "at": {"type": "string", "format": "date-time", "description": "when"},
                "round": {
                    "type": "integer",
                    "minimum": 1,
                    "nullable": True,
                    "description": "the round; null before the first deal",
                },
                # Wrapped, so that the schema's enum naming leaves it here rather
                # than making a component of each one-value enum; unwrapped again
                # by `inline_event_types` once that naming is done.
                "type": {"allOf": [{"type": "string", "enum": [event_type]}]},
                "seat": {**SEAT_SCHEMA, "nullable": True, "description": spec.seat},
                "data": data,
            },
            "required": ["seq", "at", "round", "type", "seat", "data"],
        }
        return register(f"{_pascal(event_type)}Event", schema)

    def data(self, spec: EventSpec) -> dict[str, Any]:
        """The `data` of one type as a reader gets it: secret keys may be absent."""
        secrets = {secret.key: secret for secret in spec.secrets}
        properties: dict[str, Any] = {}
        required: list[str] = []
        for key in keys_of(spec.data):
            secret = secrets.get(key.name)
            doc = key.doc if secret is None else f"{key.doc}. {_secret_note(secret)}"
            if key.name in spec.staff_only:
                doc = f"{doc}. Only staff read it, in the game's log; players never do"
            properties[key.name] = self._described(self.value(key.type), doc)
            if key.required and secret is None:
                required.append(key.name)
            if secret is not None and secret.own_entry_as is not None:
                own = get_args(key.type)[0]
                doc = (
                    f"your own entry of `{key.name}`, given to a seated reader instead of "
                    "it while the game runs"
                )
                properties[secret.own_entry_as] = self._described(self.value(own), doc)
        schema: dict[str, Any] = {
            "type": "object",
            "description": _text(spec.data.__doc__),
            "properties": properties,
        }
        if required:
            schema["required"] = required
        return schema

    def value(self, hint: Any) -> dict[str, Any]:
        """The schema of one declared type, as rendered for clients."""
        meaning = means(hint)
        if meaning is Means.CARD:
            return dict(self.card)
        if meaning is Means.SEAT:
            return dict(SEAT_SCHEMA)
        if meaning in (Means.PLAYER_ID, Means.GAME_ID):
            return {"type": "string", "format": "uuid"}
        if meaning is Means.TIME:
            return {"type": "string", "format": "date-time"}
        if meaning is Means.BOT:
            return {"type": "string", "enum": list(self.bot_strategies)}
        origin = get_origin(hint)
        if origin is Annotated:  # with nothing read here
            return self.value(get_args(hint)[0])
        if origin is Literal:
            values = list(get_args(hint))
            return {"type": _JSON_TYPES[type(values[0])], "enum": values}
        if origin in (Union, types.UnionType):
            options = [arg for arg in get_args(hint) if arg is not type(None)]
            (option,) = options
            schema = self.value(option)
            if "enum" in schema:
                schema["enum"] = [*schema["enum"], None]
            return {**schema, "nullable": True}
        if origin is list:
            if card_form(hint) == "hands":
                return {
                    "type": "object",
                    "description": "by seat number (a string key)",
                    "additionalProperties": self.value(get_args(hint)[0]),
                }
            return {"type": "array", "items": self.value(get_args(hint)[0])}
        if isinstance(hint, type) and hasattr(hint, "__required_keys__"):  # a TypedDict
            return {
                "type": "object",
                "properties": {
                    key.name: self._described(self.value(key.type), key.doc)
                    for key in keys_of(hint)
                },
                "required": sorted(hint.__required_keys__),
            }
        return {"type": _JSON_TYPES[hint]}

    @staticmethod
    def _described(schema: dict[str, Any], doc: str) -> dict[str, Any]:
        if not doc:
            return schema
        if "$ref" in schema:  # a reference takes no siblings
            return {"allOf": [schema], "description": doc}
        return {**schema, "description": doc}


def inline_event_types(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """A postprocessing hook, after the enum naming: each event's `type` as the plain
    one-value string enum it is. Generators read a lone `allOf` as an object (an
    empty model in openapi-python-client), not as the string it wraps."""
    for schema in result.get("components", {}).get("schemas", {}).values():
        kind = schema.get("properties", {}).get("type")
        if isinstance(kind, dict) and list(kind) == ["allOf"] and len(kind["allOf"]) == 1:
            (inner,) = kind["allOf"]
            if inner.get("type") == "string" and len(inner.get("enum", ())) == 1:
                schema["properties"]["type"] = inner
    return result


def _secret_note(secret: Secret) -> str:
    if secret.reader is None:
        who = "nobody reads it whole"
    elif secret.reader == "seat":
        who = "only the event's seat reads it"
    else:
        who = f"only the seat in `{secret.reader}` reads it"
    return (
        f"While the game runs {who}; others get `data` without it. Once the game is "
        "over everyone reads it, and staff always do in the log"
    )
