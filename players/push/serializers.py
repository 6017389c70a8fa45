"""What the push endpoints take and answer: devices, notification settings and the
push configuration, with the examples the schema shows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.utils import OpenApiExample, PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from players.push import devices
from players.push.notification import KINDS
from players.push.preferences import DEFAULT_SETTINGS
from unoservice.fields import (
    MAX_EXACT_INTEGER,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
)

DEVICE_KINDS = ["webpush", "fcm", "apns"]
APNS_NOT_YET = "apns is not supported yet: register the app's FCM token (kind fcm)"

KIND_HELP = {
    "your_turn": "your turn has begun in a game (and a reminder before a long turn runs out)",
    "match_found": "a quick match found its players, or a game you sit in started",
    "rematch_offered": "another player asked for a rematch of a game you played",
    "game_finished": "a game you played has ended",
    "seat_taken_over": "a bot took your seat after your timeouts (with how to take it back)",
    "game_invite": "a friend invited you to a game",
}


class KeysIn(StrictSerializer):
    p256dh = StrictCharField(
        max_length=devices.MAX_KEY_TEXT,
        trim_whitespace=False,
        help_text="the browser's public key: a 65-byte uncompressed P-256 point, base64url",
    )
    auth = StrictCharField(
        max_length=devices.MAX_KEY_TEXT,
        trim_whitespace=False,
        help_text="the browser's 16-byte authentication secret, base64url",
    )


class SubscriptionIn(StrictSerializer):
    endpoint = StrictCharField(
        max_length=devices.MAX_ENDPOINT_LENGTH,
        trim_whitespace=False,
        help_text="the push service's URL for this browser (https)",
    )
    expirationTime = StrictIntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=MAX_EXACT_INTEGER,
        help_text="as the browser gives it (milliseconds since 1970, or null); not used",
    )
    keys = KeysIn()


# The kinds a device is registered as, each a body of its own.
WEBPUSH_KIND = ["webpush"]
FCM_KIND = ["fcm"]

LABEL_HELP = "a name for the list, e.g. 'Firefox on the laptop': 1-"
LABEL_HELP += f"{devices.MAX_LABEL_LENGTH} printable characters"


@extend_schema_field(
    {
        "type": "string",
        "format": "printable",
        "minLength": 1,
        "maxLength": devices.MAX_LABEL_LENGTH,
        "description": LABEL_HELP,
    }
)
class LabelField(StrictCharField):
    pass


class WebPushDeviceIn(StrictSerializer):
    kind = serializers.ChoiceField(choices=WEBPUSH_KIND, help_text="a browser's subscription")
    subscription = SubscriptionIn(
        help_text="the PushSubscription as the browser's toJSON() gives it"
    )
    # A field of the body, not the serializer's own label.
    label = LabelField(  # type: ignore[assignment]
        required=False, max_length=devices.MAX_LABEL_LENGTH
    )


class FcmDeviceIn(StrictSerializer):
    kind = serializers.ChoiceField(
        choices=FCM_KIND, help_text="an app's Firebase Cloud Messaging registration token"
    )
    token = StrictCharField(
        max_length=devices.MAX_TOKEN_LENGTH,
        trim_whitespace=False,
        validators=[RegexValidator(devices.TOKEN_PATTERN, devices.TOKEN_PROBLEM)],
        help_text="the app's registration token",
    )
    label = LabelField(  # type: ignore[assignment]
        required=False, max_length=devices.MAX_LABEL_LENGTH
    )


class KindIn(serializers.Serializer[Any]):
    """Which body a device registration is, read first."""

    kind = serializers.ChoiceField(choices=DEVICE_KINDS)

    def validate_kind(self, kind: str) -> str:
        if kind == "apns":
            raise serializers.ValidationError(APNS_NOT_YET)
        return kind


DEVICE_BODIES: Mapping[str, type[StrictSerializer]] = {
    "webpush": WebPushDeviceIn,
    "fcm": FcmDeviceIn,
}
DeviceIn = PolymorphicProxySerializer(
    component_name="DeviceIn",
    serializers=dict(DEVICE_BODIES),
    resource_type_field_name="kind",
)


class DeviceOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    kind = serializers.ChoiceField(choices=DEVICE_KINDS)
    address = serializers.CharField(
        help_text="enough to tell devices apart, never the whole: a push subscription's "
        "origin, or the last characters of a token after '…'"
    )
    label = serializers.CharField(allow_blank=True)  # type: ignore[assignment]
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField(help_text="when it was last registered")
    last_used_at = serializers.DateTimeField(
        allow_null=True, help_text="when a push service last accepted a notification for it"
    )


def _help(kind: str) -> str:
    return f"{KIND_HELP[kind]} (default: {'on' if DEFAULT_SETTINGS[kind] else 'off'})"


class NotificationSettingsOut(serializers.Serializer[Any]):
    your_turn = serializers.BooleanField(help_text=_help("your_turn"))
    match_found = serializers.BooleanField(help_text=_help("match_found"))
    rematch_offered = serializers.BooleanField(help_text=_help("rematch_offered"))
    game_finished = serializers.BooleanField(help_text=_help("game_finished"))
    seat_taken_over = serializers.BooleanField(help_text=_help("seat_taken_over"))
    game_invite = serializers.BooleanField(help_text=_help("game_invite"))


class NotificationSettingsIn(StrictSerializer):
    your_turn = StrictBooleanField(required=False, help_text=_help("your_turn"))
    match_found = StrictBooleanField(required=False, help_text=_help("match_found"))
    rematch_offered = StrictBooleanField(required=False, help_text=_help("rematch_offered"))
    game_finished = StrictBooleanField(required=False, help_text=_help("game_finished"))
    seat_taken_over = StrictBooleanField(required=False, help_text=_help("seat_taken_over"))
    game_invite = StrictBooleanField(required=False, help_text=_help("game_invite"))


class WebPushConfigOut(serializers.Serializer[Any]):
    public_key = serializers.CharField(
        allow_null=True,
        help_text="the VAPID public key, base64url: pushManager.subscribe's "
        "applicationServerKey; null when the service sends no Web Push",
    )


class PushConfigOut(serializers.Serializer[Any]):
    webpush = WebPushConfigOut()
    fcm = serializers.BooleanField(help_text="whether the service sends to FCM tokens")
    kinds = serializers.ListField(
        child=serializers.ChoiceField(choices=KINDS),
        help_text="the kinds of notification, each one switched on or off in the settings",
    )


EXAMPLE_ENDPOINT = "https://fcm.googleapis.com/fcm/send/dJ3pF0Y5_QE:APA91bH2xZ"
EXAMPLE_P256DH = (
    "BHLaj5gnRh396AM5Gx1WLe2pIseeJWqNLKt9tiCz9WWpYz9T5Ly4FJW5p6L7urvfR08Zm0eqvq7cqSXozc1oNyk"
)
EXAMPLE_AUTH = "FPssNDTKnInHVndSTdbKFw"

DEVICE_EXAMPLES = [
    OpenApiExample(
        "A browser's push subscription",
        value={
            "kind": "webpush",
            "subscription": {
                "endpoint": EXAMPLE_ENDPOINT,
                "expirationTime": None,
                "keys": {"p256dh": EXAMPLE_P256DH, "auth": EXAMPLE_AUTH},
            },
            "label": "Firefox on the laptop",
        },
        description="What pushManager.subscribe() gave, as its toJSON() writes it.",
        request_only=True,
    ),
    OpenApiExample(
        "An app's FCM token",
        value={"kind": "fcm", "token": "eX4mPl3T0k3n:APA91bF3kq0v9w", "label": "Pixel 8"},
        description="The registration token Firebase gave the app on Android or iOS.",
        request_only=True,
    ),
]
