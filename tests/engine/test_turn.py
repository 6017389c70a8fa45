"""docs/rules.md, "A turn": matching, wilds, drawing, and the effects of Skip, Reverse,
Draw Two and Wild Draw Four."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import GameState, IllegalMove, Move, apply, legal_moves
from games.engine.cards import BLUE, CODE_OF, COLOR_BY_NAME, GREEN, RED
from games.engine.position import build_state, card_in_hand, hand_codes


def play(
    state: GameState, seat: int, code: str, color: str | None = None, uno: bool = False
) -> list[Any]:
    card = card_in_hand(state, seat, code)
    colour = COLOR_BY_NAME[color] if color is not None else None
    return apply(state, seat, Move("play", card=card, color=colour, uno=uno))


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


def next_to_draw(state: GameState, count: int) -> list[int]:
    return list(reversed(state.draw_pile[-count:]))


def playable_codes(state: GameState, seat: int) -> set[str]:
    return {
        CODE_OF[m.card]
        for m in legal_moves(state, seat)
        if m.action == "play" and m.card is not None
    }


def four_players(hand0: list[str], top: str, **kwargs: Any) -> GameState:
    return build_state(
        [hand0, ["G1", "G2", "G3"], ["Y1", "Y2", "Y3"], ["B4", "B5", "B6"]],
        top=top,
        **kwargs,
    )


def rejected(state: GameState, seat: int, move: Move) -> IllegalMove:
    before = state.to_snapshot()
    with pytest.raises(IllegalMove) as caught:
        apply(state, seat, move)
    assert state.to_snapshot() == before
    return caught.value


# -- matching -------------------------------------------------------------------------


def test_a_card_of_the_current_colour_can_be_played() -> None:
    state = four_players(["R7", "B3"], top="R2")
    card = card_in_hand(state, 0, "R7")
    events = play(state, 0, "R7")
    assert types(events) == ["card_played"]
    assert events[0].seat == 0
    assert events[0].data["card"] == card
    assert events[0].data["color"] == "red"
    assert state.discard[-1] == card
    assert hand_codes(state, 0) == ["B3"]
    assert state.color == RED
    assert state.current == 1


def test_the_top_cards_number_in_another_colour_can_be_played_and_sets_it() -> None:
    state = four_players(["B2", "G9"], top="R2")
    events = play(state, 0, "B2")
    assert events[0].data["color"] == "blue"
    assert state.color == BLUE
    assert state.current == 1


@pytest.mark.parametrize(
    ("top", "card"),
    [("RS", "GS"), ("YR", "GR"), ("G+2", "R+2")],
    ids=["skip_on_skip", "reverse_on_reverse", "draw_two_on_draw_two"],
)
def test_a_symbol_can_be_played_on_the_same_symbol_of_another_colour(top: str, card: str) -> None:
    state = four_players([card, "B9", "B8"], top=top)
    assert playable_codes(state, 0) == {card}
    play(state, 0, card)
    assert CODE_OF[state.discard[-1]] == card


def test_a_card_matching_neither_colour_nor_number_nor_symbol_cannot_be_played() -> None:
    state = four_players(["B7", "GS", "Y+2", "R5"], top="R2")
    assert playable_codes(state, 0) == {"R5"}
    for code in ("B7", "GS", "Y+2"):
        error = rejected(state, 0, Move("play", card=card_in_hand(state, 0, code)))
        assert type(error) is IllegalMove
        assert error.code == "illegal_move"


def test_a_number_does_not_match_a_symbol_and_different_symbols_do_not_match() -> None:
    state = four_players(["B2", "BR", "B+2", "GS"], top="YS")
    assert playable_codes(state, 0) == {"GS"}


def test_after_a_wild_only_the_named_colour_matches() -> None:
    state = four_players(["G5", "R5", "B5"], top="W", color="green")
    assert playable_codes(state, 0) == {"G5"}
    rejected(state, 0, Move("play", card=card_in_hand(state, 0, "R5")))
    play(state, 0, "G5")
    assert state.color == GREEN


# -- wilds ----------------------------------------------------------------------------


def test_a_wild_can_be_played_at_any_time_naming_any_colour() -> None:
    state = four_players(["R7", "W", "B3"], top="R2")
    events = play(state, 0, "W", color="green")
    assert events[0].data["color"] == "green"
    assert state.color == GREEN
    assert CODE_OF[state.discard[-1]] == "W"
    assert state.current == 1


def test_a_wild_may_name_the_colour_that_is_already_current() -> None:
    state = four_players(["R7", "W", "B3"], top="R2")
    events = play(state, 0, "W", color="red")
    assert events[0].data["color"] == "red"
    assert state.color == RED
    assert state.current == 1


def test_a_wild_is_offered_once_per_colour_in_the_legal_moves() -> None:
    state = four_players(["B7", "W", "B3"], top="R2")
    wild = card_in_hand(state, 0, "W")
    moves = legal_moves(state, 0)
    assert [m for m in moves if m.card == wild] == [
        Move("play", card=wild, color=c) for c in range(4)
    ]


def test_a_wild_draw_four_is_playable_while_holding_the_current_colour() -> None:
    state = four_players(["R7", "W+4", "B3"], top="R2")
    assert "W+4" in playable_codes(state, 0)
    events = play(state, 0, "W+4", color="blue")
    assert types(events) == ["card_played"]
    assert events[0].data["color"] == "blue"
    assert state.color == BLUE
    assert state.pending is not None
    assert (state.pending.type, state.pending.seat) == ("challenge", 1)


def test_a_wild_draw_four_is_playable_while_holding_a_matching_number_or_a_wild() -> None:
    state = four_players(["B2", "W", "W+4"], top="R2")
    assert playable_codes(state, 0) == {"B2", "W", "W+4"}
    play(state, 0, "W+4", color="green")
    assert state.pending is not None
    assert state.pending.type == "challenge"


# -- drawing --------------------------------------------------------------------------


def test_a_player_may_draw_even_when_holding_a_playable_card() -> None:
    state = four_players(["R7", "B3"], top="R2", draw=["R9", "G4"])
    r9 = next_to_draw(state, 1)[0]
    assert Move("draw") in legal_moves(state, 0)
    events = apply(state, 0, Move("draw"))
    assert types(events) == ["cards_drawn"]
    assert events[0].seat == 0
    assert events[0].data == {"count": 1, "reason": "draw", "cards": [r9]}
    assert r9 in state.hands[0]
    assert CODE_OF[state.draw_pile[-1]] == "G4"
    assert state.pending is not None
    assert (state.pending.type, state.pending.seat, state.pending.card) == (
        "drawn_card",
        0,
        r9,
    )
    assert state.current == 0
    assert state.to_act == 0


def test_a_playable_drawn_card_can_be_played_at_once() -> None:
    state = four_players(["R7", "B3"], top="R2", draw=["R9"])
    r9 = next_to_draw(state, 1)[0]
    apply(state, 0, Move("draw"))
    events = apply(state, 0, Move("play", card=r9))
    assert types(events) == ["card_played"]
    assert state.discard[-1] == r9
    assert state.pending is None
    assert state.current == 1
    assert sorted(hand_codes(state, 0)) == ["B3", "R7"]


def test_after_drawing_only_the_drawn_card_may_be_played() -> None:
    state = four_players(["R7", "B3"], top="R2", draw=["R9"])
    r9 = next_to_draw(state, 1)[0]
    apply(state, 0, Move("draw"))
    assert legal_moves(state, 0) == [Move("play", card=r9), Move("pass")]
    rejected(state, 0, Move("play", card=card_in_hand(state, 0, "R7")))


def test_a_playable_drawn_card_can_be_kept_with_pass() -> None:
    state = four_players(["R7", "B3"], top="R2", draw=["R9"])
    r9 = next_to_draw(state, 1)[0]
    apply(state, 0, Move("draw"))
    events = apply(state, 0, Move("pass"))
    assert types(events) == ["turn_passed"]
    assert events[0].seat == 0
    assert r9 in state.hands[0]
    assert state.pending is None
    assert state.current == 1
    assert CODE_OF[state.discard[-1]] == "R2"


def test_a_drawn_wild_can_be_played_at_once_naming_a_colour() -> None:
    state = four_players(["B3", "Y3"], top="R2", draw=["W"])
    wild = next_to_draw(state, 1)[0]
    apply(state, 0, Move("draw"))
    assert [m for m in legal_moves(state, 0) if m.action == "play"] == [
        Move("play", card=wild, color=c) for c in range(4)
    ]
    play(state, 0, "W", color="yellow")
    assert CODE_OF[state.discard[-1]] == "W"
    assert state.current == 1


def test_an_unplayable_drawn_card_ends_the_turn_by_itself() -> None:
    state = four_players(["G5", "Y7"], top="R2", draw=["B9"])
    b9 = next_to_draw(state, 1)[0]
    events = apply(state, 0, Move("draw"))
    assert types(events) == ["cards_drawn", "turn_passed"]
    assert events[0].data == {"count": 1, "reason": "draw", "cards": [b9]}
    assert events[1].seat == 0
    assert b9 in state.hands[0]
    assert state.pending is None
    assert state.current == 1


def test_a_player_who_has_drawn_cannot_draw_again() -> None:
    state = four_players(["R7", "B3"], top="R2", draw=["R9", "R8"])
    apply(state, 0, Move("draw"))
    rejected(state, 0, Move("draw"))


def test_a_player_cannot_pass_without_drawing_while_a_card_can_be_drawn() -> None:
    state = four_players(["G5", "B3"], top="R2")
    assert Move("pass") not in legal_moves(state, 0)
    error = rejected(state, 0, Move("pass"))
    assert error.code == "illegal_move"


# -- effects --------------------------------------------------------------------------


def test_a_number_passes_the_turn_to_the_next_player_in_the_direction_of_play() -> None:
    state = four_players(["R7", "B3"], top="R2", direction=-1)
    play(state, 0, "R7")
    assert state.current == 3
    assert state.direction == -1


def test_a_skip_skips_the_next_player() -> None:
    state = four_players(["RS", "B3"], top="R2")
    events = play(state, 0, "RS")
    assert types(events) == ["card_played", "player_skipped"]
    assert events[1].seat == 1
    assert state.current == 2
    assert [len(h) for h in state.hands] == [1, 3, 3, 3]


def test_a_skip_counterclockwise_skips_the_player_on_the_right() -> None:
    state = four_players(["RS", "B3"], top="R2", direction=-1)
    events = play(state, 0, "RS")
    assert events[1].type == "player_skipped"
    assert events[1].seat == 3
    assert state.current == 2


def test_a_skip_with_two_players_gives_the_same_player_another_turn() -> None:
    state = build_state([["RS", "B3", "B4"], ["G1", "G2"]], top="R2")
    events = play(state, 0, "RS")
    assert [(e.type, e.seat) for e in events] == [
        ("card_played", 0),
        ("player_skipped", 1),
    ]
    assert state.current == 0


def test_a_reverse_flips_the_direction_of_play() -> None:
    state = build_state(
        [["G1", "G2"], ["RR", "B3"], ["Y1", "Y2"], ["B4", "B5"]], top="R2", current=1
    )
    events = play(state, 1, "RR")
    assert types(events) == ["card_played", "direction_changed"]
    assert events[1].data == {"direction": "counterclockwise"}
    assert state.direction == -1
    assert state.current == 0
    assert "player_skipped" not in types(events)


def test_a_reverse_played_counterclockwise_turns_play_clockwise_again() -> None:
    state = build_state(
        [["G1", "G2"], ["RR", "B3"], ["Y1", "Y2"], ["B4", "B5"]],
        top="R2",
        current=1,
        direction=-1,
    )
    events = play(state, 1, "RR")
    assert events[1].data == {"direction": "clockwise"}
    assert state.direction == 1
    assert state.current == 2


def test_a_reverse_with_two_players_acts_as_a_skip() -> None:
    state = build_state([["RR", "B3", "B4"], ["G1", "G2"]], top="R2")
    events = play(state, 0, "RR")
    assert state.current == 0
    assert state.to_act == 0
    assert ("player_skipped", 1) in [(e.type, e.seat) for e in events]
    assert [len(h) for h in state.hands] == [2, 2]


def test_a_draw_two_makes_the_next_player_draw_2_and_lose_the_turn() -> None:
    state = four_players(["R+2", "B3"], top="R2", draw=["G7", "G8", "G9"])
    drawn = next_to_draw(state, 2)
    events = play(state, 0, "R+2")
    assert types(events) == ["card_played", "cards_drawn", "player_skipped"]
    assert events[1].seat == 1
    assert events[1].data == {"count": 2, "reason": "draw_two", "cards": drawn}
    assert events[2].seat == 1
    assert sorted(hand_codes(state, 1)) == ["G1", "G2", "G3", "G7", "G8"]
    assert state.current == 2
    assert state.pending is None


def test_a_draw_two_with_two_players_gives_the_turn_back() -> None:
    state = build_state([["R+2", "B3", "B4"], ["G1", "G2"]], top="R2")
    play(state, 0, "R+2")
    assert len(state.hands[1]) == 4
    assert state.current == 0


def test_a_wild_draw_four_leaves_the_next_player_to_challenge_or_accept() -> None:
    state = four_players(["W+4", "B3", "B4"], top="R2", direction=-1)
    play(state, 0, "W+4", color="yellow")
    assert state.pending is not None
    assert (state.pending.type, state.pending.seat) == ("challenge", 3)
    assert state.to_act == 3
    assert legal_moves(state, 3) == [Move("challenge"), Move("accept")]
    assert len(state.hands[3]) == 3  # nothing drawn before the decision
