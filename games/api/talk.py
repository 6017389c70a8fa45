"""Table talk over HTTP: the catalogue, a table's messages (said and read), and
reports to staff. Each view finds the game as every read does (`readable`: a
private game's spectator shows its invite code) before it judges the body."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from games.api.common import readable, validated
from games.serializers.common import GAME_ID, INVITE_CODE
from games.serializers.talk import (
    MESSAGE_EXAMPLES,
    MESSAGE_IN,
    REPORT_EXAMPLES,
    REPORT_IN,
    CatalogueOut,
    MessageIn,
    MessageOut,
    MessagesOut,
    MessagesQuery,
    ReportIn,
    ReportOut,
)
from games.talk import messages, reports, selectors
from games.talk import openapi_text as text
from games.talk.catalogue import catalogue_json
from players.auth import current_player
from unoservice.idempotency.http import idempotent
from unoservice.schema import COMMON_HEADERS, IDEMPOTENT_HEADERS, error_responses
from unoservice.throttling import AnonymousRateThrottle, PlayerRateThrottle


class ReportRateThrottle(PlayerRateThrottle):
    """Reports filed per player (each lands in the staff's queue): every attempt counts."""

    scope = "report"
    # The configured rate itself, not whatever replaced the players' (tests and load
    # runs lift those).
    THROTTLE_RATES = SimpleRateThrottle.THROTTLE_RATES


class CatalogueView(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(
        **text.CATALOGUE,
        responses={200: CatalogueOut, **error_responses(429)},
        parameters=COMMON_HEADERS,
        auth=[],
    )
    def get(self, request: Request) -> Response:
        return Response(catalogue_json())


class GameMessagesView(APIView):
    @extend_schema(
        **text.READ_MESSAGES,
        parameters=[GAME_ID, MessagesQuery, INVITE_CODE, *COMMON_HEADERS],
        responses={
            200: MessagesOut,
            **error_responses(400, 401, 404, 429, descriptions=text.READ_MESSAGES_ERRORS),
        },
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = readable(request, game_id)
        after = validated(MessagesQuery, request.query_params.dict())["after"]
        said = selectors.messages_for(game, current_player(request), after=after)
        return Response({"messages": said})

    @extend_schema(
        **text.SEND_MESSAGE,
        request=MESSAGE_IN,
        examples=MESSAGE_EXAMPLES,
        parameters=[GAME_ID, INVITE_CODE, *IDEMPOTENT_HEADERS],
        responses={
            201: MessageOut,
            **error_responses(
                400, 401, 403, 404, 409, 415, 422, 429, descriptions=text.SEND_MESSAGE_ERRORS
            ),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        def send() -> Response:
            data = request.data  # a body of another media type is 415, for any game
            game = readable(request, game_id)
            body = validated(MessageIn, data)
            said = messages.message_send(game=game, player=current_player(request), **body)
            return Response(said, status=status.HTTP_201_CREATED)

        return idempotent(request, send)


class GameReportsView(APIView):
    throttle_classes = [PlayerRateThrottle, AnonymousRateThrottle, ReportRateThrottle]

    @extend_schema(
        **text.REPORT,
        request=REPORT_IN,
        examples=REPORT_EXAMPLES,
        parameters=[GAME_ID, INVITE_CODE, *IDEMPOTENT_HEADERS],
        responses={
            201: ReportOut,
            200: ReportOut,
            **error_responses(400, 401, 404, 409, 415, 422, 429, descriptions=text.REPORT_ERRORS),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        def report() -> Response:
            data = request.data  # a body of another media type is 415, for any game
            game = readable(request, game_id)
            body: dict[str, Any] = validated(ReportIn, data)
            filed, new = reports.report_file(
                game=game,
                reporter=current_player(request),
                reason=body["reason"],
                message_id=body.get("message"),
                player_id=body.get("player"),
                note=body.get("note", ""),
            )
            answer = {"id": filed.pk, "status": filed.status}
            return Response(answer, status=status.HTTP_201_CREATED if new else status.HTTP_200_OK)

        return idempotent(request, report)
