"""Deals anyone can check: `uno-deal/1`, specified byte for byte in docs/fairness.md.

The service draws a 256-bit server seed and publishes its SHA-256 commitment before
any player sends a seed of their own. Each round's seed is an HMAC of the server seed
over every seat's client seed and the round number, and every shuffle's order is an
unbiased Fisher-Yates driven by an HMAC-SHA256 keystream under the round's seed. Once
the game is over the seeds are revealed, and anyone can redo every step: only the
standard library's `hashlib` and `hmac` here, as any language has.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import secrets
import struct
from collections.abc import Sequence
from typing import Final

ALGORITHM: Final = "uno-deal/1"
SERVER_SEED_BYTES: Final = 32
MAX_CLIENT_SEED_LENGTH: Final = 64
_WORD = 2**32
_BLOCK_WORDS: Final = 8  # one HMAC-SHA256 block is 32 bytes: eight 32-bit words
_PREFIX: Final = ALGORITHM.encode()
_SERVER_SEED: Final = re.compile(r"[0-9a-f]{64}")
_CLIENT_SEED: Final = re.compile(r"[0-9a-f]{1,64}")


class DealError(ValueError):
    """A seed that is not a seed of this algorithm."""


def new_server_seed() -> str:
    """A fresh server seed from the operating system's CSPRNG, as 64 hex digits."""
    return secrets.token_hex(SERVER_SEED_BYTES)


def new_client_seed() -> str:
    """A client seed made for a player who sent none: 32 hex digits."""
    return secrets.token_hex(16)


def server_seed_bytes(server_seed: str) -> bytes:
    if not _SERVER_SEED.fullmatch(server_seed):
        raise DealError("a server seed is 64 lowercase hex digits")
    return bytes.fromhex(server_seed)


def client_seed_problem(client_seed: str) -> str | None:
    """Why `client_seed` is not one (None when it is): 1 to 64 lowercase hex digits.
    Hex, so that every language encodes it to the same bytes, and so that the log,
    which shows every seed to everyone once the game is over, carries no words."""
    if not 1 <= len(client_seed) <= MAX_CLIENT_SEED_LENGTH:
        return f"must be 1 to {MAX_CLIENT_SEED_LENGTH} characters"
    if not _CLIENT_SEED.fullmatch(client_seed):
        return "may hold lowercase hex digits only (0-9, a-f)"
    return None


def deal_problem(server_seed: str, client_seeds: Sequence[str], seats: int) -> str | None:
    """Why these are not the seeds of a deal for `seats` seats (None when they are):
    a server seed, and a client seed per seat, empty for a bot's. Checked with every
    table read back, so it stays a few regular expressions."""
    if not _SERVER_SEED.fullmatch(server_seed):
        return "a server seed is 64 lowercase hex digits"
    if len(client_seeds) != seats:
        return f"a {ALGORITHM} deal needs one client seed per seat"
    for seed in client_seeds:
        if not isinstance(seed, str) or (seed and not _CLIENT_SEED.fullmatch(seed)):
            return "a client seed is 1 to 64 lowercase hex digits"
    return None


def commitment(server_seed: str) -> str:
    """SHA-256 of the algorithm's name, a zero byte and the server seed's 32 bytes."""
    digest = hashlib.sha256(_PREFIX + b"\x00" + server_seed_bytes(server_seed))
    return digest.hexdigest()


def round_seed(server_seed: str, client_seeds: Sequence[str], round_no: int) -> str:
    """The seed of round `round_no` (from 1): HMAC-SHA256 keyed by the server seed over
    the name, "round", the round number and every seat's client seed in seat order,
    each prefixed by its length (a bot's seat has the empty seed)."""
    return _round_seed(server_seed, tuple(client_seeds), round_no)


@functools.lru_cache(maxsize=4096)
def _round_seed(server_seed: str, client_seeds: tuple[str, ...], round_no: int) -> str:
    # Cached: every shuffle of a round, and every replay of it, asks again.
    message = bytearray(_PREFIX + b" round\x00")
    message += struct.pack(">IB", round_no, len(client_seeds))
    for client_seed in client_seeds:
        encoded = client_seed.encode("ascii")
        message += struct.pack(">H", len(encoded)) + encoded
    key = server_seed_bytes(server_seed)
    return hmac.digest(key, bytes(message), "sha256").hex()


class Stream:
    """Unbiased integers from the keystream HMAC-SHA256(round seed, label || index ||
    block counter), read as big-endian 32-bit words."""

    __slots__ = ("_block", "_key", "_label", "_words")

    def __init__(self, round_seed_hex: str, label: str, index: int) -> None:
        self._key = bytes.fromhex(round_seed_hex)
        self._label = _PREFIX + b" " + label.encode() + b"\x00" + struct.pack(">I", index)
        self._block = 0
        self._words: list[int] = []

    def _refill(self, words: int) -> None:
        # Blocks are made ahead in one batch: a shuffle of 108 needs about fourteen.
        blocks = -(-words // _BLOCK_WORDS)
        data = b"".join(
            hmac.digest(self._key, self._label + struct.pack(">I", self._block + b), "sha256")
            for b in range(blocks)
        )
        self._block += blocks
        unpacked = struct.unpack(f">{blocks * _BLOCK_WORDS}I", data)
        # Kept reversed so that taking the next word is a pop from the end.
        self._words[:0] = unpacked[::-1]

    def below(self, bound: int) -> int:
        """A uniform integer in [0, bound): a word at or above the largest multiple of
        `bound` under 2^32 is thrown away and the next one read (no modulo bias)."""
        if not 0 < bound <= _WORD:
            raise DealError(f"cannot draw below {bound}")
        limit = _WORD - _WORD % bound
        while True:
            if not self._words:
                self._refill(_BLOCK_WORDS)
            word = self._words.pop()
            if word < limit:
                return word % bound

    def shuffle(self, cards: list[int]) -> None:
        """Fisher-Yates from the end: position i swaps with j = `below(i + 1)`."""
        if len(cards) > len(self._words) + 1:
            self._refill(len(cards) - 1 - len(self._words))
        words = self._words
        for i in range(len(cards) - 1, 0, -1):
            # `below(i + 1)`, inlined: a shuffle is the hot path of every deal.
            bound = i + 1
            limit = _WORD - _WORD % bound
            while True:
                if not words:
                    self._refill(_BLOCK_WORDS)
                word = words.pop()
                if word < limit:
                    break
            j = word % bound
            cards[i], cards[j] = cards[j], cards[i]


def shuffled(cards: list[int], round_seed_hex: str, index: int) -> None:
    """Shuffle `cards` in place: the round's shuffle number `index` (0 is the deal)."""
    Stream(round_seed_hex, "shuffle", index).shuffle(cards)


def first_dealer(round_one_seed: str, players: int) -> int:
    """The dealer of round 1: a uniform seat from round 1's "dealer" stream."""
    return Stream(round_one_seed, "dealer", 0).below(players)
