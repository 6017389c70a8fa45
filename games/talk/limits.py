"""How fast a player may talk at one table: `TALK_MESSAGES_PER_WINDOW` messages per
`TALK_WINDOW_SECONDS` per (player, game), in fixed windows counted with the cache's
atomic increment (`unoservice.throttling.count_attempt`): exact across processes
with the shared cache (Redis), whatever arrives at once."""

from __future__ import annotations

import uuid

from django.conf import settings

from unoservice.throttling import FixedWindowThrottle, count_attempt


class TalkThrottle(FixedWindowThrottle):
    """Messages of one player at one game's table. Its rate is read from the
    settings when counted, not from DRF's table of rates."""

    scope = "talk"

    def __init__(self) -> None:
        self.num_requests = settings.TALK_MESSAGES_PER_WINDOW
        self.duration = settings.TALK_WINDOW_SECONDS
        self.rate = f"{self.num_requests}/{self.duration}s"


def count_message(*, player_id: object, game_id: uuid.UUID) -> None:
    """Count one message of `player_id` at `game_id`'s table; `RateLimited` (with the
    seconds to wait) when the window holds its number already. A refused message
    is not counted."""
    count_attempt(
        {TalkThrottle: f"{player_id}:{game_id}"},
        refusal=f"at most {settings.TALK_MESSAGES_PER_WINDOW} messages per "
        f"{settings.TALK_WINDOW_SECONDS} seconds at one table; wait before saying more",
    )
