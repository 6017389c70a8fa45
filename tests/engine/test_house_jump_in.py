"""Scenarios for the `jump_in` house rule (docs/rules.md, "House rules").

Out of turn, any player may play a card identical (same colour, same number or
symbol) to the top card; its effects apply as if it were the jumper's turn and play
continues from the jumper. Never a wild, never while a decision is pending.
"""

from __future__ import annotations

import pytest

from games.engine import (
    IllegalMove,
    Move,
    NotYourTurn,
    Pending,
    Rules,
    apply,
    legal_moves,
)
from games.engine.cards import RED
from games.engine.position import build_state, card_in_hand, hand_codes

JUMP_IN = Rules(jump_in=True)
DRAW = Move("draw")


def play(state, seat, code, **fields):
    return apply(state, seat, Move("play", card=card_in_hand(state, seat, code), **fields))


def play_move(state, seat, code, **fields):
    return Move("play", card=card_in_hand(state, seat, code), **fields)


def types(events):
    return [e.type for e in events]


def assert_rejected(state, seat, move, error=IllegalMove):
    before = state.to_snapshot()
    with pytest.raises(error):
        apply(state, seat, move)
    assert state.to_snapshot() == before


def four_seats(seat2, top="R5", **kwargs):
    """Seat 0 to play; seat 2 (two seats on) holds `seat2`."""
    hands = [["G1", "G2", "G3"], ["B1", "B2", "B3"], seat2, ["Y1", "Y2", "Y3"]]
    return build_state(hands, top=top, rules=kwargs.pop("rules", JUMP_IN), **kwargs)


# -- who may jump in, with what --------------------------------------------------------


def test_a_player_out_of_turn_may_play_a_card_identical_to_the_top_card():
    state = four_seats(["R5", "G7", "G8"])
    five = card_in_hand(state, 2, "R5")

    events = apply(state, 2, Move("play", card=five))

    assert types(events) == ["card_played"]
    assert events[0].seat == 2
    assert events[0].data["card"] == five
    assert state.top_card == five
    assert hand_codes(state, 2) == ["G7", "G8"]
    assert hand_codes(state, 0) == ["G1", "G2", "G3"]


def test_legal_moves_out_of_turn_list_only_the_identical_cards():
    state = four_seats(["R5", "R6", "B5", "W", "W+4", "G7"])
    assert legal_moves(state, 2) == [play_move(state, 2, "R5")]
    assert legal_moves(state, 1) == []
    assert legal_moves(state, 3) == []


def test_a_player_may_jump_in_on_the_card_they_have_just_played():
    state = build_state([["R5", "R5", "G3"], ["B1", "B2", "B3"]], top="R9", rules=JUMP_IN)
    play(state, 0, "R5")
    assert state.current == 1
    assert legal_moves(state, 0) == [play_move(state, 0, "R5")]

    play(state, 0, "R5")

    assert hand_codes(state, 0) == ["G3"]
    assert state.current == 1


@pytest.mark.parametrize("code", ["R6", "B5", "Y5", "G2"])
def test_a_card_of_the_same_colour_or_the_same_number_alone_cannot_jump_in(code):
    state = four_seats([code, "G7", "G8"])
    assert legal_moves(state, 2) == []
    assert_rejected(state, 2, play_move(state, 2, code), NotYourTurn)


@pytest.mark.parametrize("code", ["RS", "RR", "R+2"])
def test_an_identical_action_card_may_jump_in(code):
    state = four_seats([code, "G7", "G8"], top=code)
    assert legal_moves(state, 2) == [play_move(state, 2, code)]


def test_an_action_card_of_the_same_colour_but_another_symbol_cannot_jump_in():
    state = four_seats(["RR", "R+2", "BS"], top="RS")
    assert legal_moves(state, 2) == []


@pytest.mark.parametrize("code", ["W", "W+4"])
def test_wilds_cannot_jump_in_even_on_the_same_wild(code):
    state = four_seats([code, "G7", "G8"], top=code, color="red")
    assert legal_moves(state, 2) == []
    for color in range(4):
        assert_rejected(state, 2, play_move(state, 2, code, color=color), NotYourTurn)


def test_without_jump_in_an_out_of_turn_identical_card_is_not_your_turn():
    state = four_seats(["R5", "G7", "G8"], rules=Rules())
    assert legal_moves(state, 2) == []
    assert_rejected(state, 2, play_move(state, 2, "R5"), NotYourTurn)


# -- effects: as if it were the jumper's turn ------------------------------------------


def test_play_continues_from_the_jumper_so_the_seats_between_lose_their_turn():
    state = four_seats(["R5", "G7", "G8"])

    play(state, 2, "R5")

    assert state.current == 3
    assert state.to_act == 3
    assert legal_moves(state, 0) == []


def test_a_jumped_in_skip_skips_the_player_after_the_jumper():
    state = four_seats(["RS", "G7", "G8"], top="RS", current=1)

    events = play(state, 2, "RS")

    assert types(events) == ["card_played", "player_skipped"]
    assert events[1].seat == 3
    assert state.current == 0


def test_a_jumped_in_reverse_turns_play_back_from_the_jumper():
    state = four_seats(["RR", "G7", "G8"], top="RR")

    events = play(state, 2, "RR")

    assert types(events) == ["card_played", "direction_changed"]
    assert events[1].data == {"direction": "counterclockwise"}
    assert state.direction == -1
    assert state.current == 1


def test_a_jumped_in_reverse_between_two_players_gives_the_jumper_another_turn():
    state = build_state([["G1", "G2"], ["RR", "G7", "G8"]], top="RR", rules=JUMP_IN)

    play(state, 1, "RR")

    assert state.current == 1


def test_a_jumped_in_draw_two_makes_the_player_after_the_jumper_draw_two():
    state = four_seats(["R+2", "G7", "G8"], top="R+2", draw=["B7", "B8", "B9"])

    events = play(state, 2, "R+2")

    assert types(events) == ["card_played", "cards_drawn", "player_skipped"]
    assert events[1].seat == 3
    assert events[1].data["count"] == 2
    assert hand_codes(state, 3) == ["Y1", "Y2", "Y3", "B7", "B8"]
    assert events[2].seat == 3
    assert state.current == 0
    assert hand_codes(state, 1) == ["B1", "B2", "B3"]


def test_a_jumper_playing_their_second_to_last_card_must_say_uno_like_anyone():
    state = four_seats(["R5", "G7"], draw=["B7", "B8"])

    play(state, 2, "R5")

    assert state.uno_owed == 2
    assert Move("catch_uno", target=2) in legal_moves(state, 0)
    events = apply(state, 0, Move("catch_uno", target=2))
    assert types(events) == ["uno_caught", "cards_drawn"]
    assert hand_codes(state, 2) == ["G7", "B7", "B8"]


def test_a_jumper_may_say_uno_with_the_jump_in_play():
    state = four_seats(["R5", "G7"])

    events = play(state, 2, "R5", uno=True)

    assert "uno_called" in types(events)
    assert state.uno_owed == -1


# -- never while a decision is pending -------------------------------------------------


def test_nobody_can_jump_in_while_a_drawn_card_waits_to_be_played_or_kept():
    state = four_seats(["R5", "G7", "G8"], draw=["R9"])
    apply(state, 0, DRAW)
    assert state.pending == Pending("drawn_card", 0, card=card_in_hand(state, 0, "R9"))

    assert legal_moves(state, 2) == []
    assert_rejected(state, 2, play_move(state, 2, "R5"), NotYourTurn)

    apply(state, 0, Move("pass"))
    assert legal_moves(state, 2) == [play_move(state, 2, "R5")]


def test_nobody_can_jump_in_while_a_stack_is_pending():
    state = build_state(
        [
            ["R+2", "G1", "G2"],
            ["B1", "B2", "B3"],
            ["R+2", "G7", "G8"],
            ["Y1", "Y2", "Y3"],
        ],
        top="R5",
        rules=Rules(stacking=True, jump_in=True),
    )
    play(state, 0, "R+2")
    assert state.pending == Pending("stack", 1, amount=2)

    assert legal_moves(state, 2) == []
    assert_rejected(state, 2, play_move(state, 2, "R+2"), NotYourTurn)


def test_nobody_can_jump_in_while_a_wild_draw_four_challenge_is_pending():
    rules = Rules(stacking=True, jump_in=True)
    state = build_state(
        [["W+4", "G1", "G2"], ["B1", "B2", "B3"], ["W+4", "R5", "G8"]],
        top="R5",
        rules=rules,
    )
    play(state, 0, "W+4", color=RED)
    assert state.pending is not None
    assert state.pending.type == "challenge"

    assert legal_moves(state, 2) == []
    assert_rejected(state, 2, play_move(state, 2, "W+4", color=RED), NotYourTurn)
    assert_rejected(state, 2, play_move(state, 2, "R5"), NotYourTurn)


def test_nobody_can_jump_in_while_a_colour_is_to_be_chosen():
    state = build_state(
        [["G1", "G2"], ["B1", "B2", "B3"], ["W", "R5", "G8"]],
        top="W",
        color="red",
        rules=JUMP_IN,
    )
    state.pending = Pending("choose_color", 1)  # the first card was a Wild

    assert legal_moves(state, 2) == []
    assert_rejected(state, 2, play_move(state, 2, "W", color=RED), NotYourTurn)
    assert_rejected(state, 2, play_move(state, 2, "R5"), NotYourTurn)
