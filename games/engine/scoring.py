"""Round scoring: the winner takes the value of every card left in the other hands."""

from __future__ import annotations

from collections.abc import Iterable

from .cards import POINTS_OF


def hand_points(hand: Iterable[int]) -> int:
    """Numbers at face value; Skip, Reverse, Draw Two 20; wilds 50."""
    return sum(POINTS_OF[c] for c in hand)


def round_points(hands: list[list[int]], winner: int) -> int:
    return sum(hand_points(hand) for seat, hand in enumerate(hands) if seat != winner)
