"""The live streams as a plain WSGI server answers them, and the one-time tickets a
browser's EventSource opens them with. The server (`unoservice.asgi`) answers a
stream itself before these views are reached; here they are declared for the schema
and answered with their opening alone, which an EventSource reopens after `retry`:
a poll, but the same messages."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import selectors, services
from games.api import openapi_text as text
from games.api.common import readable
from games.engine import GameState
from games.live import access, lobby, sse
from games.live.channels import Snapshot
from games.serializers import GAME_ID, INVITE_CODE, StreamTicketOut
from games.stream_examples import (
    GAME_STREAM_EXAMPLES,
    LOBBY_STREAM_EXAMPLES,
    STREAM_AUTH,
    stream_answer,
)
from players.auth import current_player
from unoservice.idempotency.http import idempotent
from unoservice.schema import COMMON_HEADERS, IDEMPOTENT_HEADERS, error_responses


def _event_stream(body: bytes) -> HttpResponse:
    """A stream's opening, answered whole."""
    response = HttpResponse(body, content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


def _ticket(request: Request, game_id: Any | None) -> Response:
    """A new stream ticket of the caller: for the game, or for the lobby (None)."""
    ticket, expires_at = services.stream_ticket_issue(
        game_id=game_id, player=current_player(request)
    )
    return Response(
        {"ticket": ticket, "expires_at": expires_at.isoformat()}, status=status.HTTP_201_CREATED
    )


class _StreamView(APIView):
    """A stream makes its own checks (a bearer token, a ticket, or for a game's
    stream a staff session) and counts itself against the rate limit."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    throttle_classes: list[type] = []


def _headers(request: Request) -> dict[str, str]:
    return {name.lower(): value for name, value in request.headers.items()}


def _refused(refusal: access.Refusal) -> Response:
    return Response(refusal.body, status=refusal.status, headers=refusal.headers)


class GameStreamView(_StreamView):
    """``GET /games/{id}/stream``."""

    @extend_schema(
        **text.GAME_STREAM,
        auth=STREAM_AUTH,
        parameters=[
            GAME_ID,
            OpenApiParameter(
                "after",
                {"type": "string", "pattern": "^[0-9]*$"},
                description="resume after this seq (as the Last-Event-ID header does); "
                "empty is the same as none",
            ),
            OpenApiParameter("ticket", str, description="a stream ticket, instead of a token"),
            INVITE_CODE,
            *COMMON_HEADERS,
        ],
        responses={
            (200, "text/event-stream"): stream_answer(
                text.GAME_STREAM_MESSAGES, GAME_STREAM_EXAMPLES
            ),
            **error_responses(400, 401, 404, 429, descriptions=text.GAME_STREAM_ERRORS),
        },
    )
    def get(self, request: Request, game_id: str) -> HttpResponse:
        checked = access.open_stream(
            game_id=game_id,
            headers=_headers(request),
            query=request.query_params.dict(),
            meta=request.META,
        )
        if isinstance(checked, access.Refusal):
            return _refused(checked)
        watcher, parsed_id, resume = checked
        game = selectors.game_by_id(parsed_id)
        hidden = access.hidden(game, watcher, meta=request.META)
        if hidden is not None:
            return _refused(hidden)
        state = GameState.from_snapshot(game.state) if game.state is not None else None
        snapshot = Snapshot(game, state, [], selectors.presence_of(game))
        return _event_stream(sse.opening(snapshot, watcher, resume))


class GameStreamTicketView(APIView):
    @extend_schema(
        **text.GAME_STREAM_TICKET,
        request=None,
        parameters=[GAME_ID, INVITE_CODE, *IDEMPOTENT_HEADERS],
        responses={
            201: StreamTicketOut,
            **error_responses(400, 401, 404, 429, descriptions=text.GAME_STREAM_TICKET_ERRORS),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        """Browsers cannot send headers with an EventSource: this ticket opens
        ``/games/{id}/stream?ticket=...`` once, for the caller, within 60 seconds."""
        game_uuid = selectors.parse_game_id(game_id)

        def issue() -> Response:
            readable(request, game_uuid)
            return _ticket(request, game_uuid)

        # A ticket is a credential: never stored for a replay.
        return idempotent(request, issue, answer_is_secret=True)


class LobbyStreamView(_StreamView):
    """``GET /players/me/stream``."""

    @extend_schema(
        **text.LOBBY_STREAM,
        auth=STREAM_AUTH,
        parameters=[
            OpenApiParameter(
                "ticket", str, description="a lobby stream ticket, instead of a token"
            ),
            *COMMON_HEADERS,
        ],
        responses={
            (200, "text/event-stream"): stream_answer(
                text.LOBBY_STREAM_MESSAGES, LOBBY_STREAM_EXAMPLES
            ),
            **error_responses(401, 429, descriptions=text.LOBBY_STREAM_ERRORS),
        },
    )
    def get(self, request: Request) -> HttpResponse:
        checked = access.open_lobby_stream(
            headers=_headers(request),
            query=request.query_params.dict(),
            meta=request.META,
        )
        if isinstance(checked, access.Refusal):
            return _refused(checked)
        return _event_stream(lobby.opening(checked))


class LobbyStreamTicketView(APIView):
    @extend_schema(
        **text.LOBBY_STREAM_TICKET,
        request=None,
        parameters=[*IDEMPOTENT_HEADERS],
        responses={
            201: StreamTicketOut,
            **error_responses(400, 401, 429, descriptions=text.LOBBY_STREAM_TICKET_ERRORS),
        },
    )
    def post(self, request: Request) -> Response:
        # A ticket is a credential: never stored for a replay.
        return idempotent(request, lambda: _ticket(request, None), answer_is_secret=True)
