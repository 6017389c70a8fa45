"""What the push endpoints say to client developers in the OpenAPI schema."""

from __future__ import annotations

from players.push import devices
from unoservice.schema import Described

REGISTER_DEVICE = Described(
    summary="Register a device for push notifications",
    description="Tells the service where to reach the caller while no stream of theirs is "
    "open: a browser's push subscription (kind webpush) or an app's Firebase Cloud "
    "Messaging token (kind fcm). 201 for a new device, 200 when the same endpoint or "
    "token was registered before: its keys and label are updated, and it becomes the "
    "caller's if another player had it (a browser or phone belongs to whoever "
    f"registered it last). At most {devices.MAX_DEVICES} devices a player. A "
    "subscription's endpoint must be an https URL of a push service, its keys a P-256 "
    "public key and a 16-byte secret.",
)
REGISTER_DEVICE_ERRORS = {
    400: "invalid_request: a malformed device (the field is named), or kind apns, which "
    "is not supported yet",
    409: f"too_many_devices: the caller has {devices.MAX_DEVICES} devices already "
    "(details.limit); or idempotency_key_in_use",
    422: "idempotency_key_reused",
}

LIST_DEVICES = Described(
    summary="The caller's devices",
    description="Where the caller's notifications go, oldest first. No secret is "
    "answered: a subscription shows its push service's origin, a token its last "
    "characters.",
)

REMOVE_DEVICE = Described(
    summary="Remove a device",
    description="The device gets no more notifications. A device that is not the "
    "caller's, or none, is a 404. A browser that unsubscribes should remove its device "
    "too; devices a push service says are gone are removed by the service.",
)
REMOVE_DEVICE_ERRORS = {404: "not_found: no such device of the caller"}

NOTIFICATION_SETTINGS = Described(
    summary="What the caller is notified of",
    description="Each kind of notification, on or off: all on by default but game_finished.",
)

CHANGE_NOTIFICATION_SETTINGS = Described(
    summary="Choose what the caller is notified of",
    description="Switches the kinds given on or off and leaves the others as they are; "
    "answers every kind. An empty object changes nothing.",
)

PUSH_CONFIG = Described(
    summary="How to subscribe to push notifications",
    description="No token needed. The VAPID public key a browser's "
    "pushManager.subscribe takes as applicationServerKey (null while the service sends "
    "no Web Push), whether it sends to FCM tokens, and the kinds of notification.",
)
