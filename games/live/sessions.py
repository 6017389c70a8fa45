"""The streams of this process signed in with their players' tokens, ended when a
token stops working (its device signed out, replaced by a new token, expired, or its
player disabled).

Every stream opened by a player, and every long poll that waits, is signed in
(`Session`) with the hash of the token it was opened with (a ticket's stream: the
token of the session that asked for the ticket). A revocation, "player P's tokens
H1, H2 stop working" (`games.services.notify`, sent by `games.live.revoke` when the
change commits), ends the player's sessions with those hashes (`Sessions.revoke`).
The hub hears revocations with the games' changes and, at each catch-up, checks the
sessions' tokens against the database (`Sessions.stale`), so that a lost revocation
ends its streams all the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from players.models import Player, PlayerSession
from players.sessions import idle_cutoff

# How long a revocation is remembered for the streams that sign in after it was heard
# but checked their token before it committed; later ones are the catch-up's to end.
REMEMBER_SECONDS = 30.0
# Tokens asked about in one query (a statement takes at most 65,535 parameters).
USABLE_CHUNK = 5000


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
        # player id -> (monotonic time last heard, the token hashes revoked)
        self.revoked: dict[str, tuple[float, frozenset[str]]] = {}

    def __bool__(self) -> bool:
        return bool(self.open)

    @contextlib.contextmanager
    def signed_in(self, player: Player | None) -> Iterator[Session | None]:
        """Sign a stream of `player` in while the block runs (None: no player, a
        staff session's stream, signs nothing in)."""
        if player is None or player.session is None:
            yield None
            return
        session = Session(str(player.pk), player.session.token_hash)
        self.open.setdefault(session.player_id, set()).add(session)
        heard = self.revoked.get(session.player_id)
        if heard is not None and session.token_hash in heard[1]:
            session.end()
        try:
            yield session
        finally:
            held = self.open.get(session.player_id)
            if held is not None:
                held.discard(session)
                if not held:
                    del self.open[session.player_id]

    def revoke(self, player_id: str, token_hashes: frozenset[str]) -> None:
        """End the sessions of `player_id` with any of these tokens."""
        earlier = self.revoked.get(player_id)
        revoked = token_hashes if earlier is None else earlier[1] | token_hashes
        self.revoked[player_id] = (time.monotonic(), revoked)
        for session in list(self.open.get(player_id, ())):
            if session.token_hash in token_hashes:
                session.end()

    def forget_old(self) -> None:
        """Forget the revocations heard more than `REMEMBER_SECONDS` ago."""
        before = time.monotonic() - REMEMBER_SECONDS
        for player_id, (at, _) in list(self.revoked.items()):
            if at < before:
                del self.revoked[player_id]

    def token_hashes(self) -> list[str]:
        """The tokens the open sessions signed in with."""
        return list({s.token_hash for held in self.open.values() for s in held})

    def stale(self, usable: set[str], read_began: float) -> None:
        """End the sessions whose token is not in `usable` (`usable_tokens` of
        `token_hashes`, read from `read_began` on). Only sessions signed in before
        the read: a later one's token was not asked about."""
        for held in list(self.open.values()):
            for session in list(held):
                if session.signed_in_at < read_began and session.token_hash not in usable:
                    session.end()


def usable_tokens(token_hashes: list[str]) -> set[str]:
    """Those of these tokens that still work: their session is there and not
    expired, its player not disabled (a query per `USABLE_CHUNK` tokens)."""
    usable: set[str] = set()
    cutoff = idle_cutoff()
    for start in range(0, len(token_hashes), USABLE_CHUNK):
        rows = PlayerSession.objects.filter(
            token_hash__in=token_hashes[start : start + USABLE_CHUNK],
            last_used_at__gte=cutoff,
            player__disabled_at__isnull=True,
        )
        usable.update(rows.values_list("token_hash", flat=True))
    return usable
