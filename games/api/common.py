"""What the game endpoints share: reading a body, finding the game the caller may
see, and answering with the caller's view of it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import presenters, reading, selectors, services
from games.engine import GameState
from games.models import Game
from games.serializers import GAME_ID, GameViewOut
from players.auth import current_player
from unoservice.client_address import client_address
from unoservice.idempotency.http import idempotent
from unoservice.schema import IDEMPOTENT_HEADERS, Described, error_responses
from unoservice.throttling import prefetched_presence


def validated(serializer_class: type, data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def view_of(game: Game, request: Request, state: GameState | None = None) -> dict[str, Any]:
    """The caller's view of `game`, with who is present now."""
    presence = selectors.presence_of(game, prefetched_presence(request))
    return presenters.game_view(game, current_player(request), state, presence=presence)


def readable(request: Request, game_id: object) -> Game:
    """The game, when the caller may see it (`games.privacy`); else `NotFound`."""
    game = selectors.game_get(game_id)
    player = current_player(request)
    reading.admit(
        game,
        player=player,
        staff=player.is_staff,
        code=request.query_params.get("code"),
        meta=request.META,
    )
    return game


def view_response(outcome: services.Outcome, request: Request, code: int = 200) -> Response:
    return Response(view_of(outcome.game, request, outcome.state), status=code)


def seat_action_view(
    service: Callable[..., services.Outcome],
    statuses: tuple[int, ...],
    text: Described,
    errors: dict[int, str],
    *,
    code: int = status.HTTP_200_OK,
    seats_caller: bool = False,
    body: type | None = None,
) -> type[APIView]:
    """A POST that changes who sits at a table and answers, with `code`, with the
    caller's view of the game the service returns: without a body, or with an
    optional one of the serializer `body`, whose fields the service takes. A service
    that `seats_caller` is told the client address too (ratings: `same_network`)."""

    class SeatActionView(APIView):
        @extend_schema(
            **text,
            request=body,
            parameters=[GAME_ID, *IDEMPOTENT_HEADERS],
            responses={code: GameViewOut, **error_responses(*statuses, descriptions=errors)},
        )
        def post(self, request: Request, game_id: str) -> Response:
            game_uuid = selectors.parse_game_id(game_id)

            def act() -> Response:
                given = {} if body is None else validated(body, request.data)
                where = {"address": client_address(request)} if seats_caller else {}
                player = current_player(request)
                outcome = service(game_id=game_uuid, player=player, **where, **given)
                return view_response(outcome, request, code)

            return idempotent(request, act)

    return SeatActionView
