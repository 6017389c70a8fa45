"""System checks of the push settings (`manage.py check`, and every command that
starts the API): a half or wrong configuration is said at start, not found by the
first notification that fails."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.core import checks

from players.push import fcm, webpush

# What the push services take as the VAPID contact (RFC 8292, `sub`).
SUBJECT = re.compile(r"(mailto:[^@\s]+@[^@\s]+|https://\S+)")


@checks.register()
def push_settings(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    errors: list[checks.CheckMessage] = []
    public, private = settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY
    if bool(public) != bool(private):
        errors.append(
            checks.Error(
                "VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY are set together or not at all",
                hint="python manage.py vapid_keys makes a pair",
                id="players.E001",
            )
        )
    elif public:
        try:
            matches = webpush.public_key_of(private) == public.rstrip("=")
        except Exception:  # what the key library raises for a malformed key varies
            matches = False
        if not matches:
            errors.append(
                checks.Error(
                    "VAPID_PRIVATE_KEY is no raw P-256 key (base64url), or VAPID_PUBLIC_KEY "
                    "is not its public key",
                    hint="python manage.py vapid_keys makes a pair",
                    id="players.E002",
                )
            )
        if not SUBJECT.fullmatch(settings.VAPID_SUBJECT):
            errors.append(
                checks.Error(
                    "VAPID_SUBJECT must be a mailto: or https: URL for the push services to "
                    "contact the operator; without it nothing is sent by Web Push",
                    id="players.E003",
                )
            )
    if settings.FCM_CREDENTIALS_FILE:
        try:
            fcm.project_of(settings.FCM_CREDENTIALS_FILE)
        except ValueError as error:
            errors.append(
                checks.Error(
                    f"FCM_CREDENTIALS_FILE is no service account key file: {error}",
                    id="players.E004",
                )
            )
    return errors
