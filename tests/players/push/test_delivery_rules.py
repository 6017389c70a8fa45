"""What is sent at all: nothing without keys, nothing of a kind the player turned
off, nothing to a player without devices, and no more than the player's rate; a
notification travels to the worker as JSON once the change that caused it commits.
Each outcome is counted."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from players import push
from players.push import preferences
from tests.factories import DeviceFactory
from tests.push_service import PushService, PushTasks
from unoservice import metrics


def notification(persona: Any, kind: str = "match_found", **fields: Any) -> push.Notification:
    game_id = str(uuid.uuid4())
    return push.Notification(
        kind=kind,
        player_id=str(persona.player.pk),
        game_id=game_id,
        text="Your quick match found its players",
        path=f"/play/games/{game_id}",
        **fields,
    )


def subscribe(persona: Any, service: PushService) -> None:
    response = persona.post("/players/me/devices", service.device_body())
    assert response.status_code == 201, response.json()


def counted(kind: str, outcome: str, channel: str = "none") -> float:
    return metrics.current("uno_notifications_total", kind=kind, channel=channel, outcome=outcome)


def test_without_keys_nothing_is_enabled_and_delivering_sends_nothing(host, settings):
    settings.VAPID_PUBLIC_KEY = settings.VAPID_PRIVATE_KEY = ""
    settings.FCM_CREDENTIALS_FILE = ""
    DeviceFactory(player=host.player)
    assert push.enabled() is False
    assert push.deliver(notification(host)) == 0


def test_web_push_needs_the_contact_for_the_push_services_too(host, vapid_keys, settings):
    assert push.enabled() is True
    settings.VAPID_SUBJECT = ""
    assert push.enabled() is False


def test_a_kind_the_player_turned_off_is_not_sent(host, push_service):
    subscribe(host, push_service)
    preferences.notification_settings_update(player_id=host.player.pk, changes={"your_turn": False})
    before = counted("your_turn", "disabled")
    assert push.deliver(notification(host, "your_turn")) == 0
    assert push.deliver(notification(host, "match_found")) == 1
    assert len(push_service.received()) == 1
    assert counted("your_turn", "disabled") == before + 1


def test_game_finished_is_sent_only_to_who_asked_for_it(host, guest, push_service):
    subscribe(host, push_service)
    subscribe(guest, push_service)
    guest.patch("/players/me/notifications", {"game_finished": True})
    assert push.deliver(notification(host, "game_finished")) == 0
    assert push.deliver(notification(guest, "game_finished")) == 1


def test_a_player_without_devices_is_counted_as_such(host, push_service):
    before = counted("match_found", "no_device")
    assert push.deliver(notification(host)) == 0
    assert counted("match_found", "no_device") == before + 1


def test_a_players_notifications_beyond_their_rate_are_dropped(host, guest, push_service, settings):
    settings.PUSH_RATE_PER_MINUTE = 2
    subscribe(host, push_service)
    subscribe(guest, push_service)
    before = counted("match_found", "rate_limited")
    assert [push.deliver(notification(host)) for _ in range(3)] == [1, 1, 0]
    assert push.deliver(notification(guest)) == 1
    assert len(push_service.received()) == 3
    assert counted("match_found", "rate_limited") == before + 1


def test_no_rate_is_kept_when_it_is_zero(host, push_service, settings):
    settings.PUSH_RATE_PER_MINUTE = 0
    subscribe(host, push_service)
    assert sum(push.deliver(notification(host)) for _ in range(25)) == 25


def test_a_notification_is_delivered_by_a_task_once_its_change_commits(
    host, push_service, push_tasks: PushTasks, django_capture_on_commit_callbacks
):
    subscribe(host, push_service)
    sent = notification(host, "rematch_offered", extra={"by": {"id": "x", "name": "Ann"}})
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        push.deliver_on_commit(sent)
        assert push_tasks.sent == []
    assert len(callbacks) == 1
    (task,) = push_tasks.sent
    assert task.name == "players.push_deliver"
    json.dumps(task.args)  # what the broker carries
    assert push_tasks.run_all() == [1]
    (request,) = push_service.received()
    assert request.payload == sent.payload()


def test_a_notification_travels_as_json_and_back_unchanged():
    sent = push.Notification(
        kind="seat_taken_over",
        player_id=str(uuid.uuid4()),
        game_id=str(uuid.uuid4()),
        text="A bot took your seat: take it back",
        seat=3,
        deadline="2026-12-03T10:00:00+00:00",
        path="/play/games/x",
        expires_at="2026-12-04T10:00:00+00:00",
        changed_at="2026-12-03T09:59:00+00:00",
        extra={"resume": "/api/v1/games/x/resume"},
    )
    assert push.Notification.from_json(json.loads(json.dumps(sent.to_json()))) == sent
    assert sent.payload() == {
        "kind": "seat_taken_over",
        "game": sent.game_id,
        "seat": 3,
        "deadline": "2026-12-03T10:00:00+00:00",
        "text": "A bot took your seat: take it back",
        "path": "/play/games/x",
        "resume": "/api/v1/games/x/resume",
    }
    assert len(sent.payload_bytes()) < 1024


def test_a_notification_of_an_unknown_kind_cannot_be_made():
    with pytest.raises(ValueError, match="chat"):
        push.Notification(kind="chat", player_id="p", game_id="g", text="hi")


def test_the_kinds_are_the_settings(host):
    assert set(push.KINDS) == set(preferences.notification_settings(host.player.pk))
