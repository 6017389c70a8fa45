"""Firebase Cloud Messaging (HTTP v1) to Android and iOS apps: one `messages:send` per
device, authorised by an OAuth access token that google-auth gets for the service
account (FCM_CREDENTIALS_FILE) and renews before it expires. The sends and the
token's renewals alike go through the push sessions (players.push.calls)."""

from __future__ import annotations

import datetime as dt
import functools
import json
from typing import Any

import requests
from django.conf import settings
from google.auth import exceptions as auth_errors
from google.auth.transport.requests import Request as AuthRequest
from google.oauth2 import service_account

from players.models import Device
from players.push import calls
from players.push.answers import Answer, by_status, no_answer
from players.push.notification import Notification
from unoservice import outbound

CHANNEL = "fcm"
SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
TITLE = "UNO"
# FCM's data values are strings: the payload travels as JSON under this one key.
DATA_KEY = "uno"
# FCM's error codes that say the token is no longer the app's (or never was this
# project's): the device goes.
GONE_CODES = ("UNREGISTERED", "SENDER_ID_MISMATCH")


def configured() -> bool:
    return bool(settings.FCM_CREDENTIALS_FILE)


@functools.cache
def _client(credentials_file: str, endpoint: str) -> tuple[Any, str]:
    """The service account's credentials (their access token renewed as it expires),
    and the URL of `messages:send`. Kept per process: the token is asked for once an
    hour."""
    credentials = service_account.Credentials.from_service_account_file(  # type: ignore[no-untyped-call]
        credentials_file, scopes=[SCOPE]
    )
    return credentials, endpoint.format(project_id=credentials.project_id)


def message(device: Device, notification: Notification, *, now: dt.datetime) -> dict[str, Any]:
    """The body of `messages:send` for one device."""
    ttl = notification.ttl(now=now, default=settings.PUSH_DEFAULT_TTL)
    urgent = notification.kind == "your_turn"
    return {
        "message": {
            "token": device.address,
            "notification": {"title": TITLE, "body": notification.text},
            "data": {DATA_KEY: notification.payload_bytes().decode()},
            "android": {
                "collapse_key": notification.topic,
                "ttl": f"{ttl}s",
                "priority": "high" if urgent else "normal",
            },
            "apns": {
                "headers": {
                    "apns-collapse-id": notification.topic,
                    "apns-expiration": str(int(now.timestamp()) + ttl),
                    "apns-priority": "10" if urgent else "5",
                }
            },
        }
    }


def send(device: Device, notification: Notification, *, now: dt.datetime) -> Answer:
    """Send `notification` to an app's token; what FCM said."""
    session = calls.session()
    try:
        credentials, url = _client(settings.FCM_CREDENTIALS_FILE, settings.FCM_ENDPOINT)
        headers: dict[str, str] = {}
        # Renews the token when it is about to expire, through the same session.
        credentials.before_request(AuthRequest(session), "POST", url, headers)
        response = session.post(url, json=message(device, notification, now=now), headers=headers)
    except outbound.AddressRefused as error:
        return calls.refused(error)
    except auth_errors.RefreshError as error:
        # The token endpoint refused the service account: a configuration to fix,
        # unless it says trying again may help.
        if getattr(error, "retryable", False):
            return no_answer(error)
        return Answer("failed", None, detail=f"access token refused: {error}")
    except (requests.RequestException, auth_errors.TransportError) as error:
        return no_answer(error)
    except (OSError, ValueError) as error:
        # The key file is missing or unreadable (the system checks say so too).
        return Answer("failed", None, detail=f"FCM credentials: {error}")
    status = int(response.status_code)
    codes = _error_codes(response)
    gone = status == 404 or bool(codes & set(GONE_CODES)) or _bad_token(status, response)
    return by_status(status, response.headers, gone=gone, detail=response.text[:200])


def _details(response: requests.Response) -> list[dict[str, Any]]:
    try:
        body = response.json()
    except ValueError:
        return []
    error = body.get("error") if isinstance(body, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    return [d for d in details if isinstance(d, dict)] if isinstance(details, list) else []


def _error_codes(response: requests.Response) -> set[str]:
    return {str(d["errorCode"]) for d in _details(response) if "errorCode" in d}


def _bad_token(status: int, response: requests.Response) -> bool:
    """A 400 INVALID_ARGUMENT that names the token: it is malformed, and never will
    be any app's (a 400 about the rest of the message is the service's to fix)."""
    if status != 400 or "INVALID_ARGUMENT" not in _error_codes(response):
        return False
    for detail in _details(response):
        for violation in detail.get("fieldViolations", []) or []:
            if isinstance(violation, dict) and violation.get("field") == "message.token":
                return True
    return False


def project_of(credentials_file: str) -> str:
    """The project a service account key file names; ValueError when it is no such
    file."""
    try:
        with open(credentials_file) as file:
            info = json.load(file)
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(str(error)) from None
    if not isinstance(info, dict) or info.get("type") != "service_account":
        raise ValueError("not a service account key file")
    missing = [k for k in ("project_id", "private_key", "client_email") if not info.get(k)]
    if missing:
        raise ValueError(f"it lacks {', '.join(missing)}")
    return str(info["project_id"])
