"""The push tasks: a notification delivered to a player's devices, and one device's
retry. Each carries the notification as JSON, runs on the push queue (its own
worker), and is stopped by Celery once it runs past what its requests may take:
each device's request (and FCM's token renewal) within PUSH_TIMEOUT_SECONDS."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings

from players.push import delivery, devices, dispatch
from players.push.notification import Notification

# Seconds past the requests' own bounds for the database and the rest; the hard
# limit (the pool process killed) comes that much after the soft one (an exception
# in the task).
SLACK_SECONDS = 10


def soft_limit(devices: int) -> int:
    """The soft limit of a task sending to up to `devices` devices, each a token
    renewal and a send at most."""
    return int(devices * 2 * settings.PUSH_TIMEOUT_SECONDS) + SLACK_SECONDS


DELIVER_LIMIT = soft_limit(devices.MAX_DEVICES)
RETRY_LIMIT = soft_limit(1)


@shared_task(
    name=dispatch.DELIVER,
    soft_time_limit=DELIVER_LIMIT,
    time_limit=DELIVER_LIMIT + SLACK_SECONDS,
)
def push_deliver(notification: dict[str, Any]) -> int:
    """Deliver the notification to its player's devices; how many accepted it."""
    return delivery.deliver(Notification.from_json(notification))


@shared_task(
    name=dispatch.RETRY, soft_time_limit=RETRY_LIMIT, time_limit=RETRY_LIMIT + SLACK_SECONDS
)
def push_retry(device_id: str, notification: dict[str, Any], attempt: int) -> int:
    """Try the notification again on one device (its `attempt`-th try); 1 when it
    was accepted."""
    return int(delivery.retry(device_id, Notification.from_json(notification), attempt))
