"""Malformed versus illegal: `parse_move` judges the shape of a move body, `apply`
judges whether the game allows it (not your turn, wrong phase, illegal), and every
rejection leaves the state exactly as it was."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import (
    EngineError,
    GameState,
    IllegalMove,
    MalformedMove,
    Move,
    NotYourTurn,
    WrongPhase,
    apply,
    parse_move,
)
from games.engine.cards import (
    BLUE,
    COLOR_BY_NAME,
    COLOR_NAMES,
    DECK_SIZE,
    FIRST_WILD,
    FIRST_WILD_DRAW_FOUR,
    GREEN,
    RED,
)
from games.engine.moves import (
    ACCEPT,
    ACTIONS,
    CALL_UNO,
    CATCH_UNO,
    CHALLENGE,
    CHOOSE_COLOR,
    DRAW,
    MAX_SEATS,
    PASS,
    PLAY_MOVES,
    PLAY_UNO_MOVES,
    malformed_reason,
    shared_move,
)
from games.engine.position import build_state, card_in_hand

WILD = FIRST_WILD  # a Wild's id
WILD_DRAW_FOUR = FIRST_WILD_DRAW_FOUR


@pytest.mark.parametrize(
    "body",
    [
        None,
        [],
        "play",
        42,
        ["action", "draw"],
        {},
        {"action": "dance"},
        {"action": "PLAY", "card": 5},
        {"action": None},
        {"action": 1},
        {"action": "play"},
        {"action": "play", "card": "5"},
        {"action": "play", "card": 5.0},
        {"action": "play", "card": None},
        {"action": "play", "card": True},
        {"action": "play", "card": False},
        {"action": "play", "card": 108},
        {"action": "play", "card": -1},
        {"action": "play", "card": 10**20},
        {"action": "play", "card": WILD},
        {"action": "play", "card": WILD_DRAW_FOUR},
        {"action": "play", "card": WILD, "color": "purple"},
        {"action": "play", "card": WILD, "color": "Red"},
        {"action": "play", "card": WILD, "color": 0},
        {"action": "play", "card": WILD, "color": None},
        {"action": "play", "card": 5, "color": "red"},
        {"action": "play", "card": 5, "colour": "red"},
        {"action": "play", "card": 5, "uno": "yes"},
        {"action": "play", "card": 5, "uno": 1},
        {"action": "play", "card": 5, "uno": None},
        {"action": "draw", "card": 5},
        {"action": "draw", "extra": True},
        {"action": "draw", "uno": False},
        {"action": "pass", "uno": True},
        {"action": "call_uno", "target": 1},
        {"action": "challenge", "challenge": True},
        {"action": "choose_color"},
        {"action": "choose_color", "color": "pink"},
        {"action": "choose_color", "color": "red", "card": 1},
        {"action": "catch_uno"},
        {"action": "catch_uno", "target": "1"},
        {"action": "catch_uno", "target": True},
        {"action": "catch_uno", "target": 1.0},
    ],
)
def test_parse_move_rejects_a_malformed_body(body: Any) -> None:
    with pytest.raises(MalformedMove) as caught:
        parse_move(body)
    assert caught.value.code == "invalid_request"
    assert caught.value.reason
    assert not isinstance(caught.value, IllegalMove)


@pytest.mark.parametrize(
    ("body", "move"),
    [
        ({"action": "play", "card": 5}, Move("play", card=5)),
        ({"action": "play", "card": 0}, Move("play", card=0)),
        (
            {"action": "play", "card": 107, "color": "blue"},
            Move("play", card=107, color=BLUE),
        ),
        (
            {"action": "play", "card": WILD, "color": "red"},
            Move("play", card=WILD, color=RED),
        ),
        ({"action": "play", "card": 5, "uno": True}, Move("play", card=5, uno=True)),
        ({"action": "play", "card": 5, "uno": False}, Move("play", card=5)),
        ({"action": "draw"}, Move("draw")),
        ({"action": "pass"}, Move("pass")),
        (
            {"action": "choose_color", "color": "green"},
            Move("choose_color", color=GREEN),
        ),
        ({"action": "call_uno"}, Move("call_uno")),
        ({"action": "catch_uno", "target": 2}, Move("catch_uno", target=2)),
        ({"action": "challenge"}, Move("challenge")),
        ({"action": "accept"}, Move("accept")),
        ({"action": "draw", "version": 12}, Move("draw")),
    ],
)
def test_parse_move_reads_a_well_formed_body(body: dict[str, Any], move: Move) -> None:
    assert parse_move(body) == move
    round_trip = {k: v for k, v in body.items() if k != "version" and v is not False}
    assert move.to_json() == round_trip


def test_parse_move_judges_only_the_shape_not_the_game() -> None:
    # A card nobody could play now is still a well-formed move.
    assert parse_move({"action": "play", "card": 3, "uno": True}) == Move("play", card=3, uno=True)
    assert parse_move({"action": "catch_uno", "target": 9}) == Move("catch_uno", target=9)


BODIES = st.fixed_dictionaries(
    {"action": st.sampled_from(sorted(ACTIONS))},
    optional={
        "card": st.integers(-1, DECK_SIZE),
        "color": st.sampled_from(COLOR_NAMES),
        "target": st.integers(-1, MAX_SEATS),
        "uno": st.booleans(),
    },
)


@given(BODIES)
def test_a_body_is_judged_by_the_same_shape_rules_as_the_move_it_names(
    body: dict[str, Any],
) -> None:
    color = body.get("color")
    named = Move(
        body["action"],
        card=body.get("card"),
        color=None if color is None else COLOR_BY_NAME[color],
        target=body.get("target"),
        uno=body.get("uno", False),
    )
    reason = malformed_reason(named, ["uno"] if body.get("uno") is False else [])
    if reason is None:
        parsed = parse_move(body)
        assert parsed == named
        assert malformed_reason(parsed) is None
    else:
        with pytest.raises(MalformedMove, match=re.escape(reason)):
            parse_move(body)


SHARED = [
    *(move for table in (PLAY_MOVES, PLAY_UNO_MOVES) for moves in table for move in moves),
    *CHOOSE_COLOR,
    *CATCH_UNO,
    DRAW,
    PASS,
    CALL_UNO,
    CHALLENGE,
    ACCEPT,
]


def test_every_shared_move_is_sound_so_parsing_may_skip_judging_it() -> None:
    assert [move for move in SHARED if malformed_reason(move) is not None] == []


def test_a_common_move_parses_to_its_shared_object() -> None:
    for move in SHARED:
        assert shared_move(move.action, move.card, move.color, move.target, move.uno) is move
        assert parse_move(move.to_json()) is move


def test_the_errors_keep_malformed_and_illegal_apart() -> None:
    assert issubclass(NotYourTurn, IllegalMove)
    assert issubclass(WrongPhase, IllegalMove)
    assert not issubclass(MalformedMove, IllegalMove)
    assert (MalformedMove.code, IllegalMove.code) == ("invalid_request", "illegal_move")
    assert (NotYourTurn.code, WrongPhase.code) == ("not_your_turn", "wrong_phase")


# -- apply ----------------------------------------------------------------------------


def table(**kwargs: Any) -> GameState:
    return build_state(
        [["R7", "B3", "W+4"], ["G1", "R3", "W"], ["Y1", "Y2", "B9"]], top="R2", **kwargs
    )


def rejected(state: GameState, seat: int, move: Move, error: type[EngineError]) -> EngineError:
    before = state.to_snapshot()
    with pytest.raises(error) as caught:
        apply(state, seat, move)
    assert type(caught.value) is error
    assert state.to_snapshot() == before
    return caught.value


def test_a_move_out_of_turn_is_not_your_turn() -> None:
    state = table()
    for move in (
        Move("play", card=card_in_hand(state, 1, "R3")),
        Move("play", card=card_in_hand(state, 1, "W"), color=RED),
        Move("draw"),
        Move("pass"),
    ):
        error = rejected(state, 1, move, NotYourTurn)
        assert error.code == "not_your_turn"
    rejected(state, 2, Move("draw"), NotYourTurn)


def test_a_play_while_a_challenge_decision_is_pending_is_the_wrong_phase() -> None:
    state = table()
    apply(state, 0, Move("play", card=card_in_hand(state, 0, "W+4"), color=BLUE))
    error = rejected(
        state, 1, Move("play", card=card_in_hand(state, 1, "W"), color=BLUE), WrongPhase
    )
    assert error.code == "wrong_phase"
    rejected(state, 1, Move("draw"), WrongPhase)
    rejected(state, 1, Move("choose_color", color=RED), WrongPhase)
    rejected(state, 2, Move("challenge"), NotYourTurn)


def test_a_decision_nobody_is_waiting_for_is_the_wrong_phase() -> None:
    state = table()
    rejected(state, 0, Move("choose_color", color=GREEN), WrongPhase)
    rejected(state, 0, Move("challenge"), WrongPhase)
    rejected(state, 0, Move("accept"), WrongPhase)


def test_any_move_after_the_game_has_ended_is_the_wrong_phase() -> None:
    state = build_state([["R7"], ["G1", "G2"]], top="R2", target_score=0)
    apply(state, 0, Move("play", card=card_in_hand(state, 0, "R7")))
    assert state.winner == 0
    rejected(state, 1, Move("draw"), WrongPhase)
    rejected(state, 1, Move("play", card=card_in_hand(state, 1, "G1")), WrongPhase)
    rejected(state, 0, Move("pass"), WrongPhase)


def test_a_card_that_does_not_match_is_an_illegal_move() -> None:
    state = table()
    error = rejected(state, 0, Move("play", card=card_in_hand(state, 0, "B3")), IllegalMove)
    assert error.code == "illegal_move"
    assert error.reason


def test_a_card_not_in_the_hand_is_an_illegal_move() -> None:
    state = table()
    rejected(state, 0, Move("play", card=card_in_hand(state, 1, "R3")), IllegalMove)
    rejected(state, 0, Move("play", card=card_in_hand(state, 1, "W"), color=RED), IllegalMove)
    top = state.discard[-1]
    rejected(state, 0, Move("play", card=top), IllegalMove)


def test_a_pass_before_drawing_and_a_bad_catch_are_illegal_moves() -> None:
    state = table()
    rejected(state, 0, Move("pass"), IllegalMove)
    rejected(state, 2, Move("catch_uno", target=0), IllegalMove)
    rejected(state, 0, Move("call_uno"), IllegalMove)


def test_a_catch_naming_no_seat_at_the_table_is_well_formed_but_illegal() -> None:
    state = table()
    for target in (-1, 3, 9):
        move = parse_move({"action": "catch_uno", "target": target})
        rejected(state, 1, move, IllegalMove)


def test_apply_rejects_a_wild_without_a_colour_as_malformed() -> None:
    state = table()
    rejected(state, 0, Move("play", card=card_in_hand(state, 0, "W+4")), MalformedMove)


def test_a_move_rejected_out_of_turn_succeeds_once_it_is_the_seats_turn() -> None:
    state = table()
    r3 = card_in_hand(state, 1, "R3")
    rejected(state, 1, Move("play", card=r3), NotYourTurn)
    apply(state, 0, Move("play", card=card_in_hand(state, 0, "R7")))
    events = apply(state, 1, Move("play", card=r3))
    assert [e.type for e in events] == ["card_played"]
