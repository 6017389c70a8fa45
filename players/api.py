"""``POST /players`` (a guest account), ``GET``/``PATCH /players/me``, the devices
signed in (``/players/me/sessions``), ``POST /players/me/token`` (sign out everywhere)
and the leaderboard."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from players import openapi_text as text
from players import services, sessions, standings
from players.accounts import erasure
from players.accounts import openapi_text as accounts_text
from players.accounts.serializers import AccountDeleteIn, identities_json
from players.auth import current_player
from players.models import Player, Rating, player_tag
from players.push import preferences
from players.serializers import (
    PAGE_PARAMETER,
    LeaderboardEntryOut,
    PlayerChangeIn,
    PlayerCreatedOut,
    PlayerCreateIn,
    PlayerMeOut,
    SessionOut,
    stats_json,
)
from unoservice import replica
from unoservice.client_address import client_group
from unoservice.idempotency.http import idempotent
from unoservice.schema import COMMON_HEADERS, IDEMPOTENT_HEADERS, error_responses


def player_me_json(player: Player) -> dict[str, Any]:
    found = standings.player_standing(player)
    identities = identities_json(player.pk)
    return {
        "id": str(player.pk),
        "name": player.name,
        "stats": stats_json(player),
        "rating": found.rating,
        "rank": found.rank,
        "provisional": found.provisional,
        "opponents": found.opponents,
        "notifications": preferences.notification_settings(player.pk),
        "recoverable": bool(identities),
        "identities": identities,
        "password_set": bool(player.password),
    }


class PlayersView(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(
        **text.SIGN_UP,
        request=PlayerCreateIn,
        responses={
            201: PlayerCreatedOut,
            **error_responses(400, 409, 415, 422, 429, descriptions=text.SIGN_UP_ERRORS),
        },
        parameters=IDEMPOTENT_HEADERS,
        auth=[],
    )
    def post(self, request: Request) -> Response:
        def create() -> Response:
            body = PlayerCreateIn(data=request.data)
            body.is_valid(raise_exception=True)
            player, token = services.player_create(
                name=body.validated_data["name"],
                device=sessions.clean_session_name(body.validated_data.get("device")),
                network=client_group(request._request),
            )
            return Response(signed_in_json(player, token), status=status.HTTP_201_CREATED)

        # The answer holds the new token, which is never stored: a retry with the same
        # Idempotency-Key signs up afresh rather than handing the token out again.
        return idempotent(request, create, answer_is_secret=True)


class PlayerMeView(APIView):
    # Deleting the account takes a fresh proof of it in the body.
    delete_takes_body = True

    @extend_schema(
        **text.WHO_AM_I,
        responses={200: PlayerMeOut, **error_responses(401, 429)},
        parameters=COMMON_HEADERS,
    )
    def get(self, request: Request) -> Response:
        return Response(player_me_json(current_player(request)))

    @extend_schema(
        **accounts_text.DELETE_ACCOUNT,
        request=AccountDeleteIn,
        responses={
            204: None,
            **error_responses(
                400, 401, 403, 404, 415, 429, descriptions=accounts_text.DELETE_ACCOUNT_ERRORS
            ),
        },
        parameters=COMMON_HEADERS,
    )
    def delete(self, request: Request) -> Response:
        body = AccountDeleteIn(data=request.data)
        body.is_valid(raise_exception=True)
        erasure.account_delete(
            player_id=current_player(request).pk,
            proof=body.validated_data["proof"],
            meta=request.META,
        )
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        **text.RENAME,
        request=PlayerChangeIn,
        responses={200: PlayerMeOut, **error_responses(400, 401, 415, 429)},
        parameters=COMMON_HEADERS,
    )
    def patch(self, request: Request) -> Response:
        body = PlayerChangeIn(data=request.data)
        body.is_valid(raise_exception=True)
        player = current_player(request)
        if "name" in body.validated_data:
            player = services.player_rename(player_id=player.pk, name=body.validated_data["name"])
        return Response(player_me_json(player))


class PlayerTokenView(APIView):
    @extend_schema(
        **text.NEW_TOKEN,
        request=None,
        responses={
            200: PlayerCreatedOut,
            **error_responses(400, 401, 429, descriptions=text.NEW_TOKEN_ERRORS),
        },
        parameters=IDEMPOTENT_HEADERS,
    )
    def post(self, request: Request) -> Response:
        def replace() -> Response:
            player, token = services.player_new_token(
                player_id=current_player(request).pk, replacing=str(request.auth)
            )
            return Response(signed_in_json(player, token))

        # The answer holds the new token, which is never stored.
        return idempotent(request, replace, answer_is_secret=True)


def signed_in_json(player: Player, token: str) -> dict[str, Any]:
    assert player.session is not None
    return {
        "id": str(player.pk),
        "name": player.name,
        "token": token,
        "session": str(player.session.pk),
    }


class PlayerSessionsView(APIView):
    @extend_schema(
        **text.SESSIONS,
        responses={200: SessionOut(many=True), **error_responses(401, 429)},
        parameters=COMMON_HEADERS,
    )
    def get(self, request: Request) -> Response:
        player = current_player(request)
        current = player.session.pk if player.session is not None else None
        return Response(
            [
                {
                    "id": str(session.pk),
                    "device": session.name,
                    "created_at": session.created_at,
                    "last_used_at": session.last_used_at,
                    "network": session.network,
                    "current": session.pk == current,
                }
                for session in sessions.sessions_of(player.pk)
            ]
        )


SESSION_ID = OpenApiParameter(
    "session_id", str, OpenApiParameter.PATH, description="the session's id (a UUID)"
)


class PlayerSessionView(APIView):
    @extend_schema(
        **text.SIGN_OUT_SESSION,
        request=None,
        responses={
            204: None,
            **error_responses(401, 404, 429, descriptions=text.SIGN_OUT_SESSION_ERRORS),
        },
        parameters=[SESSION_ID, *COMMON_HEADERS],
    )
    def delete(self, request: Request, session_id: str) -> Response:
        sessions.session_end(player_id=current_player(request).pk, session_id=session_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LeaderboardView(generics.ListAPIView):  # type: ignore[type-arg]
    serializer_class = LeaderboardEntryOut
    queryset = Rating.objects.none()  # names the model for the schema

    @extend_schema(
        **text.LEADERBOARD,
        parameters=[PAGE_PARAMETER, *COMMON_HEADERS],
        responses={
            200: LeaderboardEntryOut(many=True),
            **error_responses(401, 404, 429, descriptions=text.LEADERBOARD_ERRORS),
        },
    )
    @replica.may_lag
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
                "player": {
                    "id": row.key,
                    "name": standings.display_name(row),
                    "tag": None if row.bot else player_tag(row.key),
                    "bot": row.bot,
                },
                "rating": standings.rating_data(row),
            }
            for row, rank in zip(rows, standings.ranks(rows, first), strict=True)
        ]
        return self.get_paginated_response(results)
