"""Scenarios for the `seven_o` house rule (docs/rules.md, "House rules" and "Saying UNO").

A 7 swaps hands with a seat its player names; a 0 passes every hand to the next
player in the direction of play. Cards received that way create no UNO duty, and a
swap or rotation closes any open catch window.
"""

from __future__ import annotations

import pytest

from games.engine import (
    IllegalMove,
    MalformedMove,
    Move,
    Rules,
    apply,
    legal_moves,
    parse_move,
)
from games.engine.position import build_state, card_in_hand, hand_codes

SEVEN_O = Rules(seven_o=True)
DRAW = Move("draw")


def play(state, seat, code, **fields):
    return apply(state, seat, Move("play", card=card_in_hand(state, seat, code), **fields))


def play_move(state, seat, code, **fields):
    return Move("play", card=card_in_hand(state, seat, code), **fields)


def types(events):
    return [e.type for e in events]


def assert_rejected(state, seat, move):
    before = state.to_snapshot()
    with pytest.raises(IllegalMove):
        apply(state, seat, move)
    assert state.to_snapshot() == before


def catch_moves(state):
    return [
        (seat, move)
        for seat in range(state.players)
        for move in legal_moves(state, seat)
        if move.action in ("catch_uno", "call_uno")
    ]


# -- the 7 -----------------------------------------------------------------------------


def test_a_seven_swaps_hands_with_the_seat_its_player_names():
    state = build_state(
        [["R7", "G1", "G2"], ["B1", "B2"], ["Y1", "Y2", "Y3", "Y4"]],
        top="R5",
        rules=SEVEN_O,
    )
    seven = card_in_hand(state, 0, "R7")

    events = apply(state, 0, Move("play", card=seven, target=2))

    assert types(events) == ["card_played", "hands_swapped"]
    played, swapped = events
    assert played.seat == 0
    assert played.data["card"] == seven
    assert played.data["target"] == 2
    assert swapped.seat == 0
    assert swapped.data == {"with": 2}
    assert hand_codes(state, 0) == ["Y1", "Y2", "Y3", "Y4"]
    assert hand_codes(state, 2) == ["G1", "G2"]
    assert hand_codes(state, 1) == ["B1", "B2"]
    assert state.top_card == seven
    assert state.current == 1


def test_legal_moves_list_a_seven_once_per_other_seat_and_never_without_a_target():
    state = build_state(
        [["R7", "G1", "G2"], ["B1", "B2"], ["Y1", "Y2"], ["G3", "G4"]],
        top="R5",
        rules=SEVEN_O,
    )
    seven = card_in_hand(state, 0, "R7")

    assert set(legal_moves(state, 0)) == {
        Move("play", card=seven, target=1),
        Move("play", card=seven, target=2),
        Move("play", card=seven, target=3),
        DRAW,
    }
    assert len(legal_moves(state, 0)) == 4


def test_a_seven_matched_by_number_also_swaps_and_in_two_player_games_names_the_other():
    state = build_state([["Y7", "G1"], ["B1", "B2", "B3"]], top="R7", rules=SEVEN_O)
    seven = card_in_hand(state, 0, "Y7")
    assert legal_moves(state, 0) == [Move("play", card=seven, target=1), DRAW]

    events = apply(state, 0, Move("play", card=seven, target=1))

    assert events[-1].type == "hands_swapped"
    assert hand_codes(state, 0) == ["B1", "B2", "B3"]
    assert hand_codes(state, 1) == ["G1"]
    assert state.current == 1


@pytest.mark.parametrize("target", [None, 0, 3, -1, 9])
def test_a_seven_must_name_another_seat_at_the_table(target):
    state = build_state(
        [["R7", "G1", "G2"], ["B1", "B2"], ["Y1", "Y2"]],
        top="R5",
        rules=SEVEN_O,
    )
    assert_rejected(state, 0, play_move(state, 0, "R7", target=target))


def test_a_seven_body_with_a_target_parses_and_a_target_on_another_card_does_not():
    state = build_state([["R7", "R6", "G2"], ["B1", "B2"]], top="R5", rules=SEVEN_O)
    seven = card_in_hand(state, 0, "R7")
    six = card_in_hand(state, 0, "R6")

    move = parse_move({"action": "play", "card": seven, "target": 1})
    assert move == Move("play", card=seven, target=1)
    assert move in legal_moves(state, 0)
    with pytest.raises(MalformedMove):
        parse_move({"action": "play", "card": six, "target": 1})


def test_a_seven_played_as_the_last_card_ends_the_round_without_a_swap():
    state = build_state(
        [["R7"], ["B1", "B2"], ["Y1", "Y2"]],
        top="R5",
        rules=SEVEN_O,
        target_score=0,
    )

    events = play(state, 0, "R7", target=1)

    assert "hands_swapped" not in types(events)
    assert types(events)[-2:] == ["round_ended", "game_ended"]
    assert state.winner == 0
    assert hand_codes(state, 1) == ["B1", "B2"]


# -- the 0 -----------------------------------------------------------------------------


def test_a_zero_passes_every_hand_to_the_next_player_clockwise():
    state = build_state(
        [
            ["R0", "G1", "G2"],
            ["B1", "B2"],
            ["Y1", "Y2", "Y3"],
            ["G7", "G8", "G9", "B9"],
        ],
        top="R5",
        rules=SEVEN_O,
    )

    events = play(state, 0, "R0")

    assert types(events) == ["card_played", "hands_swapped"]
    assert events[1].seat == 0
    assert events[1].data == {"rotation": "clockwise"}
    assert hand_codes(state, 1) == ["G1", "G2"]
    assert hand_codes(state, 2) == ["B1", "B2"]
    assert hand_codes(state, 3) == ["Y1", "Y2", "Y3"]
    assert hand_codes(state, 0) == ["G7", "G8", "G9", "B9"]
    assert state.current == 1


def test_a_zero_passes_every_hand_to_the_next_player_counterclockwise():
    state = build_state(
        [
            ["R0", "G1", "G2"],
            ["B1", "B2"],
            ["Y1", "Y2", "Y3"],
            ["G7", "G8", "G9", "B9"],
        ],
        top="R5",
        direction=-1,
        rules=SEVEN_O,
    )

    events = play(state, 0, "R0")

    assert types(events) == ["card_played", "hands_swapped"]
    assert events[1].data == {"rotation": "counterclockwise"}
    assert hand_codes(state, 3) == ["G1", "G2"]
    assert hand_codes(state, 0) == ["B1", "B2"]
    assert hand_codes(state, 1) == ["Y1", "Y2", "Y3"]
    assert hand_codes(state, 2) == ["G7", "G8", "G9", "B9"]
    assert state.current == 3


def test_a_zero_played_after_a_reverse_follows_the_new_direction():
    state = build_state(
        [
            ["RR", "G1", "G2"],
            ["B1", "B2", "B3"],
            ["Y1", "Y2", "Y3"],
            ["R0", "G8", "G9"],
        ],
        top="R5",
        rules=SEVEN_O,
    )
    play(state, 0, "RR")
    assert state.current == 3

    events = play(state, 3, "R0")

    assert events[-1].data == {"rotation": "counterclockwise"}
    # Counter-clockwise: each hand moves to the seat numbered one lower.
    assert hand_codes(state, 2) == ["G8", "G9"]
    assert hand_codes(state, 1) == ["Y1", "Y2", "Y3"]
    assert hand_codes(state, 0) == ["B1", "B2", "B3"]
    assert hand_codes(state, 3) == ["G1", "G2"]
    assert state.current == 2


def test_without_seven_o_sevens_and_zeros_are_plain_numbers():
    state = build_state(
        [["R7", "R0", "G2"], ["B1", "B2"], ["Y1", "Y2", "Y3"]],
        top="R5",
    )
    seven = card_in_hand(state, 0, "R7")
    assert Move("play", card=seven) in legal_moves(state, 0)
    assert_rejected(state, 0, Move("play", card=seven, target=1))

    events = apply(state, 0, Move("play", card=seven))
    assert types(events) == ["card_played"]
    assert hand_codes(state, 0) == ["R0", "G2"]
    assert hand_codes(state, 1) == ["B1", "B2"]

    state.current = 0
    events = play(state, 0, "R0")
    assert types(events) == ["card_played"]
    assert hand_codes(state, 1) == ["B1", "B2"]


# -- saying UNO ------------------------------------------------------------------------


def test_a_seat_handed_one_card_by_a_swap_owes_no_call_and_cannot_be_caught():
    state = build_state(
        [["R7", "G1", "G2"], ["B1"], ["Y1", "Y2", "Y3"]],
        top="R5",
        rules=SEVEN_O,
    )
    state.said_uno[1] = True

    play(state, 0, "R7", target=1)

    assert hand_codes(state, 0) == ["B1"]
    assert state.uno_owed == -1
    assert catch_moves(state) == []
    for catcher in (1, 2):
        assert_rejected(state, catcher, Move("catch_uno", target=0))
    assert_rejected(state, 0, Move("call_uno"))


def test_a_seven_played_as_the_second_to_last_card_closes_its_catch_window():
    state = build_state(
        [["R7", "G1"], ["B1", "B2", "B3"], ["Y1", "Y2", "Y3"]],
        top="R5",
        rules=SEVEN_O,
    )

    play(state, 0, "R7", target=1)

    assert hand_codes(state, 0) == ["B1", "B2", "B3"]
    assert hand_codes(state, 1) == ["G1"]
    assert state.uno_owed == -1
    assert catch_moves(state) == []
    for target in (0, 1):
        for catcher in range(3):
            if catcher != target:
                assert_rejected(state, catcher, Move("catch_uno", target=target))


def test_a_zero_played_as_the_second_to_last_card_closes_its_catch_window():
    state = build_state(
        [["R0", "G1"], ["B1", "B2", "B3"], ["Y1", "Y2", "Y3"]],
        top="R5",
        rules=SEVEN_O,
    )

    play(state, 0, "R0")

    assert hand_codes(state, 1) == ["G1"]
    assert hand_codes(state, 0) == ["Y1", "Y2", "Y3"]
    assert state.uno_owed == -1
    assert catch_moves(state) == []
    assert_rejected(state, 2, Move("catch_uno", target=1))
    assert_rejected(state, 2, Move("catch_uno", target=0))


def test_a_player_who_received_one_card_may_go_out_on_it_without_ever_calling():
    state = build_state(
        [["R0", "R1"], ["B1", "B2", "B3"], ["Y1", "Y2", "Y3"]],
        top="R5",
        rules=SEVEN_O,
        target_score=0,
    )
    play(state, 0, "R0")
    assert hand_codes(state, 1) == ["R1"]
    assert state.current == 1

    events = play(state, 1, "R1")

    assert "uno_caught" not in types(events)
    assert types(events)[-2:] == ["round_ended", "game_ended"]
    assert state.winner == 1
