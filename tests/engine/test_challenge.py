"""docs/rules.md, "Wild Draw Four challenge": only the next player decides; guilty,
innocent and accept; the named colour stands; the accused hand is shown to the
challenger only."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import (
    GameState,
    IllegalMove,
    Move,
    NotYourTurn,
    WrongPhase,
    apply,
    legal_moves,
    render,
)
from games.engine.cards import BLUE, CODE_OF, COLOR_BY_NAME, card_json
from games.engine.position import build_state, card_in_hand, hand_codes

OTHERS = [["G1", "G2", "G3"], ["Y1", "Y2", "Y3"]]
NEXT_CARDS = ["Y7", "Y8", "G7", "G8", "B7", "B8", "R7"]


def after_wild_draw_four(
    hand0: list[str],
    *,
    top: str = "R2",
    color: str | None = None,
    named: str = "blue",
    direction: int = 1,
    hands: list[list[str]] | None = None,
) -> GameState:
    """Seat 0 has just played a Wild Draw Four naming `named`."""
    state = build_state(
        [["W+4", *hand0], *(hands or OTHERS)],
        top=top,
        color=color,
        draw=NEXT_CARDS,
        direction=direction,
    )
    apply(
        state,
        0,
        Move("play", card=card_in_hand(state, 0, "W+4"), color=COLOR_BY_NAME[named]),
    )
    return state


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


def next_to_draw(state: GameState, count: int) -> list[int]:
    return list(reversed(state.draw_pile[-count:]))


def rejected(state: GameState, seat: int, move: Move, error: type[IllegalMove]) -> None:
    before = state.to_snapshot()
    with pytest.raises(error):
        apply(state, seat, move)
    assert state.to_snapshot() == before


def test_after_a_wild_draw_four_the_next_player_must_challenge_or_accept() -> None:
    state = after_wild_draw_four(["B5", "G7"])
    assert state.pending is not None
    assert state.pending.type == "challenge"
    assert state.pending.seat == 1
    assert state.to_act == 1
    assert legal_moves(state, 1) == [Move("challenge"), Move("accept")]
    assert legal_moves(state, 0) == []
    assert legal_moves(state, 2) == []
    assert state.color == BLUE
    assert len(state.hands[1]) == 3


def test_only_the_next_player_may_challenge_or_accept() -> None:
    state = after_wild_draw_four(["R9", "G7"])
    for seat in (0, 2):
        rejected(state, seat, Move("challenge"), NotYourTurn)
        rejected(state, seat, Move("accept"), NotYourTurn)


def test_the_next_player_cannot_play_draw_or_pass_instead_of_deciding() -> None:
    state = after_wild_draw_four(["R9", "G7"], hands=[["B1", "W", "G3"], OTHERS[1]])
    for move in (
        Move("play", card=card_in_hand(state, 1, "B1")),
        Move("play", card=card_in_hand(state, 1, "W"), color=BLUE),
        Move("draw"),
        Move("pass"),
    ):
        rejected(state, 1, move, WrongPhase)


def test_accepting_draws_four_and_loses_the_turn() -> None:
    state = after_wild_draw_four(["R9", "G7"])
    four = next_to_draw(state, 4)
    events = apply(state, 1, Move("accept"))
    assert types(events) == ["cards_drawn", "player_skipped"]
    assert events[0].seat == 1
    assert events[0].data == {"count": 4, "reason": "wild_draw_four", "cards": four}
    assert events[1].seat == 1
    assert hand_codes(state, 1) == ["G1", "G2", "G3", "Y7", "Y8", "G7", "G8"]
    assert hand_codes(state, 0) == ["R9", "G7"]  # the guilty player gets away with it
    assert state.pending is None
    assert state.current == 2
    assert state.color == BLUE
    assert CODE_OF[state.discard[-1]] == "W+4"


def test_if_guilty_the_accused_draws_four_and_the_challenger_plays_normally() -> None:
    state = after_wild_draw_four(["R9", "G7"])
    hand_before = list(state.hands[0])
    four = next_to_draw(state, 4)
    events = apply(state, 1, Move("challenge"))
    assert types(events) == ["challenged", "hand_revealed", "cards_drawn"]
    assert events[0].seat == 0
    assert events[0].data == {"by": 1, "guilty": True}
    assert events[1].seat == 0
    assert events[1].data == {"to": 1, "hand": hand_before}
    assert events[2].seat == 0
    assert events[2].data == {"count": 4, "reason": "challenge", "cards": four}
    assert hand_codes(state, 0) == ["R9", "G7", "Y7", "Y8", "G7", "G8"]
    assert hand_codes(state, 1) == ["G1", "G2", "G3"]
    assert state.pending is None
    assert state.current == 1
    assert state.to_act == 1
    assert state.color == BLUE
    assert CODE_OF[state.discard[-1]] == "W+4"
    assert Move("draw") in legal_moves(state, 1)


def test_after_a_guilty_verdict_the_challenger_matches_the_named_colour() -> None:
    state = after_wild_draw_four(["R9", "G7"], named="green", hands=[["G1", "R5", "B3"], OTHERS[1]])
    apply(state, 1, Move("challenge"))
    plays = {CODE_OF[m.card] for m in legal_moves(state, 1) if m.card is not None}
    assert plays == {"G1"}
    apply(state, 1, Move("play", card=card_in_hand(state, 1, "G1")))
    assert state.current == 2


def test_an_innocent_challenger_draws_six_and_loses_the_turn() -> None:
    state = after_wild_draw_four(["B5", "G7"])
    six = next_to_draw(state, 6)
    events = apply(state, 1, Move("challenge"))
    assert types(events) == [
        "challenged",
        "hand_revealed",
        "cards_drawn",
        "player_skipped",
    ]
    assert events[0].data == {"by": 1, "guilty": False}
    assert events[2].seat == 1
    assert events[2].data == {"count": 6, "reason": "challenge", "cards": six}
    assert events[3].seat == 1
    assert len(state.hands[1]) == 9
    assert hand_codes(state, 0) == ["B5", "G7"]
    assert state.pending is None
    assert state.current == 2
    assert state.color == BLUE
    assert CODE_OF[state.discard[-1]] == "W+4"


@pytest.mark.parametrize(
    ("hand", "guilty"),
    [
        (["R9", "G7"], True),
        (["B2", "G7"], False),  # the top card's number in another colour
        (["W", "G7"], False),
        (["W+4", "G7"], False),
        (["B1", "Y4"], False),  # holds the colour it names, not the one it replaced
    ],
    ids=[
        "red_card",
        "matching_number",
        "wild",
        "second_wild_draw_four",
        "named_colour",
    ],
)
def test_the_challenge_asks_only_whether_a_card_of_the_previous_colour_was_held(
    hand: list[str], guilty: bool
) -> None:
    state = after_wild_draw_four(hand, named="blue")
    events = apply(state, 1, Move("challenge"))
    assert events[0].data["guilty"] is guilty


def test_the_previous_colour_is_the_one_a_wild_on_top_had_named() -> None:
    guilty = after_wild_draw_four(["G3", "B1"], top="W", color="green", named="red")
    assert apply(guilty, 1, Move("challenge"))[0].data["guilty"] is True
    innocent = after_wild_draw_four(["R3", "B1"], top="W", color="green", named="red")
    assert apply(innocent, 1, Move("challenge"))[0].data["guilty"] is False


def test_the_decision_belongs_to_the_next_player_counterclockwise() -> None:
    state = after_wild_draw_four(["R9", "G7"], direction=-1)
    assert state.pending is not None
    assert state.pending.seat == 2
    rejected(state, 1, Move("accept"), NotYourTurn)
    apply(state, 2, Move("accept"))
    assert len(state.hands[2]) == 7
    assert state.current == 1


def test_with_two_players_accepting_gives_the_turn_back() -> None:
    state = after_wild_draw_four(["R9", "G7"], hands=[["G1", "G2"]])
    apply(state, 1, Move("accept"))
    assert state.current == 0


def test_the_accused_hand_is_shown_to_the_challenger_only() -> None:
    state = after_wild_draw_four(["R9", "G7"])
    hand = list(state.hands[0])
    revealed = next(e for e in apply(state, 1, Move("challenge")) if e.type == "hand_revealed")
    shown = render(revealed, 1)
    assert shown["type"] == "hand_revealed"
    assert shown["seat"] == 0
    assert shown["data"]["to"] == 1
    assert shown["data"]["hand"] == [card_json(c) for c in hand]
    for viewer in (2, None):
        hidden = render(revealed, viewer)
        assert "hand" not in hidden["data"]
        assert hidden["data"]["to"] == 1
    assert render(revealed, 2, complete=True)["data"]["hand"] == [card_json(c) for c in hand]


def test_no_challenge_can_be_made_when_no_wild_draw_four_is_pending() -> None:
    state = build_state([["R5", "B3"], ["G1", "G2"]], top="R2")
    rejected(state, 0, Move("challenge"), WrongPhase)
    rejected(state, 0, Move("accept"), WrongPhase)
