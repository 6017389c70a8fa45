"""``/players/me/devices`` (where to reach the caller), ``/players/me/notifications``
(what to tell them) and ``/push/config`` (how a browser subscribes)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from players.auth import current_player
from players.models import Device
from players.push import devices, fcm, preferences, webpush
from players.push import openapi_text as text
from players.push.devices import Registration
from players.push.notification import KINDS
from players.push.serializers import (
    DEVICE_BODIES,
    DEVICE_EXAMPLES,
    DeviceIn,
    DeviceOut,
    KindIn,
    NotificationSettingsIn,
    NotificationSettingsOut,
    PushConfigOut,
)
from unoservice.idempotency.http import idempotent
from unoservice.schema import COMMON_HEADERS, IDEMPOTENT_HEADERS, error_responses


def device_json(device: Device) -> dict[str, Any]:
    return {
        "id": str(device.pk),
        "kind": device.kind,
        "address": devices.shown_address(device),
        "label": device.label,
        "created_at": device.created_at.isoformat(),
        "updated_at": device.updated_at.isoformat(),
        "last_used_at": device.last_used_at.isoformat() if device.last_used_at else None,
    }


def validated_device(data: Any) -> dict[str, Any]:
    """The body checked as the kind it names says (`DEVICE_BODIES`)."""
    if not isinstance(data, dict):
        raise serializers.ValidationError({"non_field_errors": ["expected a JSON object"]})
    kind = KindIn(data={"kind": data.get("kind")})
    kind.is_valid(raise_exception=True)
    body = DEVICE_BODIES[kind.validated_data["kind"]](data=data)
    body.is_valid(raise_exception=True)
    return dict(body.validated_data)


def registration_of(data: dict[str, Any]) -> Registration:
    label = data.get("label", "")
    if data["kind"] == "webpush":
        subscription = data["subscription"]
        return Registration.webpush(
            endpoint=subscription["endpoint"],
            p256dh=subscription["keys"]["p256dh"],
            auth=subscription["keys"]["auth"],
            label=label,
        )
    return Registration.fcm(token=data["token"], label=label)


class DevicesView(APIView):
    @extend_schema(
        **text.LIST_DEVICES,
        responses={200: DeviceOut(many=True), **error_responses(401, 429)},
        parameters=COMMON_HEADERS,
    )
    def get(self, request: Request) -> Response:
        player = current_player(request)
        return Response([device_json(d) for d in devices.devices_of(player.pk)])

    @extend_schema(
        **text.REGISTER_DEVICE,
        request=DeviceIn,
        examples=DEVICE_EXAMPLES,
        responses={
            200: DeviceOut,
            201: DeviceOut,
            **error_responses(
                400, 401, 409, 415, 422, 429, descriptions=text.REGISTER_DEVICE_ERRORS
            ),
        },
        parameters=IDEMPOTENT_HEADERS,
    )
    def post(self, request: Request) -> Response:
        def register() -> Response:
            device, created = devices.device_register(
                player_id=current_player(request).pk,
                registration=registration_of(validated_device(request.data)),
            )
            answer = status.HTTP_201_CREATED if created else status.HTTP_200_OK
            return Response(device_json(device), status=answer)

        return idempotent(request, register)


DEVICE_ID = OpenApiParameter(
    "device_id", str, OpenApiParameter.PATH, description="the device's id (a UUID)"
)


class DeviceView(APIView):
    @extend_schema(
        **text.REMOVE_DEVICE,
        responses={
            204: None,
            **error_responses(401, 404, 429, descriptions=text.REMOVE_DEVICE_ERRORS),
        },
        parameters=[DEVICE_ID, *COMMON_HEADERS],
    )
    def delete(self, request: Request, device_id: str) -> Response:
        devices.device_remove(player_id=current_player(request).pk, device_id=device_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class NotificationSettingsView(APIView):
    @extend_schema(
        **text.NOTIFICATION_SETTINGS,
        responses={200: NotificationSettingsOut, **error_responses(401, 429)},
        parameters=COMMON_HEADERS,
    )
    def get(self, request: Request) -> Response:
        return Response(preferences.notification_settings(current_player(request).pk))

    @extend_schema(
        **text.CHANGE_NOTIFICATION_SETTINGS,
        request=NotificationSettingsIn,
        responses={200: NotificationSettingsOut, **error_responses(400, 401, 415, 429)},
        parameters=COMMON_HEADERS,
    )
    def patch(self, request: Request) -> Response:
        body = NotificationSettingsIn(data=request.data)
        body.is_valid(raise_exception=True)
        return Response(
            preferences.notification_settings_update(
                player_id=current_player(request).pk, changes=dict(body.validated_data)
            )
        )


class PushConfigView(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(
        **text.PUSH_CONFIG,
        responses={200: PushConfigOut, **error_responses(429)},
        parameters=COMMON_HEADERS,
        auth=[],
    )
    def get(self, request: Request) -> Response:
        return Response(
            {
                "webpush": {"public_key": webpush.public_key() if webpush.configured() else None},
                "fcm": fcm.configured(),
                "kinds": list(KINDS),
            }
        )
