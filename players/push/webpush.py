"""Web Push (RFC 8030) to browsers: the payload encrypted to the subscription's keys
(RFC 8291, aes128gcm) and the request signed with the service's VAPID key (RFC
8292), both by pywebpush."""

from __future__ import annotations

import base64
import datetime as dt
import functools
import time
from typing import Any
from urllib.parse import urlsplit

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from py_vapid import Vapid02
from pywebpush import WebPusher

from players.models import Device
from players.push import calls
from players.push.answers import Answer, by_status, no_answer
from players.push.notification import Notification
from unoservice import outbound

CHANNEL = "webpush"
# A VAPID token is good for this long (RFC 8292 allows up to 24 hours).
TOKEN_SECONDS = 12 * 3600
# The push service's answers that say the subscription is gone for good.
GONE = (404, 410)


def configured() -> bool:
    # The push services refuse a VAPID token without a contact (`sub`).
    return bool(settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY and settings.VAPID_SUBJECT)


def public_key() -> str | None:
    """The VAPID public key as browsers take it (`applicationServerKey`)."""
    return settings.VAPID_PUBLIC_KEY or None


@functools.cache
def _signer(private_key: str) -> Any:
    return Vapid02.from_raw(private_key.encode())


def origin(endpoint: str) -> str:
    parts = urlsplit(endpoint)
    return f"{parts.scheme}://{parts.netloc}"


def send(device: Device, notification: Notification, *, now: dt.datetime) -> Answer:
    """Send `notification` to a browser's subscription; what its push service said."""
    claims = {
        "sub": settings.VAPID_SUBJECT,
        "aud": origin(device.address),
        "exp": int(time.time()) + TOKEN_SECONDS,
    }
    headers = {
        **_signer(settings.VAPID_PRIVATE_KEY).sign(claims),
        "Topic": notification.topic,
        "Urgency": "high" if notification.kind == "your_turn" else "normal",
    }
    subscription = {
        "endpoint": device.address,
        "keys": {"p256dh": device.p256dh, "auth": device.auth},
    }
    try:
        response = WebPusher(subscription, requests_session=calls.session()).send(
            notification.payload_bytes(),
            headers,
            ttl=notification.ttl(now=now, default=settings.PUSH_DEFAULT_TTL),
            content_encoding="aes128gcm",
            timeout=settings.PUSH_TIMEOUT_SECONDS,
        )
    except outbound.AddressRefused as error:
        return calls.refused(error)
    except requests.RequestException as error:
        return no_answer(error)
    status = int(response.status_code)
    return by_status(status, response.headers, gone=status in GONE, detail=response.text[:200])


# -- keys ----------------------------------------------------------------------------


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def new_key_pair() -> tuple[str, str]:
    """A fresh VAPID key pair: (public, private), base64url, as the settings take
    them (the uncompressed point, the raw scalar)."""
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_numbers().private_value.to_bytes(32, "big")
    public = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(public), b64url(private)


def public_key_of(private_key: str) -> str:
    """The public key that goes with `private_key` (both base64url); ValueError when
    it is no P-256 scalar."""
    key = _signer(private_key).private_key
    return b64url(
        key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
    )
