"""An event as every reader gets it, one schema per type from the engine's
vocabulary, and the ticket that opens a stream of them."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension
from rest_framework import serializers

from games.engine.vocabulary import VOCABULARY
from games.event_schema import EventSchemas
from games.serializers.common import (
    BOT_STRATEGIES,
    CardOut,
    component,
    seat_field,
)

EVENT_TYPES = list(VOCABULARY)


class EventOut(serializers.Serializer[Any]):
    seq = serializers.IntegerField(min_value=1)
    at = serializers.DateTimeField()
    round = serializers.IntegerField(min_value=1, allow_null=True)
    type = serializers.ChoiceField(choices=EVENT_TYPES)
    seat = seat_field(allow_null=True)
    # A field named `data`, as the API names it: DRF's metaclass takes declared
    # fields off the class, so `Serializer.data` still works; the stubs cannot know.
    data = serializers.DictField()  # type: ignore[assignment]


class EventScheme(OpenApiSerializerExtension):
    """An event is one of a schema per type, generated from the engine's vocabulary,
    with `data` spelt out key by key."""

    target_class = EventOut

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        card = auto_schema.resolve_serializer(CardOut, direction).ref
        schemas = EventSchemas(card, BOT_STRATEGIES)
        return schemas.event(lambda name, schema: component(auto_schema, name, schema))


class StreamTicketOut(serializers.Serializer[Any]):
    ticket = serializers.CharField(help_text="send as `?ticket=` to open the stream, once")
    expires_at = serializers.DateTimeField(help_text="60 seconds from now")
