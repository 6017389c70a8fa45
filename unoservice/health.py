"""``GET /healthz``: can this process reach its database and its Celery broker?"""

from __future__ import annotations

import logging

from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt

from unoservice.api_errors import error_body
from unoservice.celery import app as celery_app

logger = logging.getLogger(__name__)

BROKER_TIMEOUT_SECONDS = 2.0
ALLOWED_METHODS = ("GET", "HEAD")


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


# Exempt from CSRF so that a POST meets the 405 below, in the API's error shape,
# rather than Django's HTML CSRF page: the view reads and changes nothing.
@csrf_exempt
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """200 ``{"database": "ok", "broker": "ok"}``; 503 with the failing part as
    ``"error"`` and the API's error object beside it."""
    if request.method not in ALLOWED_METHODS:
        # require_safe would answer an empty 405, outside the API's error shape.
        refused = JsonResponse(
            error_body("method_not_allowed", "only GET and HEAD are allowed here"), status=405
        )
        refused["Allow"] = ", ".join(ALLOWED_METHODS)
        return refused
    status: dict[str, str] = {}
    for name, check in (("database", check_database), ("broker", check_broker)):
        try:
            check()
        except Exception:
            logger.exception("health check failed: %s", name)
            status[name] = "error"
        else:
            status[name] = "ok"
    failing = [name for name, state in status.items() if state != "ok"]
    if not failing:
        return JsonResponse(status)
    error = {
        "code": "service_unavailable",
        "message": f"Unavailable: {', '.join(failing)}.",
        "details": dict(status),
    }
    return JsonResponse({**status, "error": error}, status=503)
