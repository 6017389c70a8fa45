"""Invite codes of private games: how they are drawn and how a typed code is read.

A code is 8 characters drawn with `secrets` from 31 letters and digits that cannot
be mistaken for one another (no 0/O, 1/I/L): 31**8, about 8.5e11, codes. Who may see
a private game is `games.privacy`'s business; keeping the codes of open games unique
is the database's (`Game.Meta.constraints`) and `services.game_create`'s.
"""

from __future__ import annotations

import secrets

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
# The longest text read as a code: room for spaces and hyphens typed between groups.
MAX_TYPED_LENGTH = 32
_LETTERS = frozenset(ALPHABET)
_IGNORED = str.maketrans("", "", " \t\r\n-")
# What `read_code` takes, as a regular expression (for the API's schema).
TYPED_PATTERN = rf"^[ \t\r\n-]*(?:[{ALPHABET}{ALPHABET.lower()}][ \t\r\n-]*){{{CODE_LENGTH}}}$"


def new_code() -> str:
    """A fresh code, drawn with the operating system's randomness."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def read_code(typed: str) -> str | None:
    """The code `typed` stands for: upper case, with spaces and hyphens anywhere left
    out ("abcd-efgh" is "ABCDEFGH"); None when that is not 8 characters of the
    alphabet, so it cannot be anybody's code."""
    code = typed.translate(_IGNORED).upper()
    if len(code) != CODE_LENGTH or not _LETTERS.issuperset(code):
        return None
    return code
