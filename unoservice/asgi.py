"""The ASGI application: the whole HTTP API on one port.

Game streams, lobby streams and long polls that wait are served here as plain ASGI
(`games.live.sse`, `games.live.lobby`): waiting costs a coroutine, not a thread. A
game's view read with a bearer token, the API's most frequent request, is answered
here too, on an API thread but without Django's request (`games.live.reads`).
Every other request goes to Django's WSGI application on a pool of threads
(`unoservice.wsgi_threads`), which serves the synchronous REST API exactly as a
WSGI server would. Quick-match requests have a pool of their own: they wait for
each other by design (`games.combining` serves those that arrive together as one
batch), and the more of them wait together, the fewer batches a crowd takes; in
their own pool they never hold up a move. The balancer's liveness check (`/livez`,
`unoservice.liveness`) is answered here too, never queued behind a thread.

    python -m unoservice.serve --host 0.0.0.0 --port 8000 --workers 2
"""

from __future__ import annotations

import gc
import logging
import os
import re
from collections.abc import Awaitable

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "unoservice.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.http.request import split_domain_port, validate_host  # noqa: E402

from games.live import hub, lobby, reads, sse  # noqa: E402
from unoservice import cors, liveness, metrics, shedding  # noqa: E402
from unoservice.api_errors import send_error  # noqa: E402
from unoservice.asgi_types import Message, Receive, Scope, Send  # noqa: E402
from unoservice.client_address import group_in, meta_of  # noqa: E402
from unoservice.errors import (  # noqa: E402
    InternalError,
    InvalidRequest,
    PayloadTooLarge,
    RateLimited,
)
from unoservice.observability import ObservedASGI, name_exchange  # noqa: E402
from unoservice.throttling import AnonymousRateThrottle, HealthRateThrottle  # noqa: E402
from unoservice.wsgi_threads import ThreadedWSGI  # noqa: E402

logger = logging.getLogger(__name__)

# Threads that run the REST API in each process (UNO_API_THREADS, set by the server
# command): enough to keep both cores busy while some requests wait for PostgreSQL.
API_THREADS = int(os.environ.get("UNO_API_THREADS", "4"))
# Threads that serve quick-match requests in each process (UNO_MATCH_THREADS). Each
# keeps a database connection: 2 processes x 16 stay well under PostgreSQL's default
# of 100 connections, beside the API threads, the hubs and the worker.
MATCH_THREADS = int(os.environ.get("UNO_MATCH_THREADS", "16"))

STREAM_PATH = re.compile(r"^/api/v1/games/([^/]+)/stream$")
EVENTS_PATH = re.compile(r"^/api/v1/games/([^/]+)/events$")
LOBBY_STREAM_PATH = "/api/v1/players/me/stream"
MATCHMAKING_PATH = "/api/v1/matchmaking"
HEALTH_PATH = "/healthz"

django_app = get_wsgi_application()
api = ThreadedWSGI(django_app, API_THREADS)
matchmaking = ThreadedWSGI(django_app, MATCH_THREADS, name="match")

# Everything loaded so far lives as long as the process: keep it out of the garbage
# collector's full passes, which otherwise pause a worker holding thousands of
# streams for longer at each pass.
gc.freeze()


# The routes of what is served here rather than by Django, as Django names its own.
STREAM_ROUTE = "api/v1/games/<str:game_id>/stream"
# A long poll's time is mostly its wait: a route of its own keeps the events' latency
# (answered at once) apart from it.
LONG_POLL_ROUTE = "api/v1/games/<str:game_id>/events?wait"
LOBBY_STREAM_ROUTE = "api/v1/players/me/stream"
# Every preflight, whatever its path: answered here, before any route is looked up.
PREFLIGHT_ROUTE = "preflight"


async def _application(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    if scope["type"] == "http" and scope["path"] == liveness.LIVENESS_PATH:
        name_exchange(scope, route=liveness.ROUTE)
        if not _host_allowed(scope):
            await send_error(send, InvalidRequest(WRONG_HOST))
            return
        await liveness.answer(scope, send, api)
        return
    if scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
        path = scope["path"]
        if _served_here(path) and not _host_allowed(scope):
            # What Django's own check answers for its routes.
            await send_error(send, InvalidRequest(WRONG_HOST))
            return
        found = STREAM_PATH.match(path)
        if found is not None and scope["method"] == "GET":
            name_exchange(scope, route=STREAM_ROUTE, game_id=found.group(1))
            await sse.stream(scope, receive, send, found.group(1))
            return
        if path == LOBBY_STREAM_PATH and scope["method"] == "GET":
            name_exchange(scope, route=LOBBY_STREAM_ROUTE)
            await lobby.stream(scope, receive, send)
            return
        found = EVENTS_PATH.match(path)
        if found is not None and sse.wants_to_wait(scope):
            name_exchange(scope, route=LONG_POLL_ROUTE, game_id=found.group(1))
            await sse.long_poll(scope, receive, send, found.group(1), api)
            return
        game_id = reads.game_id_read(scope)
        if game_id is not None:
            await reads.serve(scope, receive, send, game_id, api)
            return
    if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] == MATCHMAKING_PATH:
        await matchmaking(scope, receive, send)
        return
    await api(scope, receive, send)


NOSNIFF = (b"x-content-type-options", b"nosniff")
WRONG_HOST = "the Host header names no host served here"


def _served_here(path: str) -> bool:
    """Whether `path` may be one of the routes served outside Django."""
    return path.startswith(("/api/v1/games/", LOBBY_STREAM_PATH))


def _host_allowed(scope: Scope) -> bool:
    """Django's ALLOWED_HOSTS check, for the routes that Django does not serve."""
    host = next((value for name, value in scope["headers"] if name == b"host"), b"")
    domain, _port = split_domain_port(host.decode("latin1"))
    allowed = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not allowed:
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    return bool(domain) and validate_host(domain, allowed)


def _declared_length(scope: Scope) -> int:
    for name, value in scope["headers"]:
        if name == b"content-length":
            # The server's parser has checked it is a number (or refused the request).
            return int(value) if value.isdigit() and len(value) <= 18 else 1 << 62
    return 0


def _refused_again(scope: Scope) -> int | None:
    """The seconds left of a refusal this process already gave to a request like this
    one from the same address (`unoservice.shedding`), or None."""
    path = scope["path"]
    if path != HEALTH_PATH and not path.startswith("/api/"):
        return None
    address = group_in(meta_of(scope))
    if path == HEALTH_PATH:
        return shedding.addresses.seconds_left(HealthRateThrottle.key_for(address))
    if shedding.header(scope, b"cookie") is not None or b"ticket=" in scope["query_string"]:
        return None
    credentials = shedding.header(scope, b"authorization")
    if credentials is None:
        return shedding.addresses.seconds_left(AnonymousRateThrottle.key_for(address))
    return shedding.bad_credentials.seconds_left(f"{address} {credentials.decode('latin1')}")


async def _guarded(scope: Scope, receive: Receive, send: Send) -> None:
    """The application, behind the one body limit, with every answer marked nosniff
    (Django's SecurityMiddleware marks its own; the streams' too) and carrying the
    CORS headers for its origin (Django's middleware adds its own; the streams' and
    this layer's too), and any unexpected error answered in the API's shape and
    logged once. A CORS preflight is answered first, before the refusals below: it
    carries no credentials, and a page's player must not lose the API to a flood
    from their address."""
    if scope["type"] != "http":
        await _application(scope, receive, send)
        return
    started = False

    def marked_send(message: Message) -> Awaitable[None]:  # (see `observed_send`)
        nonlocal started
        if message["type"] == "http.response.start":
            started = True
            headers = cors.with_cors(scope, list(message.get("headers", ())))
            if not any(name.lower() == NOSNIFF[0] for name, _ in headers):
                headers = [*headers, NOSNIFF]
            message = {**message, "headers": headers}
        return send(message)

    preflight = cors.preflight(scope)
    if preflight is not None:
        name_exchange(scope, route=PREFLIGHT_ROUTE)
        if not _host_allowed(scope):
            await send_error(marked_send, InvalidRequest(WRONG_HOST))
            return
        status, headers = preflight
        await marked_send({"type": "http.response.start", "status": status, "headers": headers})
        await marked_send({"type": "http.response.body", "body": b""})
        return
    refused_for = _refused_again(scope)
    if refused_for is not None:
        limited = RateLimited("too many requests", details={"retry_after": refused_for})
        await send_error(marked_send, limited)
        return
    limit = int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    if _declared_length(scope) > limit:
        metrics.HTTP_REFUSED.labels("payload_too_large").inc()
        error = PayloadTooLarge(f"the body is larger than {limit} bytes")
        await send_error(marked_send, error, close=True)  # before a byte of the body is read
        return
    try:
        await _application(scope, receive, marked_send)
    except Exception:
        logger.exception("unhandled error in %s %s", scope["method"], scope["path"])
        if not started:
            await send_error(marked_send, InternalError(), close=True)
        else:  # a stream: ended, and its client reconnects
            await send({"type": "http.response.body", "body": b""})


# Every request observed: its line, its metrics, its request id (unoservice.observability).
application = ObservedASGI(_guarded)


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            try:
                await hub.start_hub()
            except Exception as error:
                await send({"type": "lifespan.startup.failed", "message": str(error)})
                return
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await hub.stop_hub()
            await api.stop()
            await matchmaking.stop()
            await send({"type": "lifespan.shutdown.complete"})
            return
