"""``POST /players`` (a guest account) and ``GET /players/me``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from players import services
from players.auth import current_player
from players.models import Player
from unoservice.fields import StrictCharField, StrictSerializer
from unoservice.idempotency.http import idempotent
from unoservice.schema import (
    COMMON_HEADERS,
    IDEMPOTENT_HEADERS,
    error_responses,
    trimmed_text_pattern,
)


@extend_schema_field(
    {
        "type": "string",
        "format": "printable",
        "maxLength": 200,
        "pattern": trimmed_text_pattern(services.MAX_NAME_LENGTH),
        "description": f"1-{services.MAX_NAME_LENGTH} printable characters (as Python's "
        "str.isprintable: no control, format, private-use, unassigned or separator "
        "characters but the plain space) once the whitespace around them is trimmed off",
    }
)
class PlayerNameField(StrictCharField):
    pass


class PlayerCreateIn(StrictSerializer):
    name = PlayerNameField(max_length=200, trim_whitespace=False)


class PlayerCreatedOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    name = serializers.CharField(min_length=1, max_length=services.MAX_NAME_LENGTH)
    token = serializers.CharField(help_text="send as 'Authorization: Bearer <token>'")


class StatsOut(serializers.Serializer[Any]):
    games_played = serializers.IntegerField(min_value=0)
    games_won = serializers.IntegerField(min_value=0)
    rounds_won = serializers.IntegerField(min_value=0)
    points = serializers.IntegerField(min_value=0)


class PlayerMeOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    name = serializers.CharField(min_length=1, max_length=services.MAX_NAME_LENGTH)
    stats = StatsOut()


def player_me_json(player: Player) -> dict[str, Any]:
    return {
        "id": str(player.pk),
        "name": player.name,
        "stats": {
            "games_played": player.games_played,
            "games_won": player.games_won,
            "rounds_won": player.rounds_won,
            "points": player.points,
        },
    }


class PlayersView(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(
        summary="Sign up",
        description="Creates a guest player and answers with its token, once: only a "
        "hash of it is kept, so a lost token cannot be recovered. Send the token as "
        "`Authorization: Bearer <token>` with every other request. No token is needed "
        "here; sign-ups are limited per client address. The answer is never kept for an "
        "Idempotency-Key: the same key signs up a new player.",
        request=PlayerCreateIn,
        responses={
            201: PlayerCreatedOut,
            **error_responses(
                400,
                409,
                415,
                422,
                429,
                descriptions={
                    409: "idempotency_key_in_use",
                    422: "idempotency_key_reused",
                },
            ),
        },
        parameters=IDEMPOTENT_HEADERS,
        auth=[],
    )
    def post(self, request: Request) -> Response:
        def create() -> Response:
            body = PlayerCreateIn(data=request.data)
            body.is_valid(raise_exception=True)
            player, token = services.player_create(name=body.validated_data["name"])
            return Response(
                {"id": str(player.pk), "name": player.name, "token": token},
                status=status.HTTP_201_CREATED,
            )

        # The answer holds the new token, which is never stored: a retry with the same
        # Idempotency-Key signs up afresh rather than handing the token out again.
        return idempotent(request, create, answer_is_secret=True)


class PlayerMeView(APIView):
    @extend_schema(
        summary="Who am I",
        description="The player the token belongs to, with their statistics: games "
        "played and won, rounds won and points scored.",
        responses={200: PlayerMeOut, **error_responses(401, 429)},
        parameters=COMMON_HEADERS,
    )
    def get(self, request: Request) -> Response:
        return Response(player_me_json(current_player(request)))
