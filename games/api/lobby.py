"""The lobby: list and create games, take and leave seats, start, add bots, play
again, and quick match."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import presenters, privacy, selectors, services
from games.api import openapi_text as text
from games.api.common import seat_action_view, validated, view_response
from games.models import Game, GameStatus
from games.serializers import (
    GAME_ID,
    GAME_LIST_EXAMPLES,
    JOIN_BY_CODE_EXAMPLES,
    MATCHMAKING_EXAMPLES,
    BotIn,
    GameCreateIn,
    GameSummaryOut,
    GameViewOut,
    InvitationOut,
    InviteCodeIn,
    JoinByCodeIn,
    MatchCancelOut,
    MatchmakingIn,
    SeatIn,
    SeatingIn,
)
from games.serializers.lobby import REMATCH_EXAMPLES, RematchIn
from players.auth import current_player
from players.models import Player
from unoservice.client_address import client_address
from unoservice.errors import NotFound
from unoservice.idempotency.http import idempotent
from unoservice.schema import COMMON_HEADERS, IDEMPOTENT_HEADERS, error_responses
from unoservice.throttling import count_invite_code_attempt

# What `selectors.open_game_id_by_code` answers for a code of no open game.
NO_GAME_WITH_CODE = "no open game has this invite code"

# An empty value counts as none given (`?status=&page=` is the first page of every
# game), as an HTML form would send it.
_LIST_FILTERS = [
    OpenApiParameter(
        "status",
        {"type": "string", "enum": [*GameStatus.values, ""]},
        description="only games in this status",
    ),
    OpenApiParameter(
        "mine",
        {"anyOf": [{"type": "boolean"}, {"type": "string", "enum": [""]}]},
        description="only games I sit in",
    ),
    OpenApiParameter(
        "your_turn",
        {"anyOf": [{"type": "boolean"}, {"type": "string", "enum": [""]}]},
        description="only running games in which it is your turn or decision (your move "
        "waits); false lists as if it were absent",
    ),
    OpenApiParameter(
        "page",
        {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "string", "enum": ["last", ""]}]},
        description="a page number (50 games a page), or 'last'",
    ),
]


# DRF's stubs make its generic views generic; at runtime they take no type argument.
class GamesView(generics.ListAPIView):  # type: ignore[type-arg]
    """``GET /games`` (lobby and history) and ``POST /games`` (create, as host)."""

    serializer_class = GameSummaryOut
    # Only names the model for the schema: the games come from `selectors.game_list`.
    queryset = Game.objects.none()

    @extend_schema(
        **text.LIST_GAMES,
        parameters=[*_LIST_FILTERS, *COMMON_HEADERS],
        examples=GAME_LIST_EXAMPLES,
        responses={
            200: GameSummaryOut(many=True),
            **error_responses(400, 401, 404, 429, descriptions=text.LIST_GAMES_ERRORS),
        },
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        viewer = current_player(request)
        games = selectors.game_list(viewer=viewer, filters=request.query_params)
        page = self.paginate_queryset(games)
        assert page is not None
        results = [presenters.game_summary(game, viewer) for game in page]
        return self.get_paginated_response(results)

    @extend_schema(
        **text.CREATE_GAME,
        request=GameCreateIn,
        parameters=IDEMPOTENT_HEADERS,
        responses={
            201: GameViewOut,
            **error_responses(
                400, 401, 403, 409, 415, 422, 429, descriptions=text.CREATE_GAME_ERRORS
            ),
        },
    )
    def post(self, request: Request) -> Response:
        def create() -> Response:
            body = validated(GameCreateIn, request.data)
            outcome = services.game_create(
                host=current_player(request), address=client_address(request), **body
            )
            return view_response(outcome, request, status.HTTP_201_CREATED)

        return idempotent(request, create)


GameJoinView = seat_action_view(
    services.game_join,
    (400, 401, 404, 409, 415, 422, 429),
    text.JOIN_GAME,
    text.JOIN_GAME_ERRORS,
    seats_caller=True,
    body=SeatIn,
)
GameStartView = seat_action_view(
    services.game_start,
    (400, 401, 403, 404, 409, 415, 422, 429),
    text.START_GAME,
    text.START_GAME_ERRORS,
    body=SeatIn,
)
GameSeatingView = seat_action_view(
    services.game_seats_arrange,
    (400, 401, 403, 404, 409, 415, 422, 429),
    text.ARRANGE_SEATS,
    text.ARRANGE_SEATS_ERRORS,
    body=SeatingIn,
)
GameLeaveView = seat_action_view(
    services.game_leave,
    (400, 401, 403, 404, 409, 422, 429),
    text.LEAVE_GAME,
    text.LEAVE_GAME_ERRORS,
)


class GameRematchView(APIView):
    @extend_schema(
        **text.REMATCH,
        request=RematchIn,
        examples=REMATCH_EXAMPLES,
        parameters=[GAME_ID, *IDEMPOTENT_HEADERS],
        responses={
            201: GameViewOut,
            **error_responses(
                400, 401, 403, 404, 409, 415, 422, 429, descriptions=text.REMATCH_ERRORS
            ),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        game_uuid = selectors.parse_game_id(game_id)

        def rematch() -> Response:
            player = current_player(request)
            try:
                # No body at all is a rematch without invites.
                body = validated(RematchIn, request.data)
            except ValidationError:
                # Of a game that does not exist for the caller, the answer is 404
                # whatever the body, as for every other action on a game.
                privacy.conceal(selectors.game_get(game_uuid), player)
                raise
            outcome = services.game_rematch(
                game_id=game_uuid,
                player=player,
                address=client_address(request),
                invite=[str(friend) for friend in body.get("invite", [])],
            )
            return view_response(outcome, request, status.HTTP_201_CREATED)

        return idempotent(request, rematch)


class GameJoinByCodeView(APIView):
    def get_permissions(self) -> list[Any]:
        # Who an invite is from is read before signing up: the invite link's page.
        return [AllowAny()] if self.request.method == "GET" else list(super().get_permissions())

    @extend_schema(
        **text.INVITATION,
        operation_id="games_invitation_by_code",
        parameters=[InviteCodeIn, *COMMON_HEADERS],
        responses={
            200: InvitationOut,
            **error_responses(400, 401, 404, 429, descriptions=text.INVITATION_ERRORS),
        },
    )
    def get(self, request: Request) -> Response:
        typed = validated(InviteCodeIn, request.query_params.dict())["code"]
        # A token is optional here: with one, blocks hide games as a join would.
        user: object = request.user
        viewer = user if isinstance(user, Player) else None
        attempt = count_invite_code_attempt(player=viewer, meta=request.META)
        game = selectors.invitation(typed, viewer)  # NotFound: a wrong code
        attempt.release()
        return Response(presenters.invitation_json(game))

    @extend_schema(
        **text.JOIN_BY_CODE,
        operation_id="games_join_by_code",
        request=JoinByCodeIn,
        examples=JOIN_BY_CODE_EXAMPLES,
        parameters=IDEMPOTENT_HEADERS,
        responses={
            200: GameViewOut,
            **error_responses(
                400, 401, 404, 409, 415, 422, 429, descriptions=text.JOIN_BY_CODE_ERRORS
            ),
        },
    )
    def post(self, request: Request) -> Response:
        def join() -> Response:
            body = validated(JoinByCodeIn, request.data)
            typed = body["code"]
            attempt = count_invite_code_attempt(player=current_player(request), meta=request.META)
            game_id = selectors.open_game_id_by_code(typed)  # NotFound: a wrong code
            attempt.release()
            try:
                outcome = services.game_join(
                    game_id=game_id,
                    player=current_player(request),
                    invited=True,
                    address=client_address(request),
                    client_seed=body.get("client_seed"),
                )
            except NotFound:
                # A game where someone seated blocks the caller, or is blocked by them:
                # answered word for word as a code of no game (`open_game_id_by_code`).
                raise NotFound(NO_GAME_WITH_CODE) from None
            return view_response(outcome, request)

        return idempotent(request, join)


class GameBotsView(APIView):
    @extend_schema(
        **text.ADD_BOT,
        request=BotIn,
        parameters=[GAME_ID, *IDEMPOTENT_HEADERS],
        responses={
            201: GameViewOut,
            **error_responses(
                400, 401, 403, 404, 409, 415, 422, 429, descriptions=text.ADD_BOT_ERRORS
            ),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        game_uuid = selectors.parse_game_id(game_id)

        def add_bot() -> Response:
            body = validated(BotIn, request.data)
            outcome = services.game_add_bot(
                game_id=game_uuid, player=current_player(request), strategy=body["strategy"]
            )
            return view_response(outcome, request, status.HTTP_201_CREATED)

        return idempotent(request, add_bot)


class MatchmakingView(APIView):
    @extend_schema(
        **text.QUICK_MATCH,
        operation_id="matchmaking_find",
        request=MatchmakingIn,
        examples=MATCHMAKING_EXAMPLES,
        parameters=IDEMPOTENT_HEADERS,
        responses={
            200: GameViewOut,
            **error_responses(
                400, 401, 403, 409, 415, 422, 429, descriptions=text.QUICK_MATCH_ERRORS
            ),
        },
    )
    def post(self, request: Request) -> Response:
        def find() -> Response:
            body = validated(MatchmakingIn, request.data)
            outcome = services.match_find(
                player=current_player(request), address=client_address(request), **body
            )
            return view_response(outcome, request)

        return idempotent(request, find)


class MatchmakingCancelView(APIView):
    @extend_schema(
        **text.CANCEL_QUICK_MATCH,
        operation_id="matchmaking_cancel",
        request=None,
        parameters=IDEMPOTENT_HEADERS,
        responses={
            200: MatchCancelOut,
            **error_responses(400, 401, 409, 422, 429, descriptions=text.CANCEL_QUICK_MATCH_ERRORS),
        },
    )
    def post(self, request: Request) -> Response:
        def cancel() -> Response:
            left = services.match_cancel(player=current_player(request))
            return Response({"left": [str(game_id) for game_id in left]})

        return idempotent(request, cancel)
