"""Play: the caller's view of a game, moves, the Wild Draw Four decision, and taking
back a seat a bot held after timeouts."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import presenters, selectors, services
from games.api import openapi_text as text
from games.api.common import readable, seat_action_view, validated, view_of
from games.engine import MalformedMove, Move, parse_move
from games.engine.moves import ACCEPT, CHALLENGE
from games.errors import from_engine
from games.serializers import (
    CHALLENGE_EXAMPLES,
    GAME_ID,
    INVITE_CODE,
    MOVE_EXAMPLES,
    ChallengeIn,
    GameViewOut,
    MoveIn,
    MoveResultOut,
)
from players.auth import current_player
from unoservice import metrics
from unoservice.errors import InvalidRequest
from unoservice.idempotency.http import idempotent
from unoservice.schema import COMMON_HEADERS, IDEMPOTENT_HEADERS, error_responses

# The answers a move (or a challenge decision) may get.
_MOVE_STATUSES = (400, 401, 403, 404, 409, 415, 422, 429)


class GameDetailView(APIView):
    @extend_schema(
        **text.GET_GAME,
        parameters=[GAME_ID, INVITE_CODE, *COMMON_HEADERS],
        responses={
            200: GameViewOut,
            **error_responses(401, 404, 429, descriptions=text.GET_GAME_ERRORS),
        },
    )
    def get(self, request: Request, game_id: str) -> Response:
        return Response(view_of(readable(request, game_id), request))


GameResumeView = seat_action_view(
    services.seat_resume,
    (400, 401, 403, 404, 409, 422, 429),
    text.RESUME_SEAT,
    text.RESUME_SEAT_ERRORS,
)


def _parse_move_body(data: Any) -> tuple[int, Move]:
    if not isinstance(data, dict):
        raise InvalidRequest("the body must be a JSON object")
    version = data.get("version")
    # Checked by hand, not by a serializer: this runs on every move.
    if type(version) is not int or version < 0:
        problem = "required" if "version" not in data else "must be a non-negative integer"
        raise InvalidRequest(f"version: {problem}", details={"fields": {"version": [problem]}})
    try:
        return version, parse_move(data)
    except MalformedMove as error:
        raise from_engine(error) from None


def _move_response(outcome: services.Outcome, request: Request) -> Response:
    viewer = outcome.game.seat_of(current_player(request))
    return Response(
        {
            "game": view_of(outcome.game, request, outcome.state),
            "events": presenters.events_json(outcome.events, viewer),
        }
    )


class CountsRejectedMoves(APIView):
    """A view that takes moves: every refusal is counted by its error code."""

    def handle_exception(self, exc: Exception) -> Response:
        response = super().handle_exception(exc)
        error = response.data.get("error") if isinstance(response.data, dict) else None
        code = error.get("code") if isinstance(error, dict) else None
        metrics.MOVES_REJECTED.labels(str(code or response.status_code)).inc()
        return response


class GameMovesView(CountsRejectedMoves):
    @extend_schema(
        **text.MAKE_MOVE,
        request=MoveIn,
        examples=MOVE_EXAMPLES,
        parameters=[GAME_ID, *IDEMPOTENT_HEADERS],
        responses={
            200: MoveResultOut,
            **error_responses(*_MOVE_STATUSES, descriptions=text.MOVE_ERRORS),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        game_uuid = selectors.parse_game_id(game_id)

        def move() -> Response:
            version, parsed = _parse_move_body(request.data)
            outcome = services.move_apply(
                game_id=game_uuid, player=current_player(request), version=version, move=parsed
            )
            return _move_response(outcome, request)

        return idempotent(request, move)


class GameChallengeView(CountsRejectedMoves):
    @extend_schema(
        **text.DECIDE_CHALLENGE,
        request=ChallengeIn,
        examples=CHALLENGE_EXAMPLES,
        parameters=[GAME_ID, *IDEMPOTENT_HEADERS],
        responses={
            200: MoveResultOut,
            **error_responses(*_MOVE_STATUSES, descriptions=text.MOVE_ERRORS),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        game_uuid = selectors.parse_game_id(game_id)

        def decide() -> Response:
            body = validated(ChallengeIn, request.data)
            outcome = services.move_apply(
                game_id=game_uuid,
                player=current_player(request),
                version=body["version"],
                move=CHALLENGE if body["challenge"] else ACCEPT,
            )
            return _move_response(outcome, request)

        return idempotent(request, decide)
