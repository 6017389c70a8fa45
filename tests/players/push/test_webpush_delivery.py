"""Web Push through a local push service that checks every request as a browser's
push service would (tests/push_service.py): the payload arrives encrypted to the
subscription with the game as Topic, the TTL running to its expiry and its urgency;
a subscription the push service says is gone is deleted; a push service that asks
to wait is asked again after the wait, with growing delays, within the tries and
the notification's life."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import pytest
from django.utils import timezone

from players import push
from players.models import Device
from players.push import delivery, devices
from players.push.devices import Registration
from tests.push_service import PushService, PushTasks
from unoservice import metrics


def register(persona: Any, service: PushService) -> Device:
    body = service.subscription()
    device, _ = devices.device_register(
        player_id=persona.player.pk,
        registration=Registration.webpush(
            endpoint=body["endpoint"], p256dh=body["keys"]["p256dh"], auth=body["keys"]["auth"]
        ),
    )
    return device


def notification(persona: Any, kind: str = "your_turn", **fields: Any) -> push.Notification:
    game_id = str(uuid.uuid4())
    values: dict[str, Any] = {
        "kind": kind,
        "player_id": str(persona.player.pk),
        "game_id": game_id,
        "text": "Ann played a Wild Draw Four: your turn",
        "seat": 1,
        "path": f"/play/games/{game_id}",
        **fields,
    }
    return push.Notification(**values)


def counted(kind: str, outcome: str, channel: str = "webpush") -> float:
    return metrics.current("uno_notifications_total", kind=kind, channel=channel, outcome=outcome)


def test_the_push_service_receives_the_payload_encrypted_to_the_subscription(host, push_service):
    register(host, push_service)
    deadline = timezone.now() + dt.timedelta(minutes=10)
    sent = notification(
        host,
        deadline=deadline.isoformat(),
        expires_at=deadline.isoformat(),
        changed_at=timezone.now().isoformat(),
        extra={"by": {"name": "Ann"}},
    )
    before = counted("your_turn", "sent")
    delivered_before = metrics.current("uno_notification_delivery_seconds_count", channel="webpush")
    assert push.deliver(sent) == 1
    (request,) = push_service.received()
    assert request.refusal == ""
    assert request.status == 201
    assert request.payload == sent.payload()
    assert request.payload["by"] == {"name": "Ann"}
    assert request.topic == uuid.UUID(sent.game_id).hex
    assert request.urgency == "high"
    assert 590 <= int(request.ttl or 0) <= 600
    assert counted("your_turn", "sent") == before + 1
    assert (
        metrics.current("uno_notification_delivery_seconds_count", channel="webpush")
        == delivered_before + 1
    )
    assert Device.objects.get().last_used_at is not None


def test_other_kinds_are_normal_urgency_and_live_a_day_without_an_expiry(host, push_service):
    register(host, push_service)
    push.deliver(notification(host, "rematch_offered"))
    (request,) = push_service.received()
    assert request.urgency == "normal"
    assert request.ttl == "86400"


def test_every_device_of_the_player_gets_it_and_nobody_elses(host, guest, push_service):
    register(host, push_service)
    register(host, push_service)
    register(guest, push_service)
    assert push.deliver(notification(host)) == 2
    assert len(push_service.received()) == 2


@pytest.mark.parametrize("status", [404, 410])
def test_a_subscription_the_push_service_says_is_gone_is_deleted_at_once(
    host, push_service, push_tasks: PushTasks, status
):
    register(host, push_service)
    push_service.answer_next(status)
    before = counted("your_turn", "gone")
    assert push.deliver(notification(host)) == 0
    assert not Device.objects.exists()
    assert push_tasks.sent == []
    assert counted("your_turn", "gone") == before + 1


def test_a_429_is_tried_again_no_sooner_than_its_retry_after(
    host, push_service, push_tasks, monkeypatch
):
    register(host, push_service)
    push_service.answer_next(429, headers={"Retry-After": "1"})
    # A backoff far shorter than the push service's wait: the wait decides.
    monkeypatch.setattr(delivery, "RETRY_BASE_SECONDS", 0.1)
    assert push.deliver(notification(host)) == 0
    (retry,) = push_tasks.sent
    assert retry.name == "players.push_retry"
    assert retry.countdown is not None
    assert retry.countdown >= 1
    assert push_tasks.run_all(wait=True) == [1]
    first, second = push_service.received()
    assert (first.status, second.status) == (429, 201)
    assert second.at - first.at >= 1
    assert second.payload == first.payload
    assert Device.objects.get().last_used_at is not None


def test_a_retry_after_given_as_a_date_is_honoured(host, push_service, push_tasks):
    register(host, push_service)
    later = timezone.now() + dt.timedelta(seconds=90)
    http_date = later.strftime("%a, %d %b %Y %H:%M:%S GMT")
    push_service.answer_next(429, headers={"Retry-After": http_date})
    push.deliver(notification(host))
    (retry,) = push_tasks.sent
    assert 85 <= (retry.countdown or 0) <= 91


def test_a_5xx_is_tried_again_with_growing_delays_until_the_last_try(
    host, push_service, push_tasks, settings
):
    settings.PUSH_MAX_ATTEMPTS = 5
    register(host, push_service)
    push_service.answer_next(500, times=5)
    retried, failed = counted("your_turn", "retried"), counted("your_turn", "failed")
    push.deliver(notification(host))
    waits = []
    while push_tasks.sent:
        (task,) = push_tasks.sent
        waits.append(task.countdown)
        assert task.args[2] == len(waits) + 1  # the try it will be
        push_tasks.run(task)
    assert len(push_service.received()) == 5
    assert len(waits) == 4
    assert waits == sorted(waits)
    for number, wait in enumerate(waits, start=1):
        base = delivery.RETRY_BASE_SECONDS * 2 ** (number - 1)
        assert base <= wait <= base * (1 + delivery.RETRY_JITTER)
    assert counted("your_turn", "retried") == retried + 4
    assert counted("your_turn", "failed") == failed + 1
    assert Device.objects.exists()


def test_no_try_is_made_after_the_notification_expires(host, push_service, push_tasks):
    register(host, push_service)
    push_service.answer_next(503)
    soon = timezone.now() + dt.timedelta(seconds=1)
    push.deliver(notification(host, expires_at=soon.isoformat()))
    assert push_tasks.sent == []
    assert len(push_service.received()) == 1


def test_an_expired_notification_is_not_sent(host, push_service):
    register(host, push_service)
    gone_by = timezone.now() - dt.timedelta(seconds=1)
    assert push.deliver(notification(host, expires_at=gone_by.isoformat())) == 0
    assert push_service.received() == []


def test_another_refusal_fails_for_good_and_keeps_the_device(host, push_service, push_tasks):
    register(host, push_service)
    push_service.answer_next(400)
    before = counted("your_turn", "failed")
    assert push.deliver(notification(host)) == 0
    assert push_tasks.sent == []
    assert Device.objects.exists()
    assert counted("your_turn", "failed") == before + 1


def test_a_push_service_that_does_not_answer_is_tried_again(host, push_service, push_tasks):
    device = register(host, push_service)
    push_service.stop()
    assert push.deliver(notification(host)) == 0
    (retry,) = push_tasks.sent
    assert retry.args[0] == str(device.pk)


def test_a_retry_for_a_device_removed_meanwhile_sends_nothing(host, push_service, push_tasks):
    register(host, push_service)
    push_service.answer_next(500)
    push.deliver(notification(host))
    Device.objects.all().delete()
    push_tasks.run_all()
    assert len(push_service.received()) == 1
