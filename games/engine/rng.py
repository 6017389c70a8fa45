"""Seed derivation. Every random choice in a game comes from its one stored seed.

Sub-seeds are derived by hashing, so a round or a reshuffle can be reproduced on its
own without replaying an RNG stream, and a snapshot needs no RNG state (a Mersenne
Twister state alone would be ten times the size of a whole snapshot).
"""

from __future__ import annotations

import hashlib
import random


def derive(seed: int, *parts: int | str) -> int:
    """A 63-bit seed derived from `seed` and `parts`, stable across Python versions."""
    text = ":".join([str(seed), *(str(part) for part in parts)])
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def shuffled(cards: list[int], seed: int) -> None:
    """Shuffle `cards` in place, deterministically from `seed`."""
    random.Random(seed).shuffle(cards)


def new_seed() -> int:
    """A fresh random game seed, for games created without one."""
    return random.SystemRandom().getrandbits(63)
