"""`uno_celery_queue_length`: the broker's queue, read when ``/metrics`` is scraped.

Apart from `unoservice.metrics`, which the Celery application loads: this module
asks that application for a connection."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from kombu.exceptions import ChannelError
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from unoservice.celery import app

log = logging.getLogger(__name__)


class QueueCollector(Collector):
    """`uno_celery_queue_length{queue}`: tasks waiting in the broker for a worker,
    asked of the broker when scraped (nothing is reported when it does not answer)."""

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily(
            "uno_celery_queue_length",
            "Tasks waiting in the broker for a worker (not those a worker holds for"
            " later: countdowns and ETAs).",
            labels=["queue"],
        )
        try:
            for queue in (settings.CELERY_TASK_DEFAULT_QUEUE, settings.PUSH_QUEUE):
                family.add_metric([queue], queue_length(queue))
        except Exception:
            log.warning("metrics: the broker did not answer", exc_info=True)
            return
        yield family


def queue_length(queue: str) -> int:
    with app.connection_for_read() as connection:
        connection.ensure_connection(max_retries=1, timeout=2)
        channel: Any = connection.default_channel  # kombu's virtual channel
        try:
            declared = channel.queue_declare(queue=queue, passive=True)
        except ChannelError:
            return 0  # nothing was ever sent to it
        return int(declared.message_count)
