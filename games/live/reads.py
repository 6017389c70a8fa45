"""A game's view read (``GET /api/v1/games/{id}`` with a bearer token) answered beside
Django rather than through it.

It is the API's most frequent request: a client without a stream reads the view
before nearly every move. Through Django it cost more server time than the move's
own database work (the WSGI request, thirteen middleware, DRF's request, the
connection's health check, a round trip of its own): here it is the token, the
player's rate, the game and its presence, read on one of the API's threads, and
the view rendered by the API's renderer. The answer is the API's, byte for byte, with
the headers Django's middleware gives it (`unoservice.security.django_headers`);
CORS, nosniff, the request id, the request's line and metrics are the ASGI layer's,
as for every answer given outside Django.

Only what it can decide alone is taken here; Django answers the rest as before:
a request with a body, without one Authorization header, or whose token is refused
(the 401s and their counting are DRF's), and a plain-HTTP request that Django
would redirect to HTTPS. Errors found once the request is counted (404, the
invite-code checks, 429) are the API's own errors (`unoservice.errors.answer`).
"""

from __future__ import annotations

import logging
import re
from typing import Any

from django.core.exceptions import SuspiciousOperation
from django.db import connection
from django.http import QueryDict

from games import presenters, reading, selectors
from players.auth import bearer_player
from unoservice import security
from unoservice.asgi_types import Receive, Scope, Send
from unoservice.client_address import meta_of
from unoservice.errors import ErrorAnswer, RateLimited, ServiceError, answer
from unoservice.observability import name_exchange
from unoservice.parsers import JSONRenderer
from unoservice.thread_connections import reopening
from unoservice.throttling import player_request_counted
from unoservice.wsgi_threads import ThreadedWSGI

log = logging.getLogger(__name__)

# `games/join` is no game: its GET reads whose game an invite code leads to (Django's).
VIEW_PATH = re.compile(r"^/api/v1/games/(?!join$)([^/]+)$")
# The route Django names the same request by: one line and one metric for both ways.
ROUTE = "api/v1/games/<str:game_id>"
# DRF's answer to every request of the view, whatever its status.
ALLOW = (b"allow", b"GET, HEAD, OPTIONS")
JSON_TYPE = (b"content-type", b"application/json")

_renderer = JSONRenderer()


def game_id_read(scope: Scope) -> str | None:
    """The game id when `scope` is a view read taken here, else None (Django's)."""
    if scope["method"] != "GET":
        return None
    found = VIEW_PATH.match(scope["path"])
    if found is None:
        return None
    authorizations = 0
    for name, value in scope["headers"]:
        if name == b"authorization":
            authorizations += 1
        elif (name == b"content-length" and value != b"0") or name == b"transfer-encoding":
            return None  # a body to read or refuse: Django's
    # Two Authorization headers reach Django joined by a comma: its refusal.
    if authorizations != 1 or security.redirected_to_https(scope):
        return None
    return found.group(1)


async def serve(
    scope: Scope, receive: Receive, send: Send, game_id: str, api: ThreadedWSGI
) -> None:
    """Answer the view read, on one of `api`'s threads; or hand it to Django (`api`)."""
    meta = meta_of(scope)
    try:
        code = QueryDict(scope.get("query_string", b"")).get("code")
    except SuspiciousOperation:  # too many fields: Django's 400
        await api(scope, receive, send)
        return
    authorization = next(v for n, v in scope["headers"] if n == b"authorization").decode("latin1")
    answered = await api.run(lambda: read(game_id, authorization, code, meta))
    if answered is None:
        await api(scope, receive, send)
        return
    player_id, status, body, extra = answered
    name_exchange(scope, route=ROUTE, player_id=player_id, game_id=game_id)
    sent = [JSON_TYPE, ALLOW, *security.django_headers(scope)]
    sent += [(name.lower().encode("latin1"), value.encode("latin1")) for name, value in extra]
    sent.append((b"content-length", str(len(body)).encode("latin1")))
    await send({"type": "http.response.start", "status": status, "headers": sent})
    await send({"type": "http.response.body", "body": body})


Answered = tuple[str, int, bytes, list[tuple[str, str]]]


def read(
    game_id: str, authorization: str, code: str | None, meta: dict[str, Any]
) -> Answered | None:
    """The answer to a view read (blocking: an API thread's): the player's id, the
    status, the body and the headers of its own; None for Django to answer it. A
    database or a cache that fails leaves it to Django too, which answers as it
    answers every request then (503 with Retry-After); such a request may have been
    counted against its player's rate here already."""
    try:
        return _answer(game_id, authorization, code, meta)
    except Exception:
        log.warning("a view read is left to Django", exc_info=True)
        connection.close()  # whatever state it is in: Django reopens one
        return None


def _answer(
    game_id: str, authorization: str, code: str | None, meta: dict[str, Any]
) -> Answered | None:
    # No health check before the reads (a round trip, which Django makes at each
    # request's first query): a connection found broken is reopened (`reopening`).
    connection.health_check_done = True  # type: ignore[attr-defined]  # Django 4.1+, unstubbed
    try:
        player = reopening(lambda: bearer_player(authorization))[0]
    except ServiceError:
        return None
    player_id = str(player.pk)
    wait, prefetched = player_request_counted(player, meta, game_id=game_id)
    if wait is not None:
        return _error(player_id, RateLimited("too many requests", details={"retry_after": wait}))
    try:
        game = reopening(lambda: selectors.game_get(game_id))
        reading.admit(game, player=player, staff=player.is_staff, code=code, meta=meta)
    except ServiceError as error:
        return _error(player_id, error)
    view = presenters.game_view(game, player, presence=selectors.presence_of(game, prefetched))
    return player_id, 200, _renderer.render(view), []


def _error(player_id: str, error: ServiceError) -> Answered:
    answered: ErrorAnswer = answer(error)
    return (
        player_id,
        answered.status,
        _renderer.render(answered.body),
        list(answered.headers.items()),
    )
