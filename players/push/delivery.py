"""Delivering a notification to a player's devices, in a Celery worker: the player's
settings and rate first, then one request per device; what each push service
answers decides what becomes of the device (kept, deleted, tried again later).
Every outcome is counted (`uno_notifications_total`)."""

from __future__ import annotations

import datetime as dt
import logging
import random
from typing import Any

from django.conf import settings
from django.utils import timezone

from players.models import Device
from players.push import devices, dispatch, fcm, preferences, webpush
from players.push.answers import Answer
from players.push.notification import Notification
from unoservice import metrics
from unoservice.throttling import FixedWindowThrottle

log = logging.getLogger(__name__)

# Each channel's sender and whether it is configured; apns has no sender yet.
CHANNELS: dict[str, Any] = {webpush.CHANNEL: webpush, fcm.CHANNEL: fcm}
NO_CHANNEL = "none"
# The wait before the n-th retry is RETRY_BASE_SECONDS * 2**(n-1), times 1 to
# 1 + RETRY_JITTER at random (so that devices failed together are not retried
# together), and never less than the push service's Retry-After.
RETRY_BASE_SECONDS = 2.0
RETRY_JITTER = 0.5


def enabled() -> bool:
    """Whether any channel is configured: without one, nothing is sent (and the game
    side enqueues nothing)."""
    return any(channel.configured() for channel in CHANNELS.values())


class PushRateThrottle(FixedWindowThrottle):
    """Notifications per player and minute (PUSH_RATE_PER_MINUTE), counted in the
    cache as the API's rate limits are: a burst of games cannot make a phone buzz
    without end."""

    scope = "push"

    def get_rate(self) -> str | None:
        per_minute = settings.PUSH_RATE_PER_MINUTE
        return f"{per_minute}/min" if per_minute > 0 else None

    def allow_player(self, player_id: str) -> bool:
        if self.rate is None:
            return True
        return self.allow_key(self.key_for(player_id))


def count(notification: Notification, channel: str, outcome: str) -> None:
    metrics.NOTIFICATIONS.labels(notification.kind, channel, outcome).inc()


def deliver(notification: Notification) -> int:
    """Send `notification` to each of its player's devices now; returns how many
    accepted it. Nothing when no channel is configured, the notification expired,
    the player turned its kind off, has no device or is over their rate. A device
    whose push service asks to wait (429, 5xx, no answer) is tried again by a task
    of its own (`retry`)."""
    if not enabled():
        return 0
    now = timezone.now()
    if notification.expired(now):
        count(notification, NO_CHANNEL, "failed")
        return 0
    if not preferences.wants(notification.player_id, notification.kind):
        count(notification, NO_CHANNEL, "disabled")
        return 0
    reachable = [
        device
        for device in devices.devices_of(notification.player_id)
        if device.kind in CHANNELS and CHANNELS[device.kind].configured()
    ]
    if not reachable:
        count(notification, NO_CHANNEL, "no_device")
        return 0
    if not PushRateThrottle().allow_player(notification.player_id):
        count(notification, NO_CHANNEL, "rate_limited")
        return 0
    return sum(attempt(device, notification, number=1) for device in reachable)


def retry(device_id: str, notification: Notification, number: int) -> bool:
    """Try `notification` again on one device (the `number`-th try): unless the
    device went meanwhile, or the player turned the kind off. Whether it was
    accepted."""
    device = Device.objects.filter(pk=device_id).first()
    if device is None or not CHANNELS.get(device.kind) or not CHANNELS[device.kind].configured():
        return False
    if not preferences.wants(notification.player_id, notification.kind):
        count(notification, device.kind, "disabled")
        return False
    return attempt(device, notification, number=number)


def attempt(device: Device, notification: Notification, *, number: int) -> bool:
    """One try on one device, and what follows from its answer. Whether it was
    accepted."""
    channel = device.kind
    now = timezone.now()
    answer: Answer = CHANNELS[channel].send(device, notification, now=now)
    if answer.outcome == "sent":
        count(notification, channel, "sent")
        if notification.changed_at is not None:
            since = timezone.now() - dt.datetime.fromisoformat(notification.changed_at)
            metrics.NOTIFICATION_DELIVERY_SECONDS.labels(channel).observe(
                max(since.total_seconds(), 0.0)
            )
        devices.device_used(device_id=device.pk)
        return True
    if answer.outcome == "gone":
        count(notification, channel, "gone")
        log.info("push: %s device %s is gone (%s); deleted", channel, device.pk, answer.status)
        devices.device_gone(device_id=device.pk)
        return False
    if answer.outcome == "retry":
        wait = retry_delay(number, answer.retry_after)
        expires = notification.expires_at
        next_try = now + dt.timedelta(seconds=wait)
        late = expires is not None and next_try >= dt.datetime.fromisoformat(expires)
        if number < settings.PUSH_MAX_ATTEMPTS and not late:
            count(notification, channel, "retried")
            dispatch.send(
                dispatch.RETRY,
                [str(device.pk), notification.to_json(), number + 1],
                countdown=wait,
            )
            return False
        why = "it would expire first" if late else f"after {number} tries"
        log.warning(
            "push: gave up on %s device %s %s (%s %s)",
            channel,
            device.pk,
            why,
            answer.status,
            answer.detail,
        )
    else:
        log.warning(
            "push: %s refused for device %s: %s %s",
            channel,
            device.pk,
            answer.status,
            answer.detail,
        )
    count(notification, channel, "failed")
    return False


def retry_delay(number: int, retry_after: float | None) -> float:
    """Seconds before the try after the `number`-th."""
    backoff = RETRY_BASE_SECONDS * 2 ** (number - 1) * (1 + RETRY_JITTER * random.random())
    return float(max(backoff, retry_after or 0.0))


def deliver_on_commit(notification: Notification) -> None:
    """Deliver `notification` from a worker once the current transaction commits."""
    dispatch.send_on_commit(dispatch.DELIVER, [notification.to_json()])
