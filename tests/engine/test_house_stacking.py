"""Scenarios for the `stacking` house rule (docs/rules.md, "House rules").

Draw Two on Draw Two and Wild Draw Four on Wild Draw Four pass the sum on; the
player who cannot or will not stack draws the whole sum and loses the turn; a
stacked Wild Draw Four may still be challenged (only the last one counts).
"""

from __future__ import annotations

import pytest

from games.engine import IllegalMove, Move, Pending, Rules, apply, legal_moves
from games.engine.cards import BLUE, CODE_OF, GREEN, RED
from games.engine.position import build_state, card_in_hand, hand_codes

STACKING = Rules(stacking=True)
CHALLENGE = Move("challenge")
ACCEPT = Move("accept")
DRAW = Move("draw")


def play(state, seat, code, **fields):
    return apply(state, seat, Move("play", card=card_in_hand(state, seat, code), **fields))


def play_move(state, seat, code, **fields):
    return Move("play", card=card_in_hand(state, seat, code), **fields)


def codes(cards):
    return [CODE_OF[c] for c in cards]


def types(events):
    return [e.type for e in events]


def wild_plays(state, seat, code):
    card = card_in_hand(state, seat, code)
    return {Move("play", card=card, color=color) for color in range(4)}


def assert_rejected(state, seat, move):
    before = state.to_snapshot()
    with pytest.raises(IllegalMove):
        apply(state, seat, move)
    assert state.to_snapshot() == before


# -- Draw Two on Draw Two --------------------------------------------------------------


def test_a_draw_two_on_a_draw_two_passes_the_sum_on_to_the_next_player():
    state = build_state(
        [
            ["R+2", "G4", "G5"],
            ["B+2", "Y6", "Y7"],
            ["G7", "G8", "Y9"],
            ["B3", "B4", "B5"],
        ],
        top="R5",
        rules=STACKING,
    )

    events = play(state, 0, "R+2")
    assert types(events) == ["card_played"]
    assert state.pending == Pending("stack", 1, amount=2)
    assert state.to_act == 1
    assert hand_codes(state, 1) == ["B+2", "Y6", "Y7"]

    events = play(state, 1, "B+2")
    assert types(events) == ["card_played"]
    assert events[0].data["color"] == "blue"
    assert state.pending == Pending("stack", 2, amount=4)
    assert state.to_act == 2
    assert state.color == BLUE
    assert hand_codes(state, 2) == ["G7", "G8", "Y9"]


def test_a_player_facing_a_stack_may_only_stack_a_draw_two_of_any_colour_or_draw():
    state = build_state(
        [
            ["R+2", "G4", "G5"],
            ["B+2", "G+2", "R7", "RS", "RR", "W"],
            ["G7", "G8", "Y9"],
        ],
        top="R5",
        rules=STACKING,
    )
    play(state, 0, "R+2")

    assert set(legal_moves(state, 1)) == {
        play_move(state, 1, "B+2"),
        play_move(state, 1, "G+2"),
        DRAW,
    }
    for code in ("R7", "RS", "RR"):
        assert_rejected(state, 1, play_move(state, 1, code))
    assert_rejected(state, 1, play_move(state, 1, "W", color=RED))
    assert_rejected(state, 1, Move("pass"))
    assert_rejected(state, 1, ACCEPT)
    assert_rejected(state, 1, CHALLENGE)


def test_the_player_who_cannot_stack_draws_the_whole_sum_and_loses_the_turn():
    state = build_state(
        [
            ["R+2", "G4", "G5"],
            ["B+2", "Y6", "Y7"],
            ["G7", "G8", "Y9"],
            ["B3", "B4", "B5"],
        ],
        top="R5",
        draw=["Y1", "Y2", "Y3", "Y4", "Y5"],
        rules=STACKING,
    )
    play(state, 0, "R+2")
    play(state, 1, "B+2")
    assert legal_moves(state, 2) == [DRAW]

    events = apply(state, 2, DRAW)

    assert types(events) == ["cards_drawn", "player_skipped"]
    drawn, skipped = events
    assert drawn.seat == 2
    assert drawn.data["count"] == 4
    assert drawn.data["reason"] == "stack"
    assert codes(drawn.data["cards"]) == ["Y1", "Y2", "Y3", "Y4"]
    assert skipped.seat == 2
    assert hand_codes(state, 2) == ["G7", "G8", "Y9", "Y1", "Y2", "Y3", "Y4"]
    assert state.pending is None
    assert state.current == 3
    assert state.color == BLUE
    assert CODE_OF[state.top_card] == "B+2"


def test_a_player_who_will_not_stack_draws_the_whole_sum_and_keeps_their_draw_two():
    state = build_state(
        [
            ["R+2", "G4", "G5"],
            ["B+2", "Y6", "Y7"],
            ["G+2", "G8", "Y9"],
            ["B3", "B4", "B5"],
        ],
        top="R5",
        draw=["Y1", "Y2", "Y3", "Y4", "Y5"],
        rules=STACKING,
    )
    play(state, 0, "R+2")
    play(state, 1, "B+2")
    assert play_move(state, 2, "G+2") in legal_moves(state, 2)

    events = apply(state, 2, DRAW)

    assert types(events) == ["cards_drawn", "player_skipped"]
    assert events[0].data["count"] == 4
    assert hand_codes(state, 2) == ["G+2", "G8", "Y9", "Y1", "Y2", "Y3", "Y4"]
    assert state.pending is None
    assert state.current == 3


def test_a_single_draw_two_under_stacking_is_drawn_with_draw_and_costs_the_turn():
    state = build_state(
        [["R+2", "G4", "G5"], ["B6", "Y6", "Y7"], ["G7", "G8", "Y9"]],
        top="R5",
        draw=["Y1", "Y2", "Y3"],
        rules=STACKING,
    )
    play(state, 0, "R+2")
    assert state.pending == Pending("stack", 1, amount=2)
    assert legal_moves(state, 1) == [DRAW]

    events = apply(state, 1, DRAW)

    assert types(events) == ["cards_drawn", "player_skipped"]
    assert events[0].seat == 1
    assert events[0].data["count"] == 2
    assert codes(events[0].data["cards"]) == ["Y1", "Y2"]
    assert hand_codes(state, 1) == ["B6", "Y6", "Y7", "Y1", "Y2"]
    assert state.pending is None
    assert state.current == 2


def test_a_stack_can_run_round_the_table_back_to_the_player_who_started_it():
    state = build_state(
        [["R+2", "G+2", "G5"], ["B+2", "Y6", "Y7"], ["Y+2", "G8", "Y9"]],
        top="R5",
        draw=["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8"],
        rules=STACKING,
    )
    play(state, 0, "R+2")
    play(state, 1, "B+2")
    play(state, 2, "Y+2")
    assert state.pending == Pending("stack", 0, amount=6)
    play(state, 0, "G+2")
    assert state.pending == Pending("stack", 1, amount=8)

    events = apply(state, 1, DRAW)

    assert events[0].data["count"] == 8
    assert hand_codes(state, 1) == [
        "Y6",
        "Y7",
        "B1",
        "B2",
        "B3",
        "B4",
        "B5",
        "B6",
        "B7",
        "B8",
    ]
    assert state.current == 2


# -- Wild Draw Four on Wild Draw Four --------------------------------------------------


def stacked_wild_draw_fours(seat0, seat1, seat2, seat3, draw=()):
    """Seat 0 plays a Wild Draw Four naming blue on a red 5; seat 1 stacks one naming
    green. Seat 2 then faces 8."""
    state = build_state([seat0, seat1, seat2, seat3], top="R5", draw=draw, rules=STACKING)
    play(state, 0, "W+4", color=BLUE)
    play(state, 1, "W+4", color=GREEN)
    return state


def test_a_wild_draw_four_on_a_wild_draw_four_passes_a_challenge_for_eight_on():
    state = build_state(
        [
            ["W+4", "G4", "G5"],
            ["W+4", "Y6", "Y7"],
            ["B3", "B4", "B5"],
            ["G7", "G8", "G9"],
        ],
        top="R5",
        rules=STACKING,
    )

    play(state, 0, "W+4", color=BLUE)
    assert state.pending == Pending(
        "challenge", 1, amount=4, accused=0, guilty=False, previous_color=RED
    )
    assert set(legal_moves(state, 1)) == {CHALLENGE, ACCEPT} | wild_plays(state, 1, "W+4")

    events = play(state, 1, "W+4", color=GREEN)

    assert types(events) == ["card_played"]
    assert state.pending == Pending(
        "challenge", 2, amount=8, accused=1, guilty=False, previous_color=BLUE
    )
    assert state.to_act == 2
    assert state.color == GREEN
    assert hand_codes(state, 2) == ["B3", "B4", "B5"]


def test_accepting_a_stack_of_wild_draw_fours_draws_the_whole_sum_and_loses_the_turn():
    draw = ["Y1", "Y2", "Y3", "Y4", "B6", "B7", "B8", "B9", "R1"]
    state = stacked_wild_draw_fours(
        ["W+4", "G4", "G5"],
        ["W+4", "Y6", "Y7"],
        ["B3", "B4", "B5"],
        ["G7", "G8", "G9"],
        draw,
    )
    assert set(legal_moves(state, 2)) == {CHALLENGE, ACCEPT}

    events = apply(state, 2, ACCEPT)

    assert types(events) == ["cards_drawn", "player_skipped"]
    drawn, skipped = events
    assert drawn.seat == 2
    assert drawn.data["count"] == 8
    assert drawn.data["reason"] == "stack"
    assert codes(drawn.data["cards"]) == draw[:8]
    assert skipped.seat == 2
    assert hand_codes(state, 2) == ["B3", "B4", "B5", *draw[:8]]
    assert state.pending is None
    assert state.current == 3
    assert state.color == GREEN
    assert hand_codes(state, 0) == ["G4", "G5"]
    assert hand_codes(state, 1) == ["Y6", "Y7"]


def test_no_draw_two_may_be_played_on_a_wild_draw_four():
    state = build_state(
        [["W+4", "G4", "G5"], ["B+2", "R+2", "Y7"], ["B3", "B4", "B5"]],
        top="R5",
        rules=STACKING,
    )
    play(state, 0, "W+4", color=BLUE)

    assert set(legal_moves(state, 1)) == {CHALLENGE, ACCEPT}
    # B+2 would match the named colour on a normal turn, R+2 the colour before.
    assert_rejected(state, 1, play_move(state, 1, "B+2"))
    assert_rejected(state, 1, play_move(state, 1, "R+2"))


def test_no_wild_draw_four_may_be_played_on_a_draw_two():
    state = build_state(
        [["R+2", "G4", "G5"], ["W+4", "Y6", "Y7"], ["B3", "B4", "B5"]],
        top="R5",
        rules=STACKING,
    )
    play(state, 0, "R+2")

    assert legal_moves(state, 1) == [DRAW]
    for color in range(4):
        assert_rejected(state, 1, play_move(state, 1, "W+4", color=color))


def test_challenging_a_guilty_last_wild_draw_four_makes_its_player_draw_the_whole_sum():
    # Seat 1 stacked while holding a blue card (blue was named by seat 0): guilty.
    draw = ["Y1", "Y2", "Y3", "Y4", "R6", "R7", "R8", "R9", "Y5"]
    state = stacked_wild_draw_fours(
        ["W+4", "G4", "G5"],
        ["W+4", "B1", "Y7"],
        ["G3", "B4", "B5"],
        ["G7", "G8", "G9"],
        draw,
    )
    assert state.pending == Pending(
        "challenge", 2, amount=8, accused=1, guilty=True, previous_color=BLUE
    )
    accused_hand = list(state.hands[1])

    events = apply(state, 2, CHALLENGE)

    assert types(events) == ["challenged", "hand_revealed", "cards_drawn"]
    challenged, revealed, drawn = events
    assert challenged.seat == 1
    assert challenged.data == {"by": 2, "guilty": True}
    assert revealed.seat == 1
    assert revealed.data == {"to": 2, "hand": accused_hand}
    assert drawn.seat == 1
    assert drawn.data["count"] == 8
    assert drawn.data["reason"] == "challenge"
    assert hand_codes(state, 1) == ["B1", "Y7", *draw[:8]]
    assert hand_codes(state, 0) == ["G4", "G5"]
    assert hand_codes(state, 2) == ["G3", "B4", "B5"]
    # The challenger now takes a normal turn on the colour the last one named.
    assert state.pending is None
    assert state.current == 2
    assert state.color == GREEN
    assert set(legal_moves(state, 2)) == {play_move(state, 2, "G3"), DRAW}
    play(state, 2, "G3")
    assert state.current == 3


def test_challenging_an_innocent_last_wild_draw_four_costs_sum_plus_two_and_the_turn():
    # Seat 0 was guilty (it held a red card on red), but only the last one is judged:
    # seat 1 held no blue when it stacked.
    draw = ["Y1", "Y2", "Y3", "Y4", "R6", "R7", "R8", "R9", "Y5", "Y6", "G1"]
    state = stacked_wild_draw_fours(
        ["W+4", "R1", "G5"],
        ["W+4", "Y6", "Y7"],
        ["G3", "B4", "B5"],
        ["G7", "G8", "G9"],
        draw,
    )
    assert state.pending == Pending(
        "challenge", 2, amount=8, accused=1, guilty=False, previous_color=BLUE
    )

    events = apply(state, 2, CHALLENGE)

    assert types(events) == [
        "challenged",
        "hand_revealed",
        "cards_drawn",
        "player_skipped",
    ]
    assert events[0].data == {"by": 2, "guilty": False}
    drawn = events[2]
    assert drawn.seat == 2
    assert drawn.data["count"] == 10
    assert drawn.data["reason"] == "challenge"
    assert events[3].seat == 2
    assert hand_codes(state, 2) == ["G3", "B4", "B5", *draw[:10]]
    assert hand_codes(state, 0) == ["R1", "G5"]
    assert hand_codes(state, 1) == ["Y6", "Y7"]
    assert state.pending is None
    assert state.current == 3
    assert state.color == GREEN


# -- without stacking, and going out ---------------------------------------------------


def test_without_stacking_a_draw_two_makes_the_next_player_draw_two_at_once():
    state = build_state(
        [["R+2", "G4", "G5"], ["B+2", "Y6", "Y7"], ["G7", "G8", "Y9"]],
        top="R5",
        draw=["Y1", "Y2", "Y3"],
    )

    events = play(state, 0, "R+2")

    assert types(events) == ["card_played", "cards_drawn", "player_skipped"]
    assert events[1].seat == 1
    assert events[1].data["count"] == 2
    assert events[1].data["reason"] == "draw_two"
    assert events[2].seat == 1
    assert hand_codes(state, 1) == ["B+2", "Y6", "Y7", "Y1", "Y2"]
    assert state.pending is None
    assert state.current == 2
    assert legal_moves(state, 1) == []


def test_without_stacking_a_wild_draw_four_cannot_be_answered_with_another():
    state = build_state(
        [["W+4", "G4", "G5"], ["W+4", "Y6", "Y7"], ["B3", "B4", "B5"]],
        top="R5",
    )
    play(state, 0, "W+4", color=BLUE)

    assert state.pending == Pending(
        "challenge", 1, amount=4, accused=0, guilty=False, previous_color=RED
    )
    assert set(legal_moves(state, 1)) == {CHALLENGE, ACCEPT}
    assert_rejected(state, 1, play_move(state, 1, "W+4", color=GREEN))


def test_going_out_on_a_stacked_draw_two_makes_the_next_player_draw_the_whole_sum():
    state = build_state(
        [["R+2", "G4", "G5"], ["B+2"], ["G7", "Y9"]],
        top="R5",
        draw=["Y1", "Y2", "Y3", "Y4", "Y5"],
        rules=STACKING,
        target_score=0,
    )
    play(state, 0, "R+2")
    assert state.pending == Pending("stack", 1, amount=2)

    events = play(state, 1, "B+2")

    assert types(events) == ["card_played", "cards_drawn", "round_ended", "game_ended"]
    drawn, ended = events[1], events[2]
    assert drawn.seat == 2
    assert drawn.data["count"] == 4
    assert codes(drawn.data["cards"]) == ["Y1", "Y2", "Y3", "Y4"]
    assert ended.seat == 1
    # 4 + 5 (seat 0) and 7 + 9 + 1 + 2 + 3 + 4 (seat 2, the drawn cards count).
    assert ended.data["points"] == 35
    assert hand_codes(state, 2) == ["G7", "Y9", "Y1", "Y2", "Y3", "Y4"]
    assert state.winner == 1
    assert state.pending is None


def test_going_out_on_a_stacked_wild_draw_four_makes_the_next_player_draw_it_all():
    draw = ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8", "Y9"]
    state = build_state(
        [["W+4", "G4", "G5"], ["W+4"], ["G7", "B9"]],
        top="R5",
        draw=draw,
        rules=STACKING,
        target_score=0,
    )
    play(state, 0, "W+4", color=BLUE)

    events = play(state, 1, "W+4", color=GREEN)

    assert types(events) == ["card_played", "cards_drawn", "round_ended", "game_ended"]
    assert events[1].seat == 2
    assert events[1].data["count"] == 8
    assert hand_codes(state, 2) == ["G7", "B9", *draw[:8]]
    # 9 (seat 0) + 7 + 9 + (1 + ... + 8) (seat 2).
    assert events[2].data["points"] == 9 + 16 + 36
    assert state.winner == 1
    assert state.pending is None
