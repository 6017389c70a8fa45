"""What changes to players tell the apps built on them (the players app depends on
none of them)."""

from __future__ import annotations

from django.dispatch import Signal

# Sent inside the transaction that ended some of a player's sessions (signed out,
# replaced, expired past the cap) or disabled them, with `player` and `token_hashes`
# (the tokens that stop working). The games app ends those tokens' streams and
# tickets (`games.live.revoke`).
token_revoked = Signal()

# Sent once a player's account was deleted (`players.accounts.erasure`), after that
# change's transaction, with `player` (already under the placeholder name). The games app leaves
# the player's open games and puts the placeholder in the seats of every game they
# played (`games.services.erasure`).
player_erased = Signal()
