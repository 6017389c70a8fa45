"""Invite codes of private games (`unoservice.codes`: how a code is drawn and how a
typed one is read). Who may see a private game is `games.privacy`'s business;
keeping the codes of open games unique is the database's (`Game.Meta.constraints`)
and `services.game_create`'s."""

from __future__ import annotations

from unoservice.codes import (
    ALPHABET,
    CODE_LENGTH,
    MAX_TYPED_LENGTH,
    TYPED_PATTERN,
    new_code,
    read_code,
)

__all__ = ["ALPHABET", "CODE_LENGTH", "MAX_TYPED_LENGTH", "TYPED_PATTERN", "new_code", "read_code"]
