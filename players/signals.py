"""What changes to players tell the apps built on them (the players app depends on
none of them)."""

from __future__ import annotations

from django.dispatch import Signal

# Sent inside the transaction that replaced a player's token or disabled them, with
# `player` and `kept_token_hash` (the token that still works; None when none does).
# The games app ends the streams and tickets of any other token (`games.live.revoke`).
token_revoked = Signal()
