"""Build a game state from a readable description, as a FEN builds a chess board.

Used to set up exact situations (scenario tests, analysis, puzzles): hands, the top
card and the next cards to draw are given by card code (``"R5"``, ``"B+2"``, ``"W"``,
``"W+4"``, ``"WSH"``, ``"WC"``); every card not named is placed so the deck still
holds all of its cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from .cards import CODE_OF, COLOR_BY_NAME, COLOR_OF, NO_COLOR, Deck
from .state import CLOCKWISE, CustomEffect, GameConfig, GameState, Mode, Rules, ShuffleHandsLastCard


class _Deck:
    def __init__(self, size: int) -> None:
        self.unused = list(range(size))

    def take(self, code: str) -> int:
        for card in self.unused:
            if CODE_OF[card] == code:
                self.unused.remove(card)
                return card
        raise ValueError(f"no card {code!r} left in the deck")


def build_state(
    hands: Sequence[Sequence[str]],
    *,
    top: str,
    color: str | None = None,
    draw: Sequence[str] = (),
    discard: Sequence[str] = (),
    rest: Literal["draw", "discard", "none"] = "draw",
    current: int = 0,
    direction: int = CLOCKWISE,
    dealer: int = 0,
    rules: Rules | None = None,
    target_score: int = 500,
    scores: Sequence[int] | None = None,
    seed: int = 0,
    mode: Mode = "classic",
    partners_see_hands: bool = False,
    deck: Deck = "classic_108",
    shuffle_hands_last_card: ShuffleHandsLastCard = "redeal",
    wild_customizable: CustomEffect = "wild",
) -> GameState:
    """A round in progress with these hands (seat by seat) and `top` on the discards.

    `draw` lists the next cards to draw, first first. `discard` lies under `top`. The
    cards not named go to the bottom of the draw pile (`rest="draw"`), under the
    discards (`"discard"`), or nowhere (`"none"`, for tests of the piles running dry:
    the state then holds fewer than the whole deck).
    `color` is the current colour (required when `top` is a wild).
    """
    config = GameConfig(
        len(hands),
        target_score,
        rules or Rules(),
        mode,
        partners_see_hands,
        deck,
        shuffle_hands_last_card,
        wild_customizable,
    )
    deck_left = _Deck(config.deck_size)
    state = GameState(config, seed)
    state.round = 1
    state.dealer = dealer
    state.hands = [[deck_left.take(code) for code in hand] for hand in hands]
    under = [deck_left.take(code) for code in discard]
    top_card = deck_left.take(top)
    next_cards = [deck_left.take(code) for code in draw]
    leftover = list(deck_left.unused)
    state.draw_pile = list(reversed(next_cards))
    state.discard = [*under, top_card]
    if rest == "draw":
        state.draw_pile = leftover + state.draw_pile
    elif rest == "discard":
        state.discard = leftover + state.discard
    if color is not None:
        state.color = COLOR_BY_NAME[color]
    elif COLOR_OF[top_card] != NO_COLOR:
        state.color = COLOR_OF[top_card]
    else:
        raise ValueError("a wild on top needs the current colour")
    state.current = current
    state.direction = direction
    if scores is not None:
        state.scores = list(scores)
    return state


def hand_codes(state: GameState, seat: int) -> list[str]:
    """The codes of a seat's hand, in order (for readable assertions)."""
    return [CODE_OF[c] for c in state.hands[seat]]


def card_in_hand(state: GameState, seat: int, code: str) -> int:
    """The id of a card with `code` in `seat`'s hand."""
    for card in state.hands[seat]:
        if CODE_OF[card] == code:
            return card
    raise ValueError(f"seat {seat} holds no {code!r}")
