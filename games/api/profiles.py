"""A player's (or a bot strategy's) profile and finished games. They read the games'
results, so they live with the games: the players app imports nothing of games."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api import openapi_text as text
from games.models import BotStrategy, Result
from games.ratings import reads as standings
from games.ratings.rules import UNRATED_REASONS
from players.auth import current_player
from players.serializers import (
    OPPONENTS_HELP,
    PAGE_PARAMETER,
    PROVISIONAL_HELP,
    RANK_HELP,
    PlayerNameOut,
    RatingChangeOut,
    RatingOut,
    StatsOut,
    stats_json,
    tag_field,
)
from unoservice import replica
from unoservice.schema import COMMON_HEADERS, error_responses

_PLAYER_ID = OpenApiParameter("player_id", str, OpenApiParameter.PATH, description=text.PLAYER_ID)


class PlayerOut(serializers.Serializer[Any]):
    id = serializers.CharField(help_text="a player's id, or bot:<strategy> for a bot strategy")
    name = serializers.CharField()
    tag = tag_field(allow_null=True)
    bot = serializers.ChoiceField(
        choices=BotStrategy.values, allow_null=True, help_text="the strategy, for a bot"
    )
    rating = RatingOut()
    rank = serializers.IntegerField(min_value=1, allow_null=True, help_text=RANK_HELP)
    provisional = serializers.BooleanField(help_text=PROVISIONAL_HELP)
    opponents = serializers.IntegerField(
        min_value=0, max_value=standings.MIN_OPPONENTS_TO_RANK, help_text=OPPONENTS_HELP
    )
    stats = StatsOut()
    created_at = serializers.DateTimeField(allow_null=True, help_text="null for a bot")


class SeatResultOut(serializers.Serializer[Any]):
    seat = serializers.IntegerField(min_value=0)
    player = PlayerNameOut(allow_null=True)
    bot = serializers.ChoiceField(choices=BotStrategy.values, allow_null=True)
    place = serializers.IntegerField(
        min_value=1,
        help_text="equal final scores share a place; a seat whose player forfeited places last",
    )
    points = serializers.IntegerField(min_value=0, help_text="the final score")
    forfeited = serializers.BooleanField(
        help_text="its player left, or lost the seat to timeouts and never took it back: a "
        "bot finished the game for them, and they placed last"
    )


class HistoryEntryOut(serializers.Serializer[Any]):
    game = serializers.UUIDField()
    finished_at = serializers.DateTimeField()
    players = SeatResultOut(many=True)
    place = serializers.IntegerField(min_value=1)
    points = serializers.IntegerField(min_value=0)
    rating = RatingOut(allow_null=True, help_text="after this game; null when it was unrated")
    rating_change = RatingChangeOut(allow_null=True, help_text="null when it was unrated")
    rated = serializers.BooleanField(help_text="whether the game moved ratings")
    unrated_reason = serializers.ChoiceField(
        choices=UNRATED_REASONS,
        allow_null=True,
        help_text="why an unrated game was not rated (null for a rated game, and for "
        "unrated games that finished before reasons were kept)",
    )


def player_json(found: standings.Standing) -> dict[str, Any]:
    player = found.player
    return {
        "id": found.key,
        "name": found.name,
        "tag": None if player is None else player.tag,
        "bot": found.bot,
        "rating": found.rating,
        "rank": found.rank,
        "provisional": found.provisional,
        "opponents": found.opponents,
        "stats": stats_json(player) if player is not None else standings.bot_stats(str(found.bot)),
        "created_at": None if player is None else player.created_at.isoformat(),
    }


def _standing_of(request: Request, player_id: str) -> standings.Standing:
    """The player (or bot strategy) a path names; `me` is the caller."""
    if player_id == "me":
        return standings.player_standing(current_player(request))
    return standings.standing_of(player_id)


def _someone_else(request: Request, player_id: str) -> bool:
    """Whether the path names another than the caller: a player reads their own
    profile and history from the primary, with the game they just finished in it."""
    return player_id not in ("me", str(current_player(request).pk))


class PlayerDetailView(APIView):
    @extend_schema(
        **text.PLAYER_PROFILE,
        parameters=[_PLAYER_ID, *COMMON_HEADERS],
        responses={200: PlayerOut, **error_responses(401, 404, 429)},
    )
    def get(self, request: Request, player_id: str) -> Response:
        found = replica.lagging(
            lambda: player_json(_standing_of(request, player_id)),
            when=_someone_else(request, player_id),
        )
        return Response(found)


# DRF's stubs make its generic views generic; at runtime they take no type argument.
class PlayerGamesView(generics.ListAPIView):  # type: ignore[type-arg]
    serializer_class = HistoryEntryOut
    queryset = Result.objects.none()  # names the model for the schema

    @extend_schema(
        **text.PLAYER_GAMES,
        parameters=[_PLAYER_ID, PAGE_PARAMETER, *COMMON_HEADERS],
        responses={
            200: HistoryEntryOut(many=True),
            **error_responses(401, 404, 429, descriptions=text.PLAYER_GAMES_ERRORS),
        },
    )
    def get(self, request: Request, player_id: str) -> Response:
        return replica.lagging(
            lambda: self.history(request, player_id), when=_someone_else(request, player_id)
        )

    def history(self, request: Request, player_id: str) -> Response:
        found = _standing_of(request, player_id)
        page = self.paginate_queryset(standings.history(found.key, viewer=current_player(request)))
        assert page is not None
        entries = [
            {
                "game": str(entry.game_id),
                "finished_at": entry.finished_at.isoformat(),
                "players": entry.players,
                "place": entry.place,
                "points": entry.points,
                "rating": entry.rating,
                "rating_change": entry.rating_change,
                "rated": entry.rated,
                "unrated_reason": entry.unrated_reason,
            }
            for entry in standings.history_entries(page)
        ]
        return self.get_paginated_response(entries)
