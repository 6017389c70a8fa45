"""``POST /players`` (a guest account), ``GET /players/me``, ``POST /players/me/token``
(a new token) and the leaderboard."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from players import services, standings
from players.auth import current_player
from players.models import Player, Rating
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


class PlayerNameOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    name = serializers.CharField()


class PlayerCreatedOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    name = serializers.CharField(min_length=1, max_length=services.MAX_NAME_LENGTH)
    token = serializers.CharField(help_text="send as 'Authorization: Bearer <token>'")


class StatsOut(serializers.Serializer[Any]):
    games_played = serializers.IntegerField(min_value=0)
    games_won = serializers.IntegerField(min_value=0)
    rounds_won = serializers.IntegerField(min_value=0)
    points = serializers.IntegerField(min_value=0)


class RatingOut(serializers.Serializer[Any]):
    mu = serializers.FloatField(help_text="the estimate of the skill")
    sigma = serializers.FloatField(help_text="its uncertainty")
    ordinal = serializers.FloatField(help_text="mu - 3 sigma: what the leaderboard ranks by")
    games = serializers.IntegerField(min_value=0, help_text="rated games played")


class RatingChangeOut(serializers.Serializer[Any]):
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField()


RANK_HELP = (
    "on the leaderboard; null while the rating is provisional, or when an operator hid "
    "the player from the leaderboard"
)
PROVISIONAL_HELP = (
    f"true until the record the leaderboard asks for: {standings.MIN_GAMES_TO_RANK} rated "
    f"games, against {standings.MIN_OPPONENTS_TO_RANK} different human opponents"
)
OPPONENTS_HELP = (
    f"different human opponents met in rated games, counted up to {standings.MIN_OPPONENTS_TO_RANK}"
)


class PlayerMeOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    name = serializers.CharField(min_length=1, max_length=services.MAX_NAME_LENGTH)
    stats = StatsOut()
    rating = RatingOut()
    rank = serializers.IntegerField(min_value=1, allow_null=True, help_text=RANK_HELP)
    provisional = serializers.BooleanField(help_text=PROVISIONAL_HELP)
    opponents = serializers.IntegerField(
        min_value=0, max_value=standings.MIN_OPPONENTS_TO_RANK, help_text=OPPONENTS_HELP
    )


class RatedRefOut(serializers.Serializer[Any]):
    id = serializers.CharField(help_text="a player's id, or bot:<strategy>")
    name = serializers.CharField()
    bot = serializers.CharField(allow_null=True, help_text="the strategy, for a bot")


class LeaderboardEntryOut(serializers.Serializer[Any]):
    rank = serializers.IntegerField(min_value=1, help_text="equal ordinals share a rank")
    player = RatedRefOut()
    rating = RatingOut()


def stats_json(player: Player) -> dict[str, int]:
    return {
        "games_played": player.games_played,
        "games_won": player.games_won,
        "rounds_won": player.rounds_won,
        "points": player.points,
    }


def player_me_json(player: Player) -> dict[str, Any]:
    found = standings.player_standing(player)
    return {
        "id": str(player.pk),
        "name": player.name,
        "stats": stats_json(player),
        "rating": found.rating,
        "rank": found.rank,
        "provisional": found.provisional,
        "opponents": found.opponents,
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
        description="The player the token belongs to, with their statistics (games "
        "played and won, rounds won and points scored), their rating and their rank on "
        "the leaderboard.",
        responses={200: PlayerMeOut, **error_responses(401, 429)},
        parameters=COMMON_HEADERS,
    )
    def get(self, request: Request) -> Response:
        return Response(player_me_json(current_player(request)))


class PlayerTokenView(APIView):
    @extend_schema(
        summary="Sign out everywhere: a new token",
        description="Replaces the caller's token with a new one, answered once (only a "
        "hash of it is kept). The old token stops working at once: requests with it are "
        "401, its unused stream tickets are refused, and the streams opened with it or "
        "with its tickets end within a moment, on every server. No body. The answer is "
        "never kept for an Idempotency-Key (it holds a credential): a retry with the "
        "same key, sent with the old token, is 401.",
        request=None,
        responses={
            200: PlayerCreatedOut,
            **error_responses(
                400, 401, 429, descriptions={400: "invalid_request: a malformed Idempotency-Key"}
            ),
        },
        parameters=IDEMPOTENT_HEADERS,
    )
    def post(self, request: Request) -> Response:
        def replace() -> Response:
            player, token = services.player_new_token(player_id=current_player(request).pk)
            return Response({"id": str(player.pk), "name": player.name, "token": token})

        # The answer holds the new token, which is never stored.
        return idempotent(request, replace, answer_is_secret=True)


PAGE_PARAMETER = OpenApiParameter(
    "page",
    {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "string", "enum": ["last", ""]}]},
    description="a page number (50 a page), or 'last'",
)


class LeaderboardView(generics.ListAPIView):  # type: ignore[type-arg]
    serializer_class = LeaderboardEntryOut
    queryset = Rating.objects.none()  # names the model for the schema

    @extend_schema(
        summary="The leaderboard",
        description="Players and bot strategies with the record: at least "
        f"{standings.MIN_GAMES_TO_RANK} rated games, against at least "
        f"{standings.MIN_OPPONENTS_TO_RANK} different human opponents (players an "
        "operator hid are left out), by their rating's ordinal (mu - 3 sigma), best "
        "first, 50 a page. Equal ordinals share a rank.",
        parameters=[PAGE_PARAMETER, *COMMON_HEADERS],
        responses={
            200: LeaderboardEntryOut(many=True),
            **error_responses(401, 404, 429, descriptions={404: "not_found: no such page"}),
        },
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(standings.leaderboard())
        assert page is not None
        assert isinstance(self.paginator, PageNumberPagination)
        assert self.paginator.page is not None
        first = self.paginator.page.start_index()
        rows = list(page)
        results = [
            {
                "rank": rank,
                "player": {"id": row.key, "name": standings.display_name(row), "bot": row.bot},
                "rating": standings.rating_data(row),
            }
            for row, rank in zip(rows, standings.ranks(rows, first), strict=True)
        ]
        return self.get_paginated_response(results)
