"""Who may see a private game: its players, staff, whoever holds its invite code, and
the friends its players invited (`GameInvite`).

A private game is, to anyone else, a game that does not exist: every endpoint and
stream of it answers 404 ``not_found``, as for an unknown id. The reads (the view,
events, log, replay, stream ticket and stream) go through `admit`, where a spectator
shows the code as the ``code`` query parameter; every service that acts on a game
for a player (start, leave, resume, rematch, bots, moves) goes through `conceal`
first, before any check that would tell the game exists (a 403).

The policy takes plain values and returns a verdict (`sight`); a wrong code counts
against the player and their address, so that codes cannot be guessed one read at a
time either: what the readers do with the verdict (`games.reading.admit`).
"""

from __future__ import annotations

import enum
import hmac

from games import selectors
from games.models import Game, Visibility
from games.talk.models import GameInvite
from players.models import Player
from unoservice import codes
from unoservice.errors import NotFound


def is_player(game: Game, player: Player | None) -> bool:
    """Whether `player` is one of the game's players: seated, or holding a seat a bot
    took over after their timeouts (which they may resume). A player who left is not."""
    return player is not None and selectors.holds_seat(game, player)


def is_invited(game: Game, player: Player | None) -> bool:
    """Whether one of the game's players invited `player` to it: the invite lets them
    see it and join it by id, as its code would."""
    return player is not None and GameInvite.objects.filter(game=game, player=player).exists()


def code_matches(game: Game, typed: str) -> bool:
    code = codes.read_code(typed)
    return (
        code is not None
        and game.invite_code is not None
        and hmac.compare_digest(code, game.invite_code)
    )


def may_see(game: Game, player: Player | None, *, staff: bool) -> bool:
    """Whether `player` (or a staff session) sees `game` without its code: an invite
    to it stands for the code."""
    return (
        game.visibility != Visibility.PRIVATE
        or staff
        or is_player(game, player)
        or is_invited(game, player)
    )


def conceal(game: Game, player: Player) -> None:
    """Raise `NotFound`, word for word as for an unknown id, when `player` may not
    see `game`: what a service that acts on a game for a player checks first."""
    # Staff is asked last: it reads the player's user.
    private = game.visibility == Visibility.PRIVATE
    if private and not is_player(game, player) and not player.is_staff:
        raise NotFound("no such game")


class Sight(enum.Enum):
    """What a reader may see of a game (`sight`)."""

    SEEN = "seen"  # a public game, or one they play in or were invited to, or staff
    RIGHT_CODE = "right_code"  # a private game, and they sent its invite code
    WRONG_CODE = "wrong_code"  # a private game, and they sent some other code
    HIDDEN = "hidden"  # a private game, and they sent no code


def sight(game: Game, *, player: Player | None, staff: bool, code: str | None) -> Sight:
    """Whether `player` (or a staff session) sees `game`, and by what right. `code`
    is what the reader sent as the ``code`` query parameter (empty counts as absent).
    A code is judged only for a reader who does not see the game without one."""
    if may_see(game, player, staff=staff):
        return Sight.SEEN
    if not code:
        return Sight.HIDDEN
    return Sight.RIGHT_CODE if code_matches(game, code) else Sight.WRONG_CODE
