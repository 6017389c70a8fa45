"""``GET /livez``: is this process alive? For the balancer's health checks.

It asks nothing of the database or the broker: they are shared by every node, and a
check that failed with them would take every node out of the balancer at once, so
that clients would get the balancer's own 503 instead of each node's, and the
nodes would come back only after their checks passed again. A node whose database
is down still answers every request itself (503 ``service_unavailable`` with
``Retry-After``), and serves again the moment the database is back.

Alive means: the event loop runs (this answer is written by it, outside Django and
its threads, so a probe never queues behind requests), and the REST API's threads
are not stuck, every one busy with none of them finishing for ``STUCK_SECONDS``.
Stuck: 503 ``service_unavailable``; never any other error. ``/healthz`` stays the
readiness check, for monitoring (unoservice.health)."""

from __future__ import annotations

import logging
from typing import Protocol

from unoservice.api_errors import send_error
from unoservice.asgi_types import Scope, Send
from unoservice.errors import MethodNotAllowed, ServiceUnavailable

logger = logging.getLogger(__name__)

LIVENESS_PATH = "/livez"
ROUTE = "livez"
# As long as the balancer waits for a node's answer (`timeout server` in
# deploy/haproxy.cfg): a request slower than that was given up on anyway.
STUCK_SECONDS = 60.0
ALIVE = b'{"status":"ok"}'
HEADERS = [
    (b"content-type", b"application/json"),
    (b"cache-control", b"no-store"),
]


class Pool(Protocol):
    """What a pool of request threads tells of itself (`unoservice.wsgi_threads`)."""

    name: str

    def stuck_for(self) -> float: ...


def stuck(pool: Pool) -> ServiceUnavailable | None:
    """Why `pool` counts as stuck, or None."""
    seconds = pool.stuck_for()
    if seconds < STUCK_SECONDS:
        return None
    return ServiceUnavailable(
        f"every {pool.name} thread has been busy for {seconds:.0f} s with none finishing",
        details={"busy_seconds": round(seconds)},
        retry_after=1,
    )


async def answer(scope: Scope, send: Send, pool: Pool) -> None:
    """Answer a request for ``/livez``: 200 ``{"status": "ok"}``, 503 when `pool` is
    stuck, 405 to any method but GET and HEAD."""
    if scope["method"] not in ("GET", "HEAD"):
        error = MethodNotAllowed(f"{scope['method']} is not allowed on {LIVENESS_PATH}")
        await send_error(send, error, headers={"Allow": "GET, HEAD"})
        return
    try:
        refused = stuck(pool)
    except Exception:  # a liveness check that fails to judge still saw the loop run
        logger.exception("liveness check failed to judge the request threads")
        refused = None
    if refused is not None:
        await send_error(send, refused)
        return
    body = b"" if scope["method"] == "HEAD" else ALIVE
    headers = [*HEADERS, (b"content-length", str(len(ALIVE)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})
