"""``Authorization: Bearer <token>`` authentication for DRF."""

from __future__ import annotations

from typing import Any

from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from players.models import Player, hash_token
from unoservice import fastsql, presence
from unoservice.api_errors import ServiceAuthenticationFailed
from unoservice.errors import NotAuthenticated, PlayerDisabled

MAX_TOKEN_LENGTH = 200


def player_by_token(token: str) -> Player | None:
    """The player a token belongs to, by one indexed lookup of its hash. Every
    request authenticates, hence `fastsql`."""
    return fastsql.select_by(Player, "token_hash", hash_token(token))


def bearer_player(header: str) -> tuple[Player, str]:
    """The player (and token) of an ``Authorization: Bearer <token>`` header; raises
    `NotAuthenticated` for any other header or an unknown token, `PlayerDisabled`
    for a disabled player's."""
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > MAX_TOKEN_LENGTH:
        raise NotAuthenticated("the Authorization header must be 'Bearer <token>'")
    player = player_by_token(token)
    if player is None:
        raise NotAuthenticated("unknown token")
    if player.disabled_at is not None:
        raise PlayerDisabled("this player is disabled")
    return player, token


class BearerTokenAuthentication(BaseAuthentication):
    """One indexed lookup by the token's hash; no session, no CSRF. The player it
    finds is marked online (`unoservice.presence.seen_soon`)."""

    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[Player, str] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            return None
        try:
            player, token = bearer_player(header)
        except PlayerDisabled as error:
            raise ServiceAuthenticationFailed(error) from None
        except NotAuthenticated as error:
            raise AuthenticationFailed(error.message) from None
        # The player is online: a cache write at most every few seconds per process,
        # made by the request's rate-limit round trip.
        presence.seen_soon(player.pk)
        return player, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


def current_player(request: Any) -> Player:
    """The authenticated player of a request (views require authentication first)."""
    user = request.user
    if not isinstance(user, Player):
        raise NotAuthenticated("authentication with a player token is required")
    return user
