"""The ASGI application: the whole HTTP API on one port.

Game streams, lobby streams and long polls that wait are served here as plain ASGI
(`games.live.sse`, `games.live.lobby`): waiting costs a coroutine, not a thread.
Every other request goes to Django's WSGI application on a pool of threads
(`unoservice.wsgi_threads`), which serves the synchronous REST API exactly as a
WSGI server would. Quick-match requests have a pool of their own: they wait for
each other by design (`games.combining` serves those that arrive together as one
batch), and the more of them wait together, the fewer batches a crowd takes; in
their own pool they never hold up a move.

    python -m unoservice.serve --host 0.0.0.0 --port 8000 --workers 2
"""

from __future__ import annotations

import gc
import os
import re
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "unoservice.settings")

import django

django.setup()

from django.core.wsgi import get_wsgi_application  # noqa: E402

from games.live import hub, lobby, sse  # noqa: E402
from unoservice.observability import ObservedASGI, name_exchange  # noqa: E402
from unoservice.wsgi_threads import ThreadedWSGI  # noqa: E402

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


async def _application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    if scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
        path = scope["path"]
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
    if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] == MATCHMAKING_PATH:
        await matchmaking(scope, receive, send)
        return
    await api(scope, receive, send)


# Every request observed: its line, its metrics, its request id (unoservice.observability).
application = ObservedASGI(_application)


async def _lifespan(receive: Any, send: Any) -> None:
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
