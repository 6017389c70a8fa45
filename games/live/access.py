"""Who may open a game's stream, checked once before it begins (on a reader thread).

A stream is opened with the player's bearer token, with a one-time ticket (browsers'
EventSource cannot send headers), or, for the staff dashboard, with a staff
member's admin session. The checks and their errors are the API's: 401, 404, 429
in the usual JSON shape, before any byte of the stream. A private game's stream is
404 to a watcher who is neither one of its players, nor staff, nor sends its
invite code as ``code`` (`hidden`, once the game is read).

A player's lobby stream (`open_lobby_stream`) is opened the same ways but the
staff session: a bearer token, or a ticket issued for the lobby (no game).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user
from django.http import HttpRequest
from django.http.cookie import parse_cookie

from games import reading, selectors, services
from games.models import Game
from players.auth import MAX_TOKEN_LENGTH, bearer_player, bearer_players
from players.models import Player
from unoservice import presence
from unoservice.errors import (
    ErrorAnswer,
    InvalidRequest,
    NotAuthenticated,
    PlayerDisabled,
    RateLimited,
    ServiceError,
    answer,
)
from unoservice.fields import is_query_integer
from unoservice.throttling import refused_player, refused_players, refused_unauthenticated


@dataclass
class Watcher:
    """Who watches: a player (seated or not), or a staff member's admin session, with
    the invite code they sent, if any."""

    player: Player | None
    staff: bool = False
    code: str | None = None
    # The last table message the client has (`?messages_after=`): the opening sends
    # the recent ones after it, or all of them without it.
    messages_after: int | None = None

    def seat(self, game: Game) -> int | None:
        return game.seat_of(self.player)


# An answer given instead of the stream.
Refusal = ErrorAnswer


def refusal(error: ServiceError) -> Refusal:
    return answer(error)


@dataclass
class Asked:
    """A request for a game's stream, as `open_streams` checks it."""

    game_id: str
    headers: dict[str, str]
    query: dict[str, str]
    meta: dict[str, Any]


Checked = tuple[Watcher, uuid.UUID, int | None]


def open_stream(
    *, game_id: str, headers: dict[str, str], query: dict[str, str], meta: dict[str, Any]
) -> Checked | Refusal:
    """Check a request for a game's stream: (watcher, game id, the seq to resume
    after, if any), or the refusal to answer instead. Whether the game exists is
    found when it is read for the stream (once per game, not once per watcher)."""
    return open_streams([Asked(game_id, headers, query, meta)])[0]


def open_streams(asked: list[Asked]) -> list[Checked | Refusal]:
    """`open_stream` for each of many requests, in order: the bearer tokens of them
    all in one query."""
    bearers = [a.headers.get("authorization", "") for a in asked if _by_bearer(a)]
    found = iter(bearer_players(bearers))
    checked: list[Checked | Refusal] = []
    for request in asked:
        player = next(found) if _by_bearer(request) else None
        try:
            parsed_id = selectors.parse_game_id(request.game_id)
            resume = _resume_after(request.headers, request.query)
            messages_after = _messages_after(request.query)
            if isinstance(player, ServiceError):
                raise player
            watcher = Watcher(player) if player is not None else _authenticate(parsed_id, request)
        except ServiceError as error:
            checked.append(refusal(_unless_flooding(error, request.headers, request.meta)))
            continue
        watcher.code = request.query.get("code")
        watcher.messages_after = messages_after
        checked.append((watcher, parsed_id, resume))
    # Each counted against its player's rate, all in one round trip.
    players: list[tuple[int, Player, dict[str, Any]]] = []
    for n, check in enumerate(checked):
        if not isinstance(check, ErrorAnswer) and check[0].player is not None:
            players.append((n, check[0].player, asked[n].meta))
    for player in {p.pk: p for _, p, _ in players}.values():
        presence.seen_soon(player.pk)  # online from the stream's opening on (the trip below)
    waits = refused_players([(p, meta) for _, p, meta in players])
    for (n, _, _), wait in zip(players, waits, strict=True):
        if wait is not None:
            checked[n] = refusal(RateLimited("too many requests", details={"retry_after": wait}))
    return checked


def _by_bearer(asked: Asked) -> bool:
    """Whether a request signs in with its bearer token (a ticket comes first)."""
    return "ticket" not in asked.query and bool(asked.headers.get("authorization"))


def open_lobby_stream(
    *, headers: dict[str, str], query: dict[str, str], meta: dict[str, Any]
) -> Player | Refusal:
    """Check a request for a player's lobby stream: the player, or the refusal to
    answer instead (401 without a token or a lobby ticket, 429 over the rate)."""
    try:
        ticket = query.get("ticket")
        if ticket is not None:
            player = _redeem(ticket, None)
            if player is None:
                raise NotAuthenticated("the ticket is unknown, used, expired or not a lobby's")
        else:
            header = headers.get("authorization", "")
            if not header:
                raise NotAuthenticated(
                    "authentication with a player token or a stream ticket is required"
                )
            player = bearer_player(header)[0]
        _admit(player, meta)
    except ServiceError as error:
        return refusal(_unless_flooding(error, headers, meta))
    return player


def _unless_flooding(
    error: ServiceError, headers: dict[str, str], meta: dict[str, Any]
) -> ServiceError:
    """A 401 counts against its address's limit of requests without a valid token,
    as the API's do: past it, the refusal is a 429."""
    if error.status != 401:
        return error
    with_credentials = {**meta, "HTTP_AUTHORIZATION": headers.get("authorization", "")}
    wait = refused_unauthenticated(meta=with_credentials)
    if wait is None:
        return error
    return RateLimited("too many requests without a valid token", details={"retry_after": wait})


def _admit(player: Player, meta: dict[str, Any]) -> None:
    """Mark the player online and count the opening against their rate limit."""
    presence.seen(player.pk)  # online from the stream's opening on
    wait = refused_player(player, meta)
    if wait is not None:
        raise RateLimited("too many requests", details={"retry_after": wait})


def _redeem(ticket: str, game_id: uuid.UUID | None) -> Player | None:
    if not 0 < len(ticket) <= MAX_TOKEN_LENGTH:
        return None
    player = services.stream_ticket_redeem(ticket=ticket, game_id=game_id)
    # Disabling removes the player's tickets; one redeemed at that very moment too.
    if player is not None and player.disabled_at is not None:
        raise PlayerDisabled("this player is disabled")
    return player


def hidden(game: Game, watcher: Watcher, *, meta: dict[str, Any]) -> Refusal | None:
    """The refusal (404, or 429 after too many wrong codes) when `watcher` may not see
    the private `game`; None when they may. Reads the database: call it on a reader
    thread, and only for private games."""
    player = watcher.player
    try:
        reading.admit(
            game,
            player=player,
            staff=watcher.staff or (player is not None and player.is_staff),
            code=watcher.code,
            meta=meta,
        )
    except ServiceError as error:
        return refusal(error)
    return None


def _resume_after(headers: dict[str, str], query: dict[str, str]) -> int | None:
    raw = query.get("after")
    name = "after"
    if raw is None:
        raw, name = headers.get("last-event-id"), "Last-Event-ID"
    if raw is None or raw == "":
        return None
    if not is_query_integer(raw):
        raise InvalidRequest(
            f"{name} must be a seq (ASCII digits)",
            details={"fields": {name: ["a valid integer is required"]}},
        )
    return int(raw)


def _messages_after(query: dict[str, str]) -> int | None:
    raw = query.get("messages_after")
    if raw is None or raw == "":
        return None
    if not is_query_integer(raw):
        raise InvalidRequest(
            "messages_after must be a message id (ASCII digits)",
            details={"fields": {"messages_after": ["a valid integer is required"]}},
        )
    return int(raw)


def _authenticate(game_id: uuid.UUID, asked: Asked) -> Watcher:
    """The watcher of a request that sends no bearer token (`open_streams` looks
    those up together): by its ticket, or a staff session."""
    ticket = asked.query.get("ticket")
    if ticket is not None:
        player = _redeem(ticket, game_id)
        if player is None:
            raise NotAuthenticated("the ticket is unknown, used, expired or for another game")
        return Watcher(player)
    staff = _staff_session(asked.headers.get("cookie", ""))
    if staff:
        return Watcher(None, staff=True)
    raise NotAuthenticated("authentication with a player token or a stream ticket is required")


def _staff_session(cookie_header: str) -> bool:
    """Whether the cookies carry the admin session of an active staff member who may
    view games."""
    session_key = parse_cookie(cookie_header).get(settings.SESSION_COOKIE_NAME)
    if not session_key:
        return False
    request = HttpRequest()
    request.session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    user = get_user(request)
    return bool(user.is_active and user.is_staff and user.has_perm("games.view_game"))
