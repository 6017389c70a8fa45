"""Round scoring: the winner takes the value of every card left in the other hands."""

from __future__ import annotations

from collections.abc import Iterable

from .cards import POINTS_OF


def hand_points(hand: Iterable[int]) -> int:
    """Numbers at face value; Skip, Reverse, Draw Two 20; Wild and Wild Draw Four 50;
    Wild Shuffle Hands and Wild Customizable 40."""
    return sum(POINTS_OF[c] for c in hand)


def round_points(hands: list[list[int]], winner: int) -> int:
    return sum(hand_points(hand) for seat, hand in enumerate(hands) if seat != winner)
