"""``Authorization: Bearer <token>`` authentication for DRF: each token is one
device's session (`players.sessions`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from players import sessions
from players.models import Player, PlayerSession, hash_token
from unoservice import fastsql, presence
from unoservice.api_errors import ServiceAuthenticationFailed
from unoservice.client_address import group_in
from unoservice.errors import NotAuthenticated, PlayerDisabled, ServiceError

MAX_TOKEN_LENGTH = 200


def player_by_token(token: str) -> Player | None:
    """The player a token belongs to, with the session it signs in (`Player.session`),
    by one indexed lookup of its hash. Every request authenticates, hence `fastsql`."""
    token_hash = hash_token(token)
    return _players_by_hash([token_hash]).get(token_hash)


def _players_by_hash(token_hashes: list[str]) -> dict[str, Player]:
    """The player of each of these tokens that has a session, signed in with it."""
    players = {}
    for session in fastsql.select_in_with(PlayerSession, "token_hash", token_hashes, "player"):
        player = session.player
        player.session = session
        players[session.token_hash] = player
    return players


def bearer_player(header: str) -> tuple[Player, str]:
    """The player (and token) of an ``Authorization: Bearer <token>`` header; raises
    `NotAuthenticated` for any other header, an unknown token or an expired session,
    `PlayerDisabled` for a disabled player's."""
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
    found = _players_by_hash(hashes)
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
    if player is None or player.session is None:
        raise NotAuthenticated("unknown token")
    if sessions.is_expired(player.session):
        raise NotAuthenticated("this session expired after a long time unused: sign in again")
    if player.disabled_at is not None:
        raise PlayerDisabled("this player is disabled")
    return player


class BearerTokenAuthentication(BaseAuthentication):
    """One indexed lookup by the token's hash; no cookie, no CSRF. The player it
    finds is marked online (`unoservice.presence.seen_soon`), and its session used
    (`players.sessions.touch`)."""

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
        assert player.session is not None
        sessions.touch(player.session, group_in(request.META))
        return player, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


def current_player(request: Any) -> Player:
    """The authenticated player of a request (views require authentication first)."""
    user = request.user
    if not isinstance(user, Player):
        raise NotAuthenticated("authentication with a player token is required")
    return user
