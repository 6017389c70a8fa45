"""`manage.py vapid_keys` makes a pair the service takes, and the system checks say at
start what is wrong with the push settings."""

from __future__ import annotations

import io
import json

from django.core.management import call_command

from players.push import checks, webpush
from tests.push_service import VAPID_SUBJECT, vapid_key_pair


def made_pair() -> dict[str, str]:
    out = io.StringIO()
    call_command("vapid_keys", stdout=out)
    lines = out.getvalue().split()
    return dict(line.split("=", 1) for line in lines)


def ids(settings_errors: list) -> list[str]:
    return [error.id for error in settings_errors]


def test_the_command_prints_a_pair_as_the_two_settings(settings):
    pair = made_pair()
    assert set(pair) == {"VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY"}
    assert webpush.public_key_of(pair["VAPID_PRIVATE_KEY"]) == pair["VAPID_PUBLIC_KEY"]
    assert len(pair["VAPID_PUBLIC_KEY"]) == 87  # 65 bytes, base64url without padding
    assert made_pair() != pair
    settings.VAPID_PUBLIC_KEY = pair["VAPID_PUBLIC_KEY"]
    settings.VAPID_PRIVATE_KEY = pair["VAPID_PRIVATE_KEY"]
    settings.VAPID_SUBJECT = VAPID_SUBJECT
    assert checks.push_settings() == []


def test_no_push_settings_is_no_error(settings):
    settings.VAPID_PUBLIC_KEY = settings.VAPID_PRIVATE_KEY = settings.FCM_CREDENTIALS_FILE = ""
    assert checks.push_settings() == []


def test_half_a_pair_a_wrong_pair_or_no_contact_is_an_error(settings):
    public, private = vapid_key_pair()
    other_public, _ = vapid_key_pair()
    settings.VAPID_SUBJECT = VAPID_SUBJECT
    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = public, ""
    assert ids(checks.push_settings()) == ["players.E001"]
    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = other_public, private
    assert ids(checks.push_settings()) == ["players.E002"]
    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = public, "not a key"
    assert ids(checks.push_settings()) == ["players.E002"]
    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = public, private
    settings.VAPID_SUBJECT = "ops@example.com"
    assert ids(checks.push_settings()) == ["players.E003"]


def test_an_fcm_key_file_that_is_no_service_accounts_is_an_error(settings, tmp_path):
    settings.VAPID_PUBLIC_KEY = settings.VAPID_PRIVATE_KEY = ""
    settings.FCM_CREDENTIALS_FILE = str(tmp_path / "missing.json")
    assert ids(checks.push_settings()) == ["players.E004"]
    wrong = tmp_path / "user.json"
    wrong.write_text(json.dumps({"type": "authorized_user"}))
    settings.FCM_CREDENTIALS_FILE = str(wrong)
    assert ids(checks.push_settings()) == ["players.E004"]


def test_a_working_fcm_key_file_is_no_error(fcm_service, settings):
    settings.VAPID_PUBLIC_KEY = settings.VAPID_PRIVATE_KEY = ""
    assert checks.push_settings() == []
