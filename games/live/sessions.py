"""The streams of this process signed in with their players' tokens, ended when a
token stops working (replaced by a new one, or its player disabled).

Every stream opened by a player, and every long poll that waits, is signed in
(`Session`) with the hash of the token it was opened with (a ticket's stream: its
player's token when the ticket was redeemed). A revocation, "player P keeps token
hash H" (`games.services.notify`, sent by `games.live.revoke` when the change commits),
ends the player's sessions with any other hash (`Sessions.revoke`). The hub hears
revocations with the games' changes and, at each catch-up, compares the sessions
with the players' rows (`Sessions.stale`), so that a lost revocation ends its
streams all the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from players.models import Player

# How long a revocation is remembered for the streams that sign in after it was heard
# but checked their token before it committed; later ones are the catch-up's to end.
REMEMBER_SECONDS = 30.0


def _future() -> asyncio.Future[None]:
    return asyncio.get_running_loop().create_future()


@dataclass(eq=False)
class Session:
    """An open stream's (or waiting long poll's) hold on its player's token: `ended`
    resolves when that token stops working."""

    player_id: str
    token_hash: str
    ended: asyncio.Future[None] = field(default_factory=_future)
    signed_in_at: float = field(default_factory=time.monotonic)

    def end(self) -> None:
        if not self.ended.done():
            self.ended.set_result(None)


class Sessions:
    """The sessions open in this process, per player id (used on the event loop)."""

    def __init__(self) -> None:
        self.open: dict[str, set[Session]] = {}
        # player id -> (monotonic time heard, the token hash kept, None for none)
        self.revoked: dict[str, tuple[float, str | None]] = {}

    def __bool__(self) -> bool:
        return bool(self.open)

    @contextlib.contextmanager
    def signed_in(self, player: Player | None) -> Iterator[Session | None]:
        """Sign a stream of `player` in while the block runs (None: no player, a
        staff session's stream, signs nothing in)."""
        if player is None:
            yield None
            return
        session = Session(str(player.pk), player.token_hash)
        self.open.setdefault(session.player_id, set()).add(session)
        heard = self.revoked.get(session.player_id)
        if heard is not None and heard[1] != session.token_hash:
            session.end()
        try:
            yield session
        finally:
            held = self.open.get(session.player_id)
            if held is not None:
                held.discard(session)
                if not held:
                    del self.open[session.player_id]

    def revoke(self, player_id: str, kept_token_hash: str | None) -> None:
        """End the sessions of `player_id` with any token but the kept one."""
        self.revoked[player_id] = (time.monotonic(), kept_token_hash)
        for session in list(self.open.get(player_id, ())):
            if session.token_hash != kept_token_hash:
                session.end()

    def forget_old(self) -> None:
        """Forget the revocations heard more than `REMEMBER_SECONDS` ago."""
        before = time.monotonic() - REMEMBER_SECONDS
        for player_id, (at, _) in list(self.revoked.items()):
            if at < before:
                del self.revoked[player_id]

    def stale(self, usable: dict[str, str], read_began: float) -> None:
        """End the sessions whose token is not their player's usable one in `usable`
        (`usable_tokens`, read from `read_began` on). Only sessions signed in before
        the read: a later one may carry a token newer than the read."""
        for player_id, held in list(self.open.items()):
            for session in list(held):
                if session.signed_in_at < read_began and session.token_hash != usable.get(
                    player_id
                ):
                    session.end()


def usable_tokens(player_ids: list[str]) -> dict[str, str]:
    """The token hash of each of these players who is not disabled (a query)."""
    rows = Player.objects.filter(pk__in=player_ids, disabled_at__isnull=True)
    return {str(pk): token_hash for pk, token_hash in rows.values_list("pk", "token_hash")}
