"""``/players/me/notifications``: what a player is told while away, all on by default
but game_finished; and ``GET /push/config``, what a browser needs to subscribe."""

from __future__ import annotations

import pytest

from players.models import NotificationSettings
from tests.factories import assert_error

DEFAULTS = {
    "your_turn": True,
    "match_found": True,
    "rematch_offered": True,
    "game_finished": False,
    "seat_taken_over": True,
    "game_invite": True,
}


def test_a_new_player_is_told_everything_but_that_a_game_finished(host):
    assert host.get("/players/me/notifications").json() == DEFAULTS
    assert host.get("/players/me").json()["notifications"] == DEFAULTS
    assert not NotificationSettings.objects.exists()


def test_a_patch_switches_the_kinds_it_names_and_answers_them_all(host, guest):
    response = host.patch("/players/me/notifications", {"your_turn": False, "game_finished": True})
    assert response.status_code == 200, response.json()
    chosen = {**DEFAULTS, "your_turn": False, "game_finished": True}
    assert response.json() == chosen
    assert host.patch("/players/me/notifications", {"match_found": False}).json() == {
        **chosen,
        "match_found": False,
    }
    assert host.get("/players/me/notifications").json()["your_turn"] is False
    assert host.get("/players/me").json()["notifications"]["match_found"] is False
    assert guest.get("/players/me/notifications").json() == DEFAULTS


def test_an_empty_patch_changes_nothing(host):
    assert host.patch("/players/me/notifications", {}).json() == DEFAULTS


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"your_turn": "false"}, "your_turn"),
        ({"your_turn": 0}, "your_turn"),
        ({"your_turn": None}, "your_turn"),
        ({"chat": True}, "chat"),
    ],
)
def test_a_setting_that_is_not_a_known_kind_with_a_boolean_is_a_400(host, body, field):
    error = assert_error(host.patch("/players/me/notifications", body), 400, "invalid_request")
    assert field in error["details"]["fields"]
    assert host.get("/players/me/notifications").json() == DEFAULTS


@pytest.mark.parametrize("body", [[], "on", True])
def test_a_patch_that_is_no_object_is_a_400(host, body):
    assert_error(host.patch("/players/me/notifications", body), 400, "invalid_request")


def test_the_settings_need_a_token(anonymous):
    assert_error(anonymous.get("/api/v1/players/me/notifications"), 401, "not_authenticated")


def test_without_keys_the_config_offers_no_web_push_and_no_fcm(anonymous, settings):
    settings.VAPID_PUBLIC_KEY = settings.VAPID_PRIVATE_KEY = ""
    settings.FCM_CREDENTIALS_FILE = ""
    response = anonymous.get("/api/v1/push/config")
    assert response.status_code == 200
    assert response.json() == {
        "webpush": {"public_key": None},
        "fcm": False,
        "kinds": list(DEFAULTS),
    }


def test_the_config_gives_anyone_the_public_key_browsers_subscribe_with(anonymous, vapid_keys):
    public, private = vapid_keys
    body = anonymous.get("/api/v1/push/config").json()
    assert body["webpush"] == {"public_key": public}
    assert private not in str(body)


def test_the_config_says_fcm_is_on_once_it_has_credentials(anonymous, fcm_service):
    assert anonymous.get("/api/v1/push/config").json()["fcm"] is True


def test_the_config_is_rate_limited_per_address(anonymous, monkeypatch):
    from unoservice.throttling import AnonymousRateThrottle

    rates = {**AnonymousRateThrottle.THROTTLE_RATES, "anonymous": "2/min"}
    monkeypatch.setattr(AnonymousRateThrottle, "THROTTLE_RATES", rates)
    for _ in range(2):
        assert anonymous.get("/api/v1/push/config").status_code == 200
    assert_error(anonymous.get("/api/v1/push/config"), 429, "rate_limited")
