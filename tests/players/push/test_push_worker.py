"""Push notifications on a real Celery worker, over Redis and PostgreSQL: a
notification enqueued when its change commits reaches the local push service, a
429 with Retry-After is tried again by the worker no sooner than it says, and a
410 deletes the subscription. The waits are bounds on a stall, never measures of
speed."""

from __future__ import annotations

import uuid

from django.db import transaction
from django.utils import timezone

from players import push
from players.models import Device
from tests.workers import WITH_A_WORKER

pytestmark = WITH_A_WORKER


def notify(persona, kind: str = "your_turn") -> push.Notification:
    game_id = str(uuid.uuid4())
    note = push.Notification(
        kind=kind,
        player_id=str(persona.player.pk),
        game_id=game_id,
        text="Ann played a Wild Draw Four: your turn",
        seat=1,
        path=f"/play/games/{game_id}",
        changed_at=timezone.now().isoformat(),
    )
    with transaction.atomic():
        push.deliver_on_commit(note)
    return note


def test_the_worker_delivers_retries_after_the_wait_and_drops_a_gone_subscription(
    host, push_service, celery_processes
):
    procs = celery_processes(0.0)
    assert host.post("/players/me/devices", push_service.device_body()).status_code == 201

    sent = notify(host)
    (request,) = push_service.wait_for(1, seconds=30)
    assert request.status == 201, request.refusal
    assert request.payload == sent.payload()

    push_service.answer_next(429, headers={"Retry-After": "1"})
    notify(host)
    asked, again = push_service.wait_for(3, seconds=30)[1:]
    assert (asked.status, again.status) == (429, 201)
    assert again.at - asked.at >= 1

    push_service.answer_next(410)
    notify(host, "match_found")
    push_service.wait_for(4, seconds=30)
    procs.wait_until(lambda: not Device.objects.exists(), "the device was not deleted", 30)
