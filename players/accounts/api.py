"""The account endpoints: email codes, signing in with an identity, the identities
linked, a password, deleting the account and exporting what it holds."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from players import id_tokens, sessions
from players.accounts import email_codes, erasure, services
from players.accounts import openapi_text as text
from players.accounts.serializers import (
    EmailCodeIn,
    EmailCodeSentOut,
    LinkIn,
    PasswordIn,
    SignInIn,
    SignInMethodsOut,
    identities_json,
    identity_json,
)
from players.api import signed_in_json
from players.auth import current_player
from players.models import Player
from players.serializers import IdentityOut, PlayerCreatedOut
from unoservice.client_address import client_group
from unoservice.idempotency.http import idempotent
from unoservice.schema import COMMON_HEADERS, IDEMPOTENT_HEADERS, error_responses


class EmailCodesView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        **text.EMAIL_CODE,
        request=EmailCodeIn,
        responses={
            202: EmailCodeSentOut,
            **error_responses(400, 401, 409, 422, 415, 429, descriptions=text.EMAIL_CODE_ERRORS),
        },
        parameters=IDEMPOTENT_HEADERS,
    )
    def post(self, request: Request) -> Response:
        def send() -> Response:
            body = EmailCodeIn(data=request.data)
            body.is_valid(raise_exception=True)
            email = body.validated_data["email"]
            # A token is optional here: with one, a code is mailed to link the address.
            user: object = request.user
            player = user if isinstance(user, Player) else None
            services.email_code_send(email=email, player=player, meta=request.META)
            return Response(
                {
                    "email": email,
                    "expires_in": email_codes.CODE_MINUTES * 60,
                    "resend_after": settings.EMAIL_CODE_INTERVAL_SECONDS,
                },
                status=status.HTTP_202_ACCEPTED,
            )

        # A retry with the same key is answered again, and mails no second code.
        return idempotent(request, send)


class SignInView(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(
        **text.SIGN_IN,
        request=SignInIn,
        responses={
            200: PlayerCreatedOut,
            **error_responses(
                400, 401, 403, 404, 409, 422, 415, 429, descriptions=text.SIGN_IN_ERRORS
            ),
        },
        parameters=IDEMPOTENT_HEADERS,
        auth=[],
    )
    def post(self, request: Request) -> Response:
        def sign() -> Response:
            body = SignInIn(data=request.data)
            body.is_valid(raise_exception=True)
            player, token = services.sign_in(
                proof=body.validated_data["proof"],
                device=sessions.clean_session_name(body.validated_data.get("device")),
                network=client_group(request._request),
                meta=request.META,
            )
            return Response(signed_in_json(player, token))

        # The answer holds the new token, which is never stored (as at sign-up).
        return idempotent(request, sign, answer_is_secret=True)


class SignInMethodsView(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(
        **text.SIGN_IN_METHODS,
        responses={200: SignInMethodsOut, **error_responses(429)},
        parameters=COMMON_HEADERS,
        auth=[],
    )
    def get(self, request: Request) -> Response:
        return Response(
            {
                "email_code": True,
                "password": True,
                "providers": [
                    {
                        "id": provider,
                        "name": settings.ID_TOKEN_PROVIDERS[provider]["name"],
                        "client_ids": list(settings.ID_TOKEN_PROVIDERS[provider]["client_ids"]),
                        "authorize_url": settings.ID_TOKEN_PROVIDERS[provider]["authorize_url"],
                    }
                    for provider in id_tokens.enabled_providers()
                ],
            }
        )


class IdentitiesView(APIView):
    @extend_schema(
        **text.IDENTITIES,
        responses={200: IdentityOut(many=True), **error_responses(401, 429)},
        parameters=COMMON_HEADERS,
    )
    def get(self, request: Request) -> Response:
        return Response(identities_json(current_player(request).pk))

    @extend_schema(
        **text.LINK,
        request=LinkIn,
        responses={
            200: IdentityOut,
            201: IdentityOut,
            **error_responses(
                400, 401, 403, 404, 409, 422, 415, 429, descriptions=text.LINK_ERRORS
            ),
        },
        parameters=IDEMPOTENT_HEADERS,
    )
    def post(self, request: Request) -> Response:
        def link() -> Response:
            body = LinkIn(data=request.data)
            body.is_valid(raise_exception=True)
            identity, created = services.identity_link(
                player_id=current_player(request).pk,
                proof=body.validated_data["proof"],
                meta=request.META,
            )
            answer = status.HTTP_201_CREATED if created else status.HTTP_200_OK
            return Response(identity_json(identity), status=answer)

        return idempotent(request, link)


class PasswordView(APIView):
    @extend_schema(
        **text.PASSWORD,
        request=PasswordIn,
        responses={
            204: None,
            **error_responses(400, 401, 403, 404, 409, 415, 429, descriptions=text.PASSWORD_ERRORS),
        },
        parameters=COMMON_HEADERS,
    )
    def put(self, request: Request) -> Response:
        body = PasswordIn(data=request.data)
        body.is_valid(raise_exception=True)
        services.password_set(
            player_id=current_player(request).pk,
            new_password=body.validated_data["new_password"],
            proof=body.validated_data["proof"],
            meta=request.META,
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class ExportView(APIView):
    @extend_schema(
        **text.EXPORT,
        responses={200: {"type": "object"}, **error_responses(401, 429)},
        parameters=COMMON_HEADERS,
    )
    def get(self, request: Request) -> Response:
        return Response(erasure.account_export(current_player(request)))
