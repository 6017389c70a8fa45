"""Table talk's bodies: a message said (one of a phrase, an emote or free text), a
page of messages, the catalogue, and a report. Shape only: what a table allows is
the services' to judge."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.utils import (
    OpenApiExample,
    PolymorphicProxySerializer,
    extend_schema_field,
)
from rest_framework import serializers

from games.serializers.common import component
from games.talk.catalogue import EMOTES, PHRASES
from games.talk.masking import MAX_TEXT_LENGTH
from games.talk.messages import text_problem
from games.talk.models import MessageKind, ReportReason, ReportStatus
from games.talk.reports import MAX_NOTE_LENGTH
from players.serializers import tag_field
from unoservice.fields import QueryIntegerField, StrictCharField, StrictSerializer
from unoservice.schema import (
    optional_trimmed_text_pattern,
    trimmed_text_pattern,
)

# What a text field takes before trimming: the whitespace around text is dropped.
MAX_TYPED_LENGTH = 1000


@extend_schema_field(
    {
        "type": "string",
        "format": "printable",
        "maxLength": MAX_TYPED_LENGTH,
        "pattern": trimmed_text_pattern(MAX_TEXT_LENGTH),
        "description": f"free text: 1-{MAX_TEXT_LENGTH} printable characters (no control, "
        "format or separator characters but the plain space: no tabs or line breaks) once "
        "the whitespace around them is trimmed. Readers see it with rude words masked",
    }
)
class MessageTextField(StrictCharField):
    def to_internal_value(self, data: Any) -> str:
        text = super().to_internal_value(data)
        problem = text_problem(text)
        if problem is not None:
            raise serializers.ValidationError(problem)
        return text.strip()


@extend_schema_field(
    {
        "type": "string",
        "format": "printable",
        "maxLength": MAX_TYPED_LENGTH,
        "pattern": optional_trimmed_text_pattern(MAX_NOTE_LENGTH),
        "description": f"what staff should know: up to {MAX_NOTE_LENGTH} printable "
        "characters once the whitespace around them is trimmed (no tabs or line breaks)",
    }
)
class ReportNoteField(StrictCharField):
    def to_internal_value(self, data: Any) -> str:
        note = super().to_internal_value(data).strip()
        if len(note) > MAX_NOTE_LENGTH:
            raise serializers.ValidationError(f"at most {MAX_NOTE_LENGTH} characters")
        if not note.isprintable():
            raise serializers.ValidationError("printable characters only")
        return note


class PlayerIdField(serializers.UUIDField):
    """A player's id as JSON writes it: a string (DRF would read an integer as one)."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid", value=data)
        return super().to_internal_value(data)


def _phrase_field(**options: Any) -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=list(PHRASES), help_text="the key of a quick phrase of the catalogue", **options
    )


def _emote_field(**options: Any) -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=list(EMOTES), help_text="the key of an emote of the catalogue", **options
    )


def _text_field(**options: Any) -> MessageTextField:
    return MessageTextField(max_length=MAX_TYPED_LENGTH, trim_whitespace=False, **options)


class MessageIn(StrictSerializer):
    """Exactly one of `phrase`, `emote` or `text`."""

    phrase = _phrase_field(required=False)
    emote = _emote_field(required=False)
    text = _text_field(required=False)

    body_required = True

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        given = [key for key in ("phrase", "emote", "text") if key in attrs]
        if len(given) != 1:
            raise serializers.ValidationError("send exactly one of phrase, emote or text")
        (kind,) = given
        value = attrs[kind]
        if kind == "text":
            return {"kind": MessageKind.TEXT, "code": "", "text": value}
        return {"kind": kind, "code": value, "text": ""}


# The three forms of a message, for the schema (`MessageIn` validates).
class PhraseIn(StrictSerializer):
    phrase = _phrase_field()


class EmoteIn(StrictSerializer):
    emote = _emote_field()


class TextIn(StrictSerializer):
    text = _text_field()


def required_body(*forms: type, name: str) -> PolymorphicProxySerializer:
    """One of the bodies `forms`, one of which must be sent: `body_required` makes
    `unoservice.schema.AutoSchema` mark the body required."""
    proxy = PolymorphicProxySerializer(
        component_name=name, serializers=list(forms), resource_type_field_name=None
    )
    # Set on the one instance: drf-spectacular does not take a subclass of the proxy.
    setattr(proxy, "body_required", True)  # noqa: B010
    return proxy


MESSAGE_IN = required_body(PhraseIn, EmoteIn, TextIn, name="TableMessageIn")

MESSAGE_EXAMPLES = [
    OpenApiExample("a quick phrase", value={"phrase": "good_game"}, request_only=True),
    OpenApiExample("an emote", value={"emote": "thumbs_up"}, request_only=True),
    OpenApiExample("free text", value={"text": "nice one, well played"}, request_only=True),
]


class SenderOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    name = serializers.CharField(min_length=1)
    tag = tag_field()


class MessageOut(serializers.Serializer[Any]):
    id = serializers.IntegerField(
        min_value=1, help_text="increasing at each table: the order of its messages"
    )
    at = serializers.DateTimeField()
    kind = serializers.ChoiceField(choices=MessageKind.values)
    code = serializers.CharField(
        allow_blank=True, help_text="the catalogue's key of a phrase or emote; empty for text"
    )
    text = serializers.CharField(
        help_text="what to show: the phrase's words, the emote, or the text with rude words masked"
    )
    seat = serializers.IntegerField(
        min_value=0, allow_null=True, help_text="the sender's seat; null for a spectator"
    )
    spectator = serializers.BooleanField(help_text="whether the sender watches without a seat")
    # `from` is a Python keyword: declared under another name, answered as `from`.
    sender = SenderOut(help_text="who said it")

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        fields["from"] = fields.pop("sender")
        return fields


class MessagesOut(serializers.Serializer[Any]):
    messages = MessageOut(many=True, help_text="oldest first")


class MessagesQuery(serializers.Serializer[Any]):
    after = QueryIntegerField(
        min_value=0,
        default=0,
        help_text="only the messages with a greater id (the last one you have): the "
        "last 50 of them",
    )


class CatalogueEntryOut(serializers.Serializer[Any]):
    code = serializers.CharField(help_text="the key to send")
    text = serializers.CharField(help_text="what every reader is shown")


class CatalogueOut(serializers.Serializer[Any]):
    phrases = CatalogueEntryOut(many=True)
    emotes = CatalogueEntryOut(many=True)


class ReasonField(serializers.ChoiceField):
    """Why a report is made (its schema is the named component `ReportReason`)."""


class ReasonFieldScheme(OpenApiSerializerFieldExtension):
    """The reasons as one named component: the two forms of a report share it, and
    other fields named `reason` keep their own choices."""

    target_class = ReasonField

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, str]:
        schema = {"type": "string", "enum": ReportReason.values, "description": "what is wrong"}
        return component(auto_schema, "ReportReason", schema)


def _reason_field() -> ReasonField:
    return ReasonField(choices=ReportReason.values, help_text="what is wrong")


class ReportIn(StrictSerializer):
    """`message` or `player`, with `reason` and an optional `note`."""

    message = serializers.IntegerField(min_value=1, max_value=2**63 - 1, required=False)
    player = PlayerIdField(required=False)
    reason = _reason_field()
    note = ReportNoteField(
        max_length=MAX_TYPED_LENGTH, trim_whitespace=False, allow_blank=True, required=False
    )

    body_required = True

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("message" in attrs) == ("player" in attrs):
            raise serializers.ValidationError("report either a message or a player")
        return attrs


class MessageReportIn(StrictSerializer):
    message = serializers.IntegerField(
        min_value=1, max_value=2**63 - 1, help_text="the id of a message said at this table"
    )
    reason = _reason_field()
    note = ReportNoteField(
        max_length=MAX_TYPED_LENGTH, trim_whitespace=False, allow_blank=True, required=False
    )


class PlayerReportIn(StrictSerializer):
    player = PlayerIdField(
        help_text="the id of a player who sits or sat at this table, or said something there"
    )
    reason = _reason_field()
    note = ReportNoteField(
        max_length=MAX_TYPED_LENGTH, trim_whitespace=False, allow_blank=True, required=False
    )


REPORT_IN = required_body(MessageReportIn, PlayerReportIn, name="ReportIn")

REPORT_EXAMPLES = [
    OpenApiExample("a message", value={"message": 4127, "reason": "abuse"}, request_only=True),
    OpenApiExample(
        "a player",
        value={
            "player": "6f1c2b7e-0d3a-4c59-9b1e-2a7d5c3e8f10",
            "reason": "cheating",
            "note": "plays with a friend at the same table",
        },
        request_only=True,
    ),
]


class ReportOut(serializers.Serializer[Any]):
    id = serializers.IntegerField(min_value=1)
    status = serializers.ChoiceField(choices=ReportStatus.values)
