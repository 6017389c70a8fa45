"""``POST /players`` (a guest account) and ``GET /players/me``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from players import services
from players.auth import current_player
from players.models import Player
from unoservice.fields import StrictCharField, StrictSerializer
from unoservice.idempotency import idempotent
from unoservice.schema import error_responses


class PlayerCreateIn(StrictSerializer):
    name = StrictCharField(max_length=200, trim_whitespace=False)


class PlayerCreatedOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    name = serializers.CharField()
    token = serializers.CharField(help_text="send as 'Authorization: Bearer <token>'")


class StatsOut(serializers.Serializer[Any]):
    games_played = serializers.IntegerField()
    games_won = serializers.IntegerField()
    rounds_won = serializers.IntegerField()
    points = serializers.IntegerField()


class PlayerMeOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    name = serializers.CharField()
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
        request=PlayerCreateIn,
        responses={201: PlayerCreatedOut, **error_responses(400, 409, 422, 429)},
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

        return idempotent(request, create)


class PlayerMeView(APIView):
    @extend_schema(responses={200: PlayerMeOut, **error_responses(401, 429)})
    def get(self, request: Request) -> Response:
        return Response(player_me_json(current_player(request)))
