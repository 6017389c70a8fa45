"""Seed derivation. Every random choice in a game comes from its one stored seed.

Games are dealt by `uno-deal/1` (`fair`: a 256-bit server seed as hex, with every
seat's client seed) since deals became checkable; a game given an integer seed, and
every game dealt before, is dealt by the Mersenne Twister from that integer
(`mt19937/53`, or `mt19937/63` for the oldest), and replays as it always did.

Sub-seeds are derived by hashing, so a round or a reshuffle can be reproduced on its
own without replaying an RNG stream, and a snapshot needs no RNG state (a Mersenne
Twister state alone would be ten times the size of a whole snapshot).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Final

from . import fair

# New games draw their seed below 2^53 and derive round seeds as wide, so that every
# seed a client reads is a JSON number any parser holds exactly (a double is exact up
# to 2^53 - 1). Games dealt before kept 63 bits: their snapshot says nothing of
# `seed_bits`, and they replay with the derivation they were dealt with.
SEED_BITS: Final = 53
LEGACY_SEED_BITS: Final = 63


def derive(seed: int | str, *parts: int | str) -> int:
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


def algorithm_of(seed: int | str, bits: int) -> str:
    """The name of the algorithm a game with `seed` (and `bits`) is dealt by."""
    return fair.ALGORITHM if isinstance(seed, str) else f"mt19937/{bits}"


def round_key(seed: int | str, bits: int, client_seeds: Sequence[str], round_no: int) -> int | str:
    """The seed of round `round_no`: hex for `uno-deal/1`, an integer before."""
    if isinstance(seed, str):
        return fair.round_seed(seed, client_seeds, round_no)
    return round_seed(seed, round_no, bits)


def shuffle_round(cards: list[int], key: int | str, index: int) -> None:
    """Shuffle number `index` of the round whose seed is `key`."""
    if isinstance(key, str):
        fair.shuffled(cards, key, index)
    else:
        shuffled(cards, derive(key, "shuffle", index))


def first_dealer(key: int | str, players: int) -> int:
    """The dealer of round 1, from round 1's seed `key`."""
    if isinstance(key, str):
        return fair.first_dealer(key, players)
    return derive(key, "dealer") % players


def commitment(seed: int | str, bits: int) -> str:
    """The SHA-256 a game's view publishes before its deal (docs/fairness.md): of the
    algorithm's name, a zero byte and the seed (a server seed's 32 bytes; an integer
    seed's decimal digits)."""
    if isinstance(seed, str):
        return fair.commitment(seed)
    return hashlib.sha256(f"{algorithm_of(seed, bits)}\x00{seed}".encode()).hexdigest()
