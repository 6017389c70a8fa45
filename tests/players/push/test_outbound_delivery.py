"""Push delivery through unoservice.outbound: a push host that resolves inside the
network is refused when sending, before any connection, as a failure that is not
tried again and leaves the device list as it was; an answer that redirects, drips
or floods is given up within the deadline and the cap, and tried again within
PUSH_MAX_ATTEMPTS only."""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest

from players import push
from players.models import Device
from players.push import devices
from players.push.devices import Registration
from tests.hostile_service import HostileService
from tests.players.push.test_webpush_delivery import counted, notification
from tests.push_service import PushService, PushTasks, Receiver

DEADLINE = 2.0


def register_at(persona: Any, endpoint: str) -> Device:
    keys = Receiver().subscription(endpoint)["keys"]
    device, _ = devices.device_register(
        player_id=persona.player.pk,
        registration=Registration.webpush(
            endpoint=endpoint, p256dh=keys["p256dh"], auth=keys["auth"]
        ),
    )
    return device


def test_a_push_host_resolving_to_loopback_is_refused_before_any_connection_and_says_nothing(
    host, push_service: PushService, settings, monkeypatch, push_tasks: PushTasks
):
    settings.PUSH_ALLOW_HTTP = False
    device = register_at(host, "https://fcm.googleapis.com/fcm/send/abc")
    connects: list[object] = []

    def resolves_to_loopback(name: str, port: int, *args: Any, **kwargs: Any) -> Any:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

    monkeypatch.setattr(socket, "getaddrinfo", resolves_to_loopback)
    monkeypatch.setattr(socket.socket, "connect", lambda self, addr: connects.append(addr))
    failed = counted("your_turn", "failed")
    assert push.deliver(notification(host)) == 0
    assert connects == []
    assert push_tasks.sent == []  # a refusal is not tried again
    assert counted("your_turn", "failed") == failed + 1
    # The device list shows the device as before: kept, never used.
    listed = host.get("/players/me/devices").json()
    assert [(d["id"], d["last_used_at"]) for d in listed] == [(str(device.pk), None)]


@pytest.mark.parametrize("path", ["redirect", "drip", "huge"])
def test_a_hostile_answer_is_given_up_within_the_deadline_and_tried_again_only_so_often(
    host, push_service: PushService, settings, push_tasks: PushTasks, path: str
):
    settings.PUSH_TIMEOUT_SECONDS = DEADLINE
    settings.PUSH_MAX_ATTEMPTS = 2
    hostile = HostileService()
    try:
        device = register_at(host, f"{hostile.origin}/push/{path}")
        start = time.monotonic()
        push.deliver(notification(host))
        push_tasks.run_all()
        took = time.monotonic() - start
    finally:
        hostile.stop()
    assert hostile.hits["target"] == 0
    assert hostile.hits[path] == (1 if path == "redirect" else 2)
    assert took < 2 * (DEADLINE + 2)
    assert hostile.sent_bytes < 64 * 1024 * 1024
    device.refresh_from_db()
    assert device.last_used_at is None
