"""Inviting friends to a game: `POST /games/{id}/invites`. (A rematch's invites are
the rematch's body: `games.api.lobby`.)"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from games import presenters, privacy, selectors, services
from games.api import openapi_text as text
from games.api.common import validated
from games.serializers import GAME_ID
from games.serializers.lobby import INVITE_EXAMPLES, InviteIn, InviteOut
from players.auth import current_player
from unoservice.idempotency.http import idempotent
from unoservice.schema import IDEMPOTENT_HEADERS, error_responses
from unoservice.throttling import PlayerRateThrottle


class GameInviteThrottle(PlayerRateThrottle):
    """Invites sent per player (THROTTLE_RATE_GAME_INVITE), every attempt counted:
    each one that goes through rings a friend's lobby and phone."""

    scope = "game_invite"
    # The configured rate itself, not whatever replaced the players' (tests and load
    # runs lift those).
    THROTTLE_RATES = SimpleRateThrottle.THROTTLE_RATES


class GameInvitesView(APIView):
    throttle_classes = [*APIView.throttle_classes, GameInviteThrottle]

    @extend_schema(
        **text.INVITE,
        request=InviteIn,
        examples=INVITE_EXAMPLES,
        parameters=[GAME_ID, *IDEMPOTENT_HEADERS],
        responses={
            201: InviteOut,
            200: InviteOut,
            **error_responses(
                400, 401, 403, 404, 409, 415, 422, 429, descriptions=text.INVITE_ERRORS
            ),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        game_uuid = selectors.parse_game_id(game_id)

        def invite() -> Response:
            player = current_player(request)
            try:
                body = validated(InviteIn, request.data)
            except ValidationError:
                # Of a game that does not exist for the caller, the answer is 404
                # whatever the body, as for every other action on a game.
                privacy.conceal(selectors.game_get(game_uuid), player)
                raise
            invited = services.game_invite(
                game_id=game_uuid, player=player, friend_id=str(body["player"])
            )
            code = status.HTTP_201_CREATED if invited.created else status.HTTP_200_OK
            return Response(presenters.invite_json(invited.invite), status=code)

        return idempotent(request, invite)
