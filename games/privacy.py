"""Who may see a private game: its players, staff, and whoever holds its invite code.

A private game is, to anyone else, a game that does not exist: every read of it
(the view, events, log, replay, stream ticket and stream) answers 404 ``not_found``,
as for an unknown id. A spectator shows the code as the ``code`` query parameter.
A wrong code counts against the player's `FailedInviteCodeThrottle`, so that codes
cannot be guessed one read at a time either.
"""

from __future__ import annotations

import hmac

from rest_framework.request import Request

from games import invites, selectors
from games.models import Game, Visibility
from players.models import Player
from unoservice.errors import NotFound
from unoservice.throttling import FailedInviteCodeThrottle


def is_player(game: Game, player: Player | None) -> bool:
    """Whether `player` is one of the game's players: seated, or holding a seat a bot
    took over after their timeouts (which they may resume). A player who left is not."""
    return player is not None and selectors.holds_seat(game, player)


def code_matches(game: Game, typed: str) -> bool:
    code = invites.read_code(typed)
    return (
        code is not None
        and game.invite_code is not None
        and hmac.compare_digest(code, game.invite_code)
    )


def admit(
    game: Game, *, player: Player | None, staff: bool, code: str | None, request: Request
) -> None:
    """Let `player` (or a staff session) see `game`, or raise `NotFound` as if it did
    not exist (`RateLimited` after too many wrong codes). `code` is what the reader
    sent as the ``code`` query parameter (empty counts as absent); `request` is what
    the throttle counts by (it reads only its `user` and `META`)."""
    if game.visibility != Visibility.PRIVATE or staff or is_player(game, player):
        return
    if code:
        guard = FailedInviteCodeThrottle()
        guard.check(request)
        if code_matches(game, code):
            return
        guard.record_failure(request)
    raise NotFound("no such game")
