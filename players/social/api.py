"""The caller's friends (their code, requests and friendships), blocks and table-talk
preferences, under ``/players/me``. The list of friends with their presence reads
games, and is served by the games app (`games.social.api`)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from players.auth import current_player
from players.social import blocks, friends, mutes, selectors
from players.social import openapi_text as text
from players.social.common import parse_player_id, player_ref
from players.social.limits import FriendRequestThrottle
from players.social.serializers import (
    FRIEND_REQUEST_EXAMPLES,
    BlocksOut,
    FriendCodeOut,
    FriendRequestIn,
    FriendRequestOut,
    TableTalkIn,
    TableTalkOut,
    asked_json,
    blocks_json,
    friend_code_json,
    table_talk_json,
)
from unoservice.idempotency.http import idempotent
from unoservice.schema import COMMON_HEADERS, IDEMPOTENT_HEADERS, error_responses
from unoservice.throttling import AnonymousRateThrottle, PlayerRateThrottle

PLAYER_ID = OpenApiParameter("player_id", str, OpenApiParameter.PATH, description=text.PLAYER_ID)


class FriendCodeView(APIView):
    @extend_schema(
        **text.FRIEND_CODE,
        responses={200: FriendCodeOut, **error_responses(401, 429)},
        parameters=COMMON_HEADERS,
    )
    def get(self, request: Request) -> Response:
        code = friends.friend_code_get(player_id=current_player(request).pk)
        return Response(friend_code_json(code))

    @extend_schema(
        **text.FRIEND_CODE_NEW,
        request=None,
        responses={
            201: FriendCodeOut,
            **error_responses(400, 401, 409, 422, 429, descriptions=text.FRIEND_CODE_NEW_ERRORS),
        },
        parameters=IDEMPOTENT_HEADERS,
    )
    def post(self, request: Request) -> Response:
        def renew() -> Response:
            code = friends.friend_code_renew(player_id=current_player(request).pk)
            return Response(friend_code_json(code), status=status.HTTP_201_CREATED)

        return idempotent(request, renew)


class FriendRequestsView(APIView):
    # Every attempt counts against the player's friend-request rate, as well.
    throttle_classes = [PlayerRateThrottle, AnonymousRateThrottle, FriendRequestThrottle]

    @extend_schema(
        **text.FRIEND_REQUEST,
        request=FriendRequestIn,
        examples=FRIEND_REQUEST_EXAMPLES,
        responses={
            200: FriendRequestOut,
            201: FriendRequestOut,
            **error_responses(
                400, 401, 404, 409, 415, 422, 429, descriptions=text.FRIEND_REQUEST_ERRORS
            ),
        },
        parameters=IDEMPOTENT_HEADERS,
    )
    def post(self, request: Request) -> Response:
        def ask() -> Response:
            body = FriendRequestIn(data=request.data)
            body.is_valid(raise_exception=True)
            asked = friends.friend_request_send(
                player_id=current_player(request).pk,
                to=body.validated_data.get("player"),
                code=body.validated_data.get("code"),
            )
            answer = status.HTTP_201_CREATED if asked.created else status.HTTP_200_OK
            return Response(asked_json(asked), status=answer)

        return idempotent(request, ask)


class FriendRequestAcceptView(APIView):
    @extend_schema(
        **text.ACCEPT,
        request=None,
        responses={
            200: FriendRequestOut,
            **error_responses(400, 401, 404, 409, 422, 429, descriptions=text.ACCEPT_ERRORS),
        },
        parameters=[PLAYER_ID, *IDEMPOTENT_HEADERS],
    )
    def post(self, request: Request, player_id: str) -> Response:
        def accept() -> Response:
            sender = friends.friend_request_accept(
                player_id=current_player(request).pk, sender_id=parse_player_id(player_id)
            )
            return Response({"player": player_ref(sender), "status": friends.FRIENDS})

        return idempotent(request, accept)


class FriendRequestDeclineView(APIView):
    @extend_schema(
        **text.DECLINE,
        request=None,
        responses={
            204: None,
            **error_responses(400, 401, 404, 409, 422, 429, descriptions=text.DECLINE_ERRORS),
        },
        parameters=[PLAYER_ID, *IDEMPOTENT_HEADERS],
    )
    def post(self, request: Request, player_id: str) -> Response:
        def decline() -> Response:
            friends.friend_request_decline(
                player_id=current_player(request).pk, sender_id=parse_player_id(player_id)
            )
            return Response(status=status.HTTP_204_NO_CONTENT)

        return idempotent(request, decline)


class FriendRequestView(APIView):
    @extend_schema(
        **text.CANCEL,
        request=None,
        responses={204: None, **error_responses(401, 404, 429, descriptions=text.CANCEL_ERRORS)},
        parameters=[PLAYER_ID, *COMMON_HEADERS],
    )
    def delete(self, request: Request, player_id: str) -> Response:
        friends.friend_request_cancel(
            player_id=current_player(request).pk, receiver_id=parse_player_id(player_id)
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class FriendView(APIView):
    @extend_schema(
        **text.UNFRIEND,
        request=None,
        responses={204: None, **error_responses(401, 404, 429, descriptions=text.UNFRIEND_ERRORS)},
        parameters=[PLAYER_ID, *COMMON_HEADERS],
    )
    def delete(self, request: Request, player_id: str) -> Response:
        friends.friend_remove(
            player_id=current_player(request).pk, friend_id=parse_player_id(player_id)
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class BlocksView(APIView):
    @extend_schema(
        **text.BLOCKS,
        responses={200: BlocksOut, **error_responses(401, 429)},
        parameters=COMMON_HEADERS,
    )
    def get(self, request: Request) -> Response:
        return Response(blocks_json(selectors.blocks_of(current_player(request).pk)))


class BlockView(APIView):
    @extend_schema(
        **text.BLOCK,
        request=None,
        responses={
            204: None,
            **error_responses(400, 401, 404, 409, 429, descriptions=text.BLOCK_ERRORS),
        },
        parameters=[PLAYER_ID, *COMMON_HEADERS],
    )
    def put(self, request: Request, player_id: str) -> Response:
        blocks.block_add(
            player_id=current_player(request).pk, blocked_id=parse_player_id(player_id)
        )
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        **text.UNBLOCK,
        request=None,
        responses={204: None, **error_responses(401, 404, 429, descriptions=text.UNBLOCK_ERRORS)},
        parameters=[PLAYER_ID, *COMMON_HEADERS],
    )
    def delete(self, request: Request, player_id: str) -> Response:
        blocks.block_remove(
            player_id=current_player(request).pk, blocked_id=parse_player_id(player_id)
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class TableTalkView(APIView):
    @extend_schema(
        **text.TABLE_TALK,
        responses={200: TableTalkOut, **error_responses(401, 429)},
        parameters=COMMON_HEADERS,
    )
    def get(self, request: Request) -> Response:
        player = current_player(request)
        mutes_now = selectors.mutes_of(player.pk)
        return Response(table_talk_json(player.hide_spectator_emotes, mutes_now))

    @extend_schema(
        **text.TABLE_TALK_CHANGE,
        request=TableTalkIn,
        responses={200: TableTalkOut, **error_responses(400, 401, 415, 429)},
        parameters=COMMON_HEADERS,
    )
    def patch(self, request: Request) -> Response:
        body = TableTalkIn(data=request.data)
        body.is_valid(raise_exception=True)
        player = current_player(request)
        hide = player.hide_spectator_emotes
        if "hide_spectator_emotes" in body.validated_data:
            hide = mutes.spectator_emotes_hide(
                player_id=player.pk, hide=body.validated_data["hide_spectator_emotes"]
            ).hide_spectator_emotes
        return Response(table_talk_json(hide, selectors.mutes_of(player.pk)))


class TableTalkMuteView(APIView):
    @extend_schema(
        **text.MUTE,
        request=None,
        responses={
            204: None,
            **error_responses(400, 401, 404, 409, 429, descriptions=text.MUTE_ERRORS),
        },
        parameters=[PLAYER_ID, *COMMON_HEADERS],
    )
    def put(self, request: Request, player_id: str) -> Response:
        mutes.mute_add(player_id=current_player(request).pk, muted_id=parse_player_id(player_id))
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        **text.UNMUTE,
        request=None,
        responses={204: None, **error_responses(401, 404, 429, descriptions=text.UNMUTE_ERRORS)},
        parameters=[PLAYER_ID, *COMMON_HEADERS],
    )
    def delete(self, request: Request, player_id: str) -> Response:
        mutes.mute_remove(player_id=current_player(request).pk, muted_id=parse_player_id(player_id))
        return Response(status=status.HTTP_204_NO_CONTENT)
