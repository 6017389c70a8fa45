"""Friend codes: what a player passes on (typed, or as a link) so that others can
send them a friend request without knowing their id.

A code is 8 characters drawn with `secrets` from the 31 letters and digits of the
games' invite codes, which cannot be mistaken for one another (no 0/O, 1/I/L), and
a typed code is read as an invite code is (any case, spaces and hyphens ignored).
The alphabet is copied, not imported: the players app imports nothing of games.
Uniqueness is the database's (`Player.friend_code`); the services draw again when
an insert collides."""

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
# The web client's page that sends a friend request to the code's player.
LINK_PREFIX = "/play/friends/"


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


def link(code: str) -> str:
    """The web client's path that opens a friend request to the code's player."""
    return LINK_PREFIX + code
