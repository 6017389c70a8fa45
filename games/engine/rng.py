"""Seed derivation. Every random choice in a game comes from its one stored seed.

Sub-seeds are derived by hashing, so a round or a reshuffle can be reproduced on its
own without replaying an RNG stream, and a snapshot needs no RNG state (a Mersenne
Twister state alone would be ten times the size of a whole snapshot).
"""

from __future__ import annotations

import hashlib
import random
from typing import Final

# New games draw their seed below 2^53 and derive round seeds as wide, so that every
# seed a client reads is a JSON number any parser holds exactly (a double is exact up
# to 2^53 - 1). Games dealt before kept 63 bits: their snapshot says nothing of
# `seed_bits`, and they replay with the derivation they were dealt with.
SEED_BITS: Final = 53
LEGACY_SEED_BITS: Final = 63


def derive(seed: int, *parts: int | str) -> int:
    """A 63-bit seed derived from `seed` and `parts`, stable across Python versions."""
    text = ":".join([str(seed), *(str(part) for part in parts)])
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def shuffled(cards: list[int], seed: int) -> None:
    """Shuffle `cards` in place, deterministically from `seed`."""
    random.Random(seed).shuffle(cards)


def round_seed(game_seed: int, round_no: int, bits: int = SEED_BITS) -> int:
    """The seed of one round, `bits` wide: its deal, dealer (round 1) and every
    reshuffle. The high bits of the 63-bit derivation, so a 63-bit game keeps its own."""
    return derive(game_seed, "round", round_no) >> (LEGACY_SEED_BITS - bits)


def new_seed() -> int:
    """A fresh random game seed, for games created without one."""
    return random.SystemRandom().getrandbits(SEED_BITS)
