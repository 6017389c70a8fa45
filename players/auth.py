"""``Authorization: Bearer <token>`` authentication for DRF."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from players.models import Player, hash_token
from unoservice import fastsql, presence
from unoservice.api_errors import ServiceAuthenticationFailed
from unoservice.errors import NotAuthenticated, PlayerDisabled, ServiceError

MAX_TOKEN_LENGTH = 200


def player_by_token(token: str) -> Player | None:
    """The player a token belongs to, by one indexed lookup of its hash. Every
    request authenticates, hence `fastsql`."""
    return fastsql.select_by(Player, "token_hash", hash_token(token))


def bearer_player(header: str) -> tuple[Player, str]:
    """The player (and token) of an ``Authorization: Bearer <token>`` header; raises
    `NotAuthenticated` for any other header or an unknown token, `PlayerDisabled`
    for a disabled player's."""
    token = _bearer_token(header)
    return _usable(player_by_token(token)), token


def bearer_players(headers: Sequence[str]) -> list[Player | ServiceError]:
    """`bearer_player`'s player, or the error it would raise, for each of many
    headers at once: one query for them all (streams that open together)."""
    tokens: list[str | ServiceError] = []
    for header in headers:
        try:
            tokens.append(_bearer_token(header))
        except ServiceError as error:
            tokens.append(error)
    hashes = sorted({hash_token(token) for token in tokens if isinstance(token, str)})
    found = {
        player.token_hash: player
        for player in fastsql.select_in(Player, "token_hash", hashes, order_by="token_hash")
    }
    players: list[Player | ServiceError] = []
    for token in tokens:
        if isinstance(token, ServiceError):
            players.append(token)
            continue
        try:
            players.append(_usable(found.get(hash_token(token))))
        except ServiceError as error:
            players.append(error)
    return players


def _bearer_token(header: str) -> str:
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > MAX_TOKEN_LENGTH:
        raise NotAuthenticated("the Authorization header must be 'Bearer <token>'")
    return token


def _usable(player: Player | None) -> Player:
    if player is None:
        raise NotAuthenticated("unknown token")
    if player.disabled_at is not None:
        raise PlayerDisabled("this player is disabled")
    return player


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
