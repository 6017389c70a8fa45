"""Scenarios for the `force_play` house rule (docs/rules.md, "House rules").

When the card just drawn is playable, playing it is the only legal move (a Wild still
needs its colour); when it is not, the turn ends as usual.
"""

from __future__ import annotations

import pytest

from games.engine import (
    IllegalMove,
    MalformedMove,
    Move,
    Pending,
    Rules,
    apply,
    legal_moves,
)
from games.engine.cards import BLUE, CODE_OF
from games.engine.position import build_state, card_in_hand, hand_codes

FORCE_PLAY = Rules(force_play=True)
DRAW = Move("draw")
PASS = Move("pass")


def play_move(state, seat, code, **fields):
    return Move("play", card=card_in_hand(state, seat, code), **fields)


def types(events):
    return [e.type for e in events]


def table(draw, hand=("G1", "B2"), **kwargs):
    """Seat 0 to play on a red 5 holding `hand`, with `draw` next on the pile."""
    kwargs.setdefault("rules", FORCE_PLAY)
    return build_state(
        [list(hand), ["Y7", "Y8", "Y9"], ["B7", "B8", "B9"]],
        top="R5",
        draw=draw,
        **kwargs,
    )


def assert_rejected(state, seat, move, error=IllegalMove):
    before = state.to_snapshot()
    with pytest.raises(error):
        apply(state, seat, move)
    assert state.to_snapshot() == before


def test_a_playable_drawn_card_must_be_played_and_cannot_be_kept():
    state = table(["R8", "Y1"])

    events = apply(state, 0, DRAW)

    assert types(events) == ["cards_drawn"]
    eight = card_in_hand(state, 0, "R8")
    assert state.pending == Pending("drawn_card", 0, card=eight)
    assert legal_moves(state, 0) == [Move("play", card=eight)]
    assert_rejected(state, 0, PASS)
    assert_rejected(state, 0, DRAW)

    events = apply(state, 0, Move("play", card=eight))

    assert types(events) == ["card_played"]
    assert state.top_card == eight
    assert hand_codes(state, 0) == ["G1", "B2"]
    assert state.current == 1


def test_a_card_matching_by_number_is_forced_too():
    state = table(["B5"])
    apply(state, 0, DRAW)
    assert legal_moves(state, 0) == [play_move(state, 0, "B5")]


def test_other_playable_cards_in_hand_cannot_be_played_instead():
    state = table(["R8"], hand=("R3", "W"))
    apply(state, 0, DRAW)

    assert legal_moves(state, 0) == [play_move(state, 0, "R8")]
    assert_rejected(state, 0, play_move(state, 0, "R3"))
    assert_rejected(state, 0, play_move(state, 0, "W", color=BLUE))


@pytest.mark.parametrize("code", ["W", "W+4"])
def test_a_drawn_wild_must_be_played_naming_one_of_the_four_colours(code):
    state = table([code])
    apply(state, 0, DRAW)
    wild = card_in_hand(state, 0, code)

    moves = legal_moves(state, 0)

    assert sorted(m.color for m in moves) == [0, 1, 2, 3]
    assert set(moves) == {Move("play", card=wild, color=color) for color in range(4)}
    assert_rejected(state, 0, PASS)
    assert_rejected(state, 0, Move("play", card=wild), MalformedMove)

    events = apply(state, 0, Move("play", card=wild, color=BLUE))

    assert events[0].type == "card_played"
    assert events[0].data["color"] == "blue"
    assert state.color == BLUE


def test_an_unplayable_drawn_card_ends_the_turn_as_usual():
    state = table(["Y1", "R8"])

    events = apply(state, 0, DRAW)

    assert types(events) == ["cards_drawn", "turn_passed"]
    assert [CODE_OF[c] for c in events[0].data["cards"]] == ["Y1"]
    assert hand_codes(state, 0) == ["G1", "B2", "Y1"]
    assert state.pending is None
    assert state.current == 1
    assert legal_moves(state, 0) == []


def test_holding_a_playable_card_one_may_still_draw_and_then_be_forced():
    state = table(["R8"], hand=("R3", "B2"))
    assert DRAW in legal_moves(state, 0)

    apply(state, 0, DRAW)

    assert legal_moves(state, 0) == [play_move(state, 0, "R8")]


def test_without_force_play_a_playable_drawn_card_may_be_kept():
    state = table(["R8"], rules=Rules())
    apply(state, 0, DRAW)

    assert set(legal_moves(state, 0)) == {play_move(state, 0, "R8"), PASS}
    apply(state, 0, PASS)
    assert hand_codes(state, 0) == ["G1", "B2", "R8"]
    assert state.current == 1
