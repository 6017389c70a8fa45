"""``GET /healthz``: can this process reach its database and its Celery broker, are a
worker and beat running, and is each queue's work being done?

The database and the broker are this process's own needs: without either it cannot
serve, and the answer is 503. A worker that does not answer a ping, or beat whose
last sweep is too old, leaves the API serving with bots and turn timers late: the
answer is 200 with ``"status": "degraded"``. So does a read replica out of reach
(only reported when one is configured): its reads go to the primary meanwhile.
A worker answering a ping says nothing of the queue a stuck or absent worker should
consume: beat sends each queue (SERVICE_QUEUES) a heartbeat task every
QUEUE_HEARTBEAT_SECONDS, and a queue whose last one ran longer ago than
`QUEUE_STALE_HEARTBEATS` intervals is ``down`` (degraded too).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.utils.module_loading import import_string
from django.views.decorators.cache import never_cache
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from unoservice import replica
from unoservice.celery import app as celery_app
from unoservice.errors import ServiceUnavailable, answer
from unoservice.schema import error_object
from unoservice.throttling import HealthRateThrottle

logger = logging.getLogger(__name__)

BROKER_TIMEOUT_SECONDS = 2
# How long a process gives its last answer again.
ANSWER_SECONDS = 1.0
# A ping is broadcast to every worker: answer from the cache for a few seconds, so
# that load balancers polling every process do not keep the workers busy answering.
WORKER_PING_TIMEOUT_SECONDS = 1.0
WORKER_ANSWER_CACHE_SECONDS = 5
WORKER_CACHE_KEY = "healthz:worker"
# Beat sends the sweep every TURN_SWEEP_SECONDS; one dropped because the workers
# were busy (it expires after one interval) is no outage, several in a row are.
BEAT_STALE_SWEEPS = 5
# A queue's heartbeat waits behind the tasks before it (a push takes up to
# PUSH_TIMEOUT_SECONDS): several missed in a row mean nobody consumes it.
QUEUE_STALE_HEARTBEATS = 5

OK, ERROR, DOWN, UNKNOWN = "ok", "error", "down", "unknown"
DEGRADED, UNAVAILABLE = "degraded", "unavailable"
# The values of the answer's fields (named in the OpenAPI schema by the settings).
STATUSES = (OK, DEGRADED, UNAVAILABLE)
CHECK_STATES = (OK, ERROR)  # database, broker
PROCESS_STATES = (OK, DOWN, UNKNOWN)  # worker, beat


def check_database() -> None:
    """Run ``SELECT 1`` on the default connection; raise when it fails."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def check_broker(url: str | None = None) -> None:
    """Open a connection to the Celery broker (``url`` or the configured one); raise
    when it cannot be had within ``BROKER_TIMEOUT_SECONDS``."""
    conn = celery_app.connection_for_write(
        url,
        connect_timeout=BROKER_TIMEOUT_SECONDS,
        # Redis: bound the connect and the first command (a PING), not only the connect.
        transport_options={
            "socket_connect_timeout": BROKER_TIMEOUT_SECONDS,
            "socket_timeout": BROKER_TIMEOUT_SECONDS,
        },
    )
    try:
        conn.ensure_connection(
            max_retries=1,
            interval_start=0,
            interval_step=0,
            timeout=BROKER_TIMEOUT_SECONDS,
        )
    finally:
        conn.release()


def worker_answers() -> bool:
    """Whether a Celery worker answers a ping within ``WORKER_PING_TIMEOUT_SECONDS``
    (the first answer ends the wait).

    The ping waits for answers on a connection of its own, closed after: a pooled
    one would go back to the pool still marked as waiting (Redis's BRPOP), and a
    process forked later (a pool of processes) would hang at its start closing it."""
    with celery_app.connection_for_write() as connection:
        answers = celery_app.control.ping(
            timeout=WORKER_PING_TIMEOUT_SECONDS, limit=1, connection=connection
        )
    return bool(answers)


def beat_stale_after() -> float:
    """Seconds without a sweep after which beat counts as down."""
    return BEAT_STALE_SWEEPS * float(settings.TURN_SWEEP_SECONDS)


def _state(name: str, check: Callable[[], None]) -> str:
    try:
        check()
    except Exception:
        logger.exception("health check failed: %s", name)
        return ERROR
    return OK


def worker_state() -> str:
    """``ok`` when a worker answered a ping, ``down`` when none did, from the cache
    when asked in the last ``WORKER_ANSWER_CACHE_SECONDS``."""
    try:
        cached = cache.get(WORKER_CACHE_KEY)
    except Exception:  # the health check does without a cache rather than fail
        logger.warning("health check: the cache cannot be read", exc_info=True)
        cached = None
    if cached is not None:
        return str(cached)
    try:
        state = OK if worker_answers() else DOWN
    except Exception:
        logger.exception("health check failed: worker")
        state = DOWN
    try:
        cache.set(WORKER_CACHE_KEY, state, WORKER_ANSWER_CACHE_SECONDS)
    except Exception:
        logger.warning("health check: the cache cannot be written", exc_info=True)
    return state


def beat_state() -> tuple[str, float | None]:
    """``ok`` when the last sweep is recent, else ``down``; and its age in seconds
    (None if there never was one)."""
    last_sweep_age = import_string(settings.HEALTH_LAST_SWEEP_AGE)
    age: float | None = last_sweep_age(timezone.now())
    if age is None:
        return DOWN, None
    return (OK if age <= beat_stale_after() else DOWN), round(age, 1)


def queue_stale_after() -> float:
    """Seconds without a queue's heartbeat after which it counts as not consumed."""
    return QUEUE_STALE_HEARTBEATS * float(settings.QUEUE_HEARTBEAT_SECONDS)


def queue_states() -> dict[str, str]:
    """Each queue ``ok`` when its last heartbeat ran recently, else ``down``."""
    ages = import_string(settings.HEALTH_QUEUE_AGES)(timezone.now())
    limit = queue_stale_after()
    return {
        queue: OK if ages.get(queue, limit + 1) <= limit else DOWN
        for queue in settings.SERVICE_QUEUES
    }


class _Answer:
    """The last answer of this process, given again for `ANSWER_SECONDS`: probes and
    floods alike cost one round of checks (a broker connection among them) a second,
    however many ask, and those who ask while it runs wait for its answer."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.answer: tuple[int, dict[str, Any]] | None = None
        self.expires = 0.0

    def get(self) -> tuple[int, dict[str, Any]]:
        with self.lock:
            if self.answer is None or time.time() >= self.expires:
                self.answer = checked()
                self.expires = time.time() + ANSWER_SECONDS
            return self.answer

    def forget(self) -> None:
        with self.lock:
            self.answer = None


last_answer = _Answer()


def health() -> tuple[int, dict[str, Any]]:
    """The status code and body of ``/healthz``, from this process's checks of the
    last `ANSWER_SECONDS`."""
    return last_answer.get()


def checked() -> tuple[int, dict[str, Any]]:
    """The status code and body of ``/healthz``, checked now."""
    body: dict[str, Any] = {
        "database": _state("database", check_database),
        "broker": _state("broker", check_broker),
    }
    # A ping goes through the broker and the sweeps are read from the database: with
    # either down, the worker or beat cannot be told.
    body["worker"] = worker_state() if body["broker"] == OK else UNKNOWN
    body["beat"], body["last_sweep_age_seconds"] = UNKNOWN, None
    body["queues"] = dict.fromkeys(settings.SERVICE_QUEUES, UNKNOWN)
    if body["database"] == OK:
        try:
            body["beat"], body["last_sweep_age_seconds"] = beat_state()
            body["queues"] = queue_states()
        except Exception:
            logger.exception("health check failed: beat")
    if replica.configured():
        body["replica"] = _state("replica", replica.check)
    failing = [name for name in ("database", "broker") if body[name] != OK]
    if failing:
        unavailable = answer(
            ServiceUnavailable(
                f"Unavailable: {', '.join(failing)}.",
                details={"database": body["database"], "broker": body["broker"]},
            )
        )
        return unavailable.status, {"status": UNAVAILABLE, **body, **unavailable.body}
    late = (
        body["worker"] != OK
        or body["beat"] != OK
        or body.get("replica", OK) != OK
        or any(state != OK for state in body["queues"].values())
    )
    return 200, {"status": DEGRADED if late else OK, **body}


_WORKER_HELP = (
    "ok: a worker answered a ping within 1 s (the answer is kept 5 s); down: none did "
    "(bots and turn timeouts wait); unknown: the broker is down, so no ping was sent"
)
_BEAT_HELP = (
    "ok: the last sweep of overdue turns ran within 5 sweep intervals "
    "(TURN_SWEEP_SECONDS, 2 s by default); down: it is older, or there never was one; "
    "unknown: the database is down"
)


_QUEUES_HELP = (
    "each queue's state by name (celery: bots, timers, sweeps; push: notifications): "
    "ok: a worker ran its heartbeat (beat sends one every QUEUE_HEARTBEAT_SECONDS, 5 s "
    "by default) within 5 intervals; down: longer ago or never (no worker consumes it, "
    "or its workers are stuck); unknown: the database is down"
)


class HealthOut(serializers.Serializer[Any]):
    status = serializers.ChoiceField(
        choices=STATUSES,
        help_text="ok: all is well; degraded (200): the API serves, but the worker, "
        "beat, a queue or the read replica is down; unavailable (503): the database or the "
        "broker is down",
    )
    database = serializers.ChoiceField(choices=CHECK_STATES)
    broker = serializers.ChoiceField(choices=CHECK_STATES)
    worker = serializers.ChoiceField(choices=PROCESS_STATES, help_text=_WORKER_HELP)
    beat = serializers.ChoiceField(choices=PROCESS_STATES, help_text=_BEAT_HELP)
    queues = serializers.DictField(
        child=serializers.ChoiceField(choices=PROCESS_STATES), help_text=_QUEUES_HELP
    )
    replica = serializers.ChoiceField(
        choices=CHECK_STATES,
        required=False,
        help_text="only with a read replica configured: error (200, degraded) while it "
        "cannot be reached, its reads served by the primary",
    )
    last_sweep_age_seconds = serializers.FloatField(
        allow_null=True,
        min_value=0,
        help_text="seconds since the last sweep ran, to a tenth; null if none ever ran "
        "or the database is down",
    )


class HealthUnavailableOut(HealthOut):
    error = error_object(503)


@method_decorator(never_cache, name="dispatch")
class HealthView(APIView):
    """For load balancers and probes: no token, a rate limit per address of its own,
    GET and HEAD only (any other method is a 405 in the API's error shape)."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    throttle_classes = [HealthRateThrottle]
    http_method_names = ["get", "head"]

    @extend_schema(
        operation_id="healthz",
        summary="Health of the service",
        description="For load balancers and probes, outside /api/v1: no token and no "
        "rate limit; GET and HEAD only. The database and the broker are needed to "
        "serve: either down is a 503 naming the part that fails. A worker or beat "
        "down, or a queue whose tasks nobody runs, leaves the API serving, with bots, "
        "turn timers or notifications late: 200 with `status` `degraded`; so does a "
        "read replica down (its reads go to the primary).",
        tags=["health"],
        auth=[],
        responses={
            200: OpenApiResponse(
                response=HealthOut,
                description="ok, or degraded: the worker, beat, a queue or the read replica "
                "is down",
            ),
            503: OpenApiResponse(
                response=HealthUnavailableOut,
                description="service_unavailable: the database or the broker is down",
            ),
        },
    )
    def get(self, request: Request) -> Response:
        status, body = health()
        return Response(body, status=status)
