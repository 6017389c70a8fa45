"""FCM HTTP v1 through a local fake of it and of Google's token endpoint
(tests/fcm_service.py): the service account's access token authorises each send;
the message carries the token, the payload as FCM's string data, the game as
collapse key for Android and APNs; a token FCM no longer knows is deleted."""

from __future__ import annotations

import json
import uuid
from typing import Any

from players import push
from players.models import Device
from players.push import devices
from players.push.devices import Registration
from tests.fcm_service import FcmService, error_body
from unoservice import metrics


def register(persona: Any, token: str = "app-token:APA91bHun4MxP5egoKMwt2KZFBaFUH") -> Device:
    device, _ = devices.device_register(
        player_id=persona.player.pk, registration=Registration.fcm(token=token)
    )
    return device


def notification(persona: Any, kind: str = "your_turn", **fields: Any) -> push.Notification:
    return push.Notification(
        kind=kind,
        player_id=str(persona.player.pk),
        game_id=str(uuid.uuid4()),
        text="Ann played a Wild Draw Four: your turn",
        seat=2,
        **fields,
    )


def counted(outcome: str, kind: str = "your_turn") -> float:
    return metrics.current("uno_notifications_total", kind=kind, channel="fcm", outcome=outcome)


def test_the_message_carries_the_token_the_payload_as_strings_and_the_collapse_key(
    host, fcm_service: FcmService
):
    register(host)
    sent = notification(host, extra={"reminder": True})
    before = counted("sent")
    assert push.deliver(sent) == 1
    (request,) = fcm_service.received()
    assert request.project == "uno-push-tests"
    message = request.message
    assert message["token"] == "app-token:APA91bHun4MxP5egoKMwt2KZFBaFUH"
    assert message["notification"] == {"title": "UNO", "body": sent.text}
    assert all(isinstance(value, str) for value in message["data"].values())
    assert request.payload == sent.payload()
    topic = uuid.UUID(sent.game_id).hex
    assert message["android"]["collapse_key"] == topic
    assert message["android"]["ttl"] == "86400s"
    assert message["android"]["priority"] == "high"
    assert message["apns"]["headers"]["apns-collapse-id"] == topic
    assert message["apns"]["headers"]["apns-priority"] == "10"
    assert counted("sent") == before + 1
    assert fcm_service.refusals == []


def test_one_access_token_serves_many_sends(host, guest, fcm_service):
    register(host)
    register(guest, "another-token")
    push.deliver(notification(host))
    push.deliver(notification(guest, "match_found"))
    assert len(fcm_service.received()) == 2
    assert fcm_service.token_requests == 1


def test_a_token_fcm_says_is_unregistered_is_deleted_at_once(host, fcm_service, push_tasks):
    register(host)
    fcm_service.unregistered()
    before = counted("gone")
    assert push.deliver(notification(host)) == 0
    assert not Device.objects.exists()
    assert push_tasks.sent == []
    assert counted("gone") == before + 1


def invalid_argument(field: str) -> dict[str, Any]:
    """FCM's 400 about one field of the message."""
    violation = {"field": field, "description": "invalid"}
    return error_body(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", fieldViolations=[violation])


def test_a_token_fcm_calls_invalid_is_deleted_but_a_bad_message_is_not(host, fcm_service):
    register(host)
    fcm_service.answer_next(400, body=invalid_argument("message.android.ttl"))
    push.deliver(notification(host))
    assert Device.objects.exists()
    fcm_service.answer_next(400, body=invalid_argument("message.token"))
    push.deliver(notification(host))
    assert not Device.objects.exists()


def test_fcm_asking_to_wait_is_asked_again_after_the_wait(host, fcm_service, push_tasks):
    register(host)
    fcm_service.answer_next(
        503, headers={"Retry-After": "30"}, body=error_body(503, "UNAVAILABLE", "UNAVAILABLE")
    )
    push.deliver(notification(host))
    (retry,) = push_tasks.sent
    assert (retry.countdown or 0) >= 30
    assert push_tasks.run_all() == [1]
    first, second = fcm_service.received()
    assert (first.status, second.status) == (503, 200)


def test_a_service_account_the_token_endpoint_refuses_sends_nothing_and_fails(
    host, fcm_service, settings, tmp_path
):
    register(host)
    other = FcmService()  # a key the fake does not know, the same token endpoint
    info = json.loads(other.credentials_file(tmp_path / "..").read_text())
    info["token_uri"] = f"{fcm_service.origin}/token"
    wrong = tmp_path / "wrong-key.json"
    wrong.write_text(json.dumps(info))
    settings.FCM_CREDENTIALS_FILE = str(wrong)
    before = counted("failed")
    assert push.deliver(notification(host)) == 0
    assert fcm_service.received() == []
    assert fcm_service.refusals
    assert counted("failed") == before + 1
