"""Letting a reader see a game: the privacy policy's verdict (`games.privacy.sight`)
with the counts of wrong invite codes, for the API's reads and the streams alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.models import Game
from games.privacy import Sight, sight
from players.models import Player
from unoservice.errors import NotFound
from unoservice.throttling import count_invite_code_attempt


def admit(
    game: Game,
    *,
    player: Player | None,
    staff: bool,
    code: str | None,
    meta: Mapping[str, Any],
) -> None:
    """Let `player` (or a staff session) see `game`, or raise `NotFound` as if it did
    not exist (`RateLimited` after too many wrong codes, from the player or their
    address: a right code too is refused then). `meta` is the request's WSGI
    variables, which the counts of wrong codes go by (its address)."""
    verdict = sight(game, player=player, staff=staff, code=code)
    if verdict is Sight.SEEN:
        return
    if verdict is not Sight.HIDDEN:
        attempt = count_invite_code_attempt(player=player, meta=meta)
        if verdict is Sight.RIGHT_CODE:
            attempt.release()
            return
    raise NotFound("no such game")
