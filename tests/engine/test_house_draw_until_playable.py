"""Scenarios for the `draw_until_playable` house rule (docs/rules.md, "House rules").

A `draw` keeps drawing until a playable card comes up, which may then be played or
kept; if the piles run out first, the turn ends.
"""

from __future__ import annotations

import pytest

from games.engine import IllegalMove, Move, Pending, Rules, apply, legal_moves
from games.engine.cards import CODE_OF
from games.engine.position import build_state, card_in_hand, hand_codes

UNTIL_PLAYABLE = Rules(draw_until_playable=True)
DRAW = Move("draw")
PASS = Move("pass")


def play_move(state, seat, code, **fields):
    return Move("play", card=card_in_hand(state, seat, code), **fields)


def codes(cards):
    return [CODE_OF[c] for c in cards]


def types(events):
    return [e.type for e in events]


def table(draw, hand=("G1", "B2"), **kwargs):
    """Seat 0 to play on a red 5 holding `hand`, with `draw` next on the pile."""
    kwargs.setdefault("rules", UNTIL_PLAYABLE)
    return build_state(
        [list(hand), ["Y7", "Y8", "Y9"], ["B7", "B8", "B9"]],
        top="R5",
        draw=draw,
        **kwargs,
    )


def test_drawing_continues_until_a_playable_card_comes_up_in_one_event():
    state = table(["Y1", "G2", "B9", "R8", "Y3"])

    events = apply(state, 0, DRAW)

    assert types(events) == ["cards_drawn"]
    drawn = events[0]
    assert drawn.seat == 0
    assert drawn.data["count"] == 4
    assert drawn.data["reason"] == "draw"
    assert codes(drawn.data["cards"]) == ["Y1", "G2", "B9", "R8"]
    assert hand_codes(state, 0) == ["G1", "B2", "Y1", "G2", "B9", "R8"]
    assert state.pending == Pending("drawn_card", 0, card=card_in_hand(state, 0, "R8"))
    assert state.current == 0
    assert CODE_OF[state.draw_pile[-1]] == "Y3"


@pytest.mark.parametrize(
    ("draw", "stops_at"),
    [
        (["Y1", "B5", "G3"], "B5"),  # the top card's number
        (["Y1", "G2", "W", "G3"], "W"),  # a Wild
        (["Y1", "W+4", "G3"], "W+4"),  # a Wild Draw Four
        (["R9", "G3"], "R9"),  # the first card: one card drawn
    ],
)
def test_any_playable_card_ends_the_drawing(draw, stops_at):
    state = table(draw)

    events = apply(state, 0, DRAW)

    cards = codes(events[0].data["cards"])
    assert cards == draw[: draw.index(stops_at) + 1]
    assert events[0].data["count"] == len(cards)
    assert state.pending is not None
    assert state.pending.type == "drawn_card"
    assert CODE_OF[state.pending.card] == stops_at


def test_the_playable_card_drawn_may_be_played_at_once():
    state = table(["Y1", "G2", "R8"])
    apply(state, 0, DRAW)
    eight = card_in_hand(state, 0, "R8")
    assert set(legal_moves(state, 0)) == {Move("play", card=eight), PASS}

    events = apply(state, 0, Move("play", card=eight))

    assert types(events) == ["card_played"]
    assert state.top_card == eight
    assert hand_codes(state, 0) == ["G1", "B2", "Y1", "G2"]
    assert state.pending is None
    assert state.current == 1


def test_the_playable_card_drawn_may_be_kept():
    state = table(["Y1", "G2", "R8"])
    apply(state, 0, DRAW)

    events = apply(state, 0, PASS)

    assert types(events) == ["turn_passed"]
    assert hand_codes(state, 0) == ["G1", "B2", "Y1", "G2", "R8"]
    assert state.pending is None
    assert state.current == 1


def test_only_the_card_that_stopped_the_drawing_may_be_played():
    state = table(["Y1", "G2", "R8"], hand=("R3", "B2"))
    apply(state, 0, DRAW)
    before = state.to_snapshot()

    for code in ("R3", "Y1", "G2"):
        with pytest.raises(IllegalMove):
            apply(state, 0, play_move(state, 0, code))
    assert state.to_snapshot() == before


def test_when_the_piles_run_out_before_a_playable_card_the_turn_ends():
    state = table(["G1", "B2"], hand=("G3", "B4"), rest="none")

    events = apply(state, 0, DRAW)

    assert types(events) == ["cards_drawn", "turn_passed"]
    assert events[0].data["count"] == 2
    assert codes(events[0].data["cards"]) == ["G1", "B2"]
    assert hand_codes(state, 0) == ["G3", "B4", "G1", "B2"]
    assert state.draw_pile == []
    assert state.pending is None
    assert state.current == 1


def test_drawing_reshuffles_the_discards_and_ends_the_turn_when_both_piles_are_spent():
    state = table(["G1"], hand=("G3", "B4"), discard=["Y3", "B6"], rest="none")

    events = apply(state, 0, DRAW)

    assert types(events) == ["cards_drawn", "turn_passed"]
    assert events[0].data["count"] == 3
    assert sorted(codes(events[0].data["cards"])) == ["B6", "G1", "Y3"]
    assert state.draw_pile == []
    assert codes(state.discard) == ["R5"]
    assert state.pending is None
    assert state.current == 1


def test_drawing_goes_on_into_the_reshuffled_discards_until_a_playable_card():
    state = table(["G1"], hand=("G3", "B4"), discard=["Y3", "R9"], rest="none")

    events = apply(state, 0, DRAW)

    cards = codes(events[0].data["cards"])
    assert types(events) == ["cards_drawn"]
    assert cards[0] == "G1"
    assert cards[-1] == "R9"
    assert events[0].data["count"] == len(cards)
    assert CODE_OF[state.pending.card] == "R9"
    assert state.current == 0


def test_without_the_rule_a_draw_takes_one_card_and_an_unplayable_one_ends_the_turn():
    state = table(["Y1", "G2", "R8"], rules=Rules())

    events = apply(state, 0, DRAW)

    assert types(events) == ["cards_drawn", "turn_passed"]
    assert codes(events[0].data["cards"]) == ["Y1"]
    assert state.pending is None
    assert state.current == 1


def test_a_draw_two_still_makes_the_next_player_draw_exactly_two():
    state = build_state(
        [["R+2", "G1", "G2"], ["Y7", "Y8", "Y9"], ["B7", "B8", "B9"]],
        top="R5",
        draw=["Y1", "Y2", "Y3", "R8"],
        rules=UNTIL_PLAYABLE,
    )

    events = apply(state, 0, play_move(state, 0, "R+2"))

    assert events[1].type == "cards_drawn"
    assert events[1].data["count"] == 2
    assert hand_codes(state, 1) == ["Y7", "Y8", "Y9", "Y1", "Y2"]
