"""What every bot needs: colour counting, card counting, and the odds of a challenge."""

from __future__ import annotations

from collections.abc import Iterable

from games.engine import Move, PlayerView
from games.engine.cards import COLOR_OF, NO_COLOR

# Challenging beats accepting when P(guilty) * 8 > (1 - P(guilty)) * 2 in cards:
# guilty swings 4 cards each way, innocent costs the challenger 2 more.
CHALLENGE_THRESHOLD = 0.2


def color_counts(cards: Iterable[int]) -> list[int]:
    counts = [0, 0, 0, 0]
    for card in cards:
        color = COLOR_OF[card]
        if color != NO_COLOR:
            counts[color] += 1
    return counts


def best_color(cards: Iterable[int]) -> int:
    """The colour held most (ties to red, yellow, green, blue in that order)."""
    counts = color_counts(cards)
    return counts.index(max(counts))


def guilt_probability(view: PlayerView) -> float:
    """The chance that the accused held the previous colour, if their hand were a
    random draw from the cards this seat cannot see."""
    pending = view.pending
    if pending is None or pending.type != "challenge" or pending.previous_color < 0:
        return 0.0
    unseen = view.unseen()
    of_color = sum(1 for card in unseen if COLOR_OF[card] == pending.previous_color)
    held = view.card_counts[pending.accused]
    p_none = 1.0
    for i in range(held):
        remaining = len(unseen) - i
        if remaining <= 0:
            break
        p_none *= max(remaining - of_color, 0) / remaining
    return 1.0 - p_none


def with_uno(view: PlayerView, move: Move) -> Move:
    """Say UNO with the second-to-last card."""
    if move.action == "play" and len(view.hand) == 2:
        return Move("play", card=move.card, color=move.color, target=move.target, uno=True)
    return move


def to_act(view: PlayerView) -> int:
    return view.pending.seat if view.pending is not None else view.current
