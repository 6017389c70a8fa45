"""The push tasks: a notification delivered to a player's devices, and one device's
retry. Each carries the notification as JSON."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from players.push import delivery, dispatch
from players.push.notification import Notification


@shared_task(name=dispatch.DELIVER)
def push_deliver(notification: dict[str, Any]) -> int:
    """Deliver the notification to its player's devices; how many accepted it."""
    return delivery.deliver(Notification.from_json(notification))


@shared_task(name=dispatch.RETRY)
def push_retry(device_id: str, notification: dict[str, Any], attempt: int) -> int:
    """Try the notification again on one device (its `attempt`-th try); 1 when it
    was accepted."""
    return int(delivery.retry(device_id, Notification.from_json(notification), attempt))
