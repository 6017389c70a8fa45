"""What the friends, blocks and table-talk endpoints take and answer."""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import OpenApiExample
from rest_framework import serializers

from players.serializers import tag_field
from players.social import blocks, friends
from players.social.common import player_ref
from players.social.models import Block, FriendRequest, TalkMute
from unoservice import codes
from unoservice.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictSerializer,
    StrictUUIDField,
)

CODE_HELP = (
    f"a friend code: {codes.CODE_LENGTH} characters of {codes.ALPHABET}, in any case; "
    "spaces and hyphens are ignored"
)


class FriendRequestIn(StrictSerializer):
    """Exactly one of `player` (an id) and `code` (the player's friend code)."""

    player = StrictUUIDField(required=False, help_text="the id of the player to ask")
    code = StrictCharField(
        required=False,
        max_length=codes.MAX_TYPED_LENGTH,
        trim_whitespace=False,
        validators=[RegexValidator(codes.TYPED_PATTERN, CODE_HELP)],
        help_text=CODE_HELP,
    )
    # For the schema (`unoservice.schema.AutoSchema`): a body must be sent.
    body_required = True

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if len(attrs) != 1:
            raise serializers.ValidationError("send exactly one of player and code")
        return attrs


class FriendRequestScheme(OpenApiSerializerExtension):
    """A friend request's body in the schema: one of its two forms, an object with
    `player` alone or with `code` alone."""

    target_class = "players.social.serializers.FriendRequestIn"
    priority = 1

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        whole = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        if direction != "request":
            return dict(whole)
        return {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {name: whole["properties"][name]},
                    "required": [name],
                    "additionalProperties": False,
                }
                for name in ("player", "code")
            ]
        }


FRIEND_REQUEST_EXAMPLES = [
    OpenApiExample(
        "By id",
        value={"player": "6f1c2b7e-0d3a-4c59-9b1e-2a7d5c3e8f10"},
        description="The player's id, as a profile or a game's seats show it.",
        request_only=True,
    ),
    OpenApiExample(
        "By friend code",
        value={"code": "k7mq x2rp"},
        description="The code as the friend passed it on; case, spaces and hyphens do not matter.",
        request_only=True,
    ),
]


class TableTalkIn(StrictSerializer):
    hide_spectator_emotes = StrictBooleanField(
        required=False, help_text="hide the emotes of spectators at every table"
    )


class SocialPlayerOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    name = serializers.CharField()
    tag = tag_field()


class FriendCodeOut(serializers.Serializer[Any]):
    code = serializers.RegexField(
        rf"^[{codes.ALPHABET}]{{{codes.CODE_LENGTH}}}$", help_text="the caller's friend code"
    )
    link = serializers.CharField(
        help_text="the web client's path that sends a friend request to the caller"
    )


class FriendRequestOut(serializers.Serializer[Any]):
    player = SocialPlayerOut()
    status = serializers.ChoiceField(
        choices=[friends.REQUESTED, friends.FRIENDS],
        help_text="requested: the request waits for their answer; friends: you are friends",
    )


class PlayerAtOut(serializers.Serializer[Any]):
    player = SocialPlayerOut()
    at = serializers.DateTimeField()


class BlocksOut(serializers.Serializer[Any]):
    blocks = PlayerAtOut(many=True, help_text="the players you block, the latest first")
    cap = serializers.IntegerField(help_text="how many players you may block")


class TableTalkOut(serializers.Serializer[Any]):
    hide_spectator_emotes = serializers.BooleanField()
    muted = PlayerAtOut(many=True, help_text="the players whose table talk you muted")


def friend_code_json(code: str) -> dict[str, Any]:
    return {"code": code, "link": friends.friend_link(code)}


def asked_json(asked: friends.Asked) -> dict[str, Any]:
    return {"player": player_ref(asked.player), "status": asked.status}


def request_received_json(request: FriendRequest) -> dict[str, Any]:
    return {"player": player_ref(request.sender), "at": request.created_at}


def request_sent_json(request: FriendRequest) -> dict[str, Any]:
    return {"player": player_ref(request.receiver), "at": request.created_at}


def blocks_json(rows: list[Block]) -> dict[str, Any]:
    return {
        "blocks": [{"player": player_ref(b.blocked), "at": b.created_at} for b in rows],
        "cap": blocks.MAX_BLOCKS,
    }


def table_talk_json(hide: bool, mutes: list[TalkMute]) -> dict[str, Any]:
    return {
        "hide_spectator_emotes": hide,
        "muted": [{"player": player_ref(m.muted), "at": m.created_at} for m in mutes],
    }
