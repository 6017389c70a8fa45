"""Short codes that people pass on by hand: games' invite codes and players' friend
codes. How one is drawn and how a typed one is read, defined once for both.

A code is 8 characters drawn with `secrets` from 31 letters and digits that cannot
be mistaken for one another (no 0/O, 1/I/L): 31**8, about 8.5e11, codes. A typed
code is read in any case, with spaces and hyphens anywhere left out. Keeping codes
unique is the database's business, and the services' that draw them."""

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
