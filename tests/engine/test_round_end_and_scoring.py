"""docs/rules.md, "End of a round and scoring": going out, the last Draw Two / Wild Draw
Four, the points table, the target score, single-round games and the next deal."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import GameState, Move, WrongPhase, apply, apply_timeout, legal_moves
from games.engine.cards import COLOR_BY_NAME, GREEN
from games.engine.position import build_state, card_in_hand


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


def event(events: list[Any], type_: str) -> Any:
    found = [e for e in events if e.type == type_]
    assert len(found) == 1, types(events)
    return found[0]


def go_out(state: GameState, seat: int, code: str, color: str | None = None) -> list[Any]:
    card = card_in_hand(state, seat, code)
    colour = COLOR_BY_NAME[color] if color is not None else None
    return apply(state, seat, Move("play", card=card, color=colour))


def three_seats(
    last: str = "R7",
    hand1: list[str] | None = None,
    hand2: list[str] | None = None,
    **kwargs: Any,
) -> GameState:
    return build_state(
        [[last], hand1 or ["G5", "BS", "YR"], hand2 or ["B+2", "W", "W+4", "Y0", "G9"]],
        top="R2",
        **kwargs,
    )


def test_the_last_card_ends_the_round_and_scores_the_cards_left_in_other_hands() -> None:
    state = three_seats(scores=[10, 20, 30])
    left = [list(state.hands[1]), list(state.hands[2])]
    events = go_out(state, 0, "R7")
    assert types(events)[:2] == ["card_played", "round_ended"]
    ended = event(events, "round_ended")
    assert ended.seat == 0
    assert ended.round == 1
    # 5 + 20 + 20, and 20 + 50 + 50 + 0 + 9
    assert ended.data["points"] == 45 + 129
    assert ended.data["scores"] == [184, 20, 30]
    assert ended.data["hands"] == [[], *left]
    assert state.scores == [184, 20, 30]


@pytest.mark.parametrize(
    ("code", "points"),
    [
        ("Y0", 0),
        ("R1", 1),
        ("G5", 5),
        ("B9", 9),
        ("RS", 20),
        ("YR", 20),
        ("G+2", 20),
        ("W", 50),
        ("W+4", 50),
    ],
)
def test_each_card_left_in_a_hand_is_worth_its_points(code: str, points: int) -> None:
    state = build_state([["R7"], [code]], top="R2")
    events = go_out(state, 0, "R7")
    assert event(events, "round_ended").data["points"] == points
    assert state.scores == [points, 0]


def test_going_out_on_a_draw_two_still_makes_the_next_player_draw_and_they_count() -> None:
    state = three_seats("R+2", hand1=["G5"], hand2=["Y1"], draw=["Y9", "BS", "G4"])
    two = list(reversed(state.draw_pile[-2:]))
    events = go_out(state, 0, "R+2")
    assert types(events)[:3] == ["card_played", "cards_drawn", "round_ended"]
    drawn = events[1]
    assert drawn.seat == 1
    assert drawn.data == {"count": 2, "reason": "draw_two", "cards": two}
    ended = events[2]
    assert ended.data["points"] == 5 + 9 + 20 + 1
    assert set(two) < set(ended.data["hands"][1])
    assert len(ended.data["hands"][1]) == 3


def test_going_out_on_a_wild_draw_four_makes_the_next_draw_four_unchallenged() -> None:
    state = three_seats("W+4", hand1=["G5"], hand2=["Y1"], draw=["Y9", "BS", "W", "G1", "G4"])
    four = list(reversed(state.draw_pile[-4:]))
    events = go_out(state, 0, "W+4", color="green")
    assert types(events)[:3] == ["card_played", "cards_drawn", "round_ended"]
    assert "challenged" not in types(events)
    assert events[0].data["color"] == "green"
    assert events[1].seat == 1
    assert events[1].data == {"count": 4, "reason": "wild_draw_four", "cards": four}
    assert events[2].data["points"] == 5 + 9 + 20 + 50 + 1 + 1
    assert len(events[2].data["hands"][1]) == 5


def test_going_out_on_a_wild_draw_four_counterclockwise_penalises_the_right() -> None:
    state = three_seats(
        "W+4", hand1=["G5"], hand2=["Y1"], draw=["Y9", "BS", "W", "G1"], direction=-1
    )
    events = go_out(state, 0, "W+4", color="green")
    assert events[1].seat == 2
    assert events[2].data["points"] == 5 + 1 + 9 + 20 + 50 + 1


def test_the_game_ends_when_a_player_reaches_the_target_score() -> None:
    state = three_seats(hand1=["G5"], hand2=["Y5"], target_score=100, scores=[90, 95, 0])
    events = go_out(state, 0, "R7")
    assert types(events) == ["card_played", "round_ended", "game_ended"]
    ended = events[2]
    assert ended.seat == 0
    assert ended.data == {"winner": 0, "scores": [100, 95, 0]}
    assert state.winner == 0
    assert state.to_act is None
    assert state.round == 1
    for seat in range(3):
        assert legal_moves(state, seat) == []


def test_the_game_goes_on_below_the_target_score() -> None:
    state = three_seats(hand1=["G5"], hand2=["Y4"], target_score=100, scores=[90, 0, 0])
    events = go_out(state, 0, "R7")
    assert "game_ended" not in types(events)
    assert state.scores == [99, 0, 0]
    assert state.winner == -1
    assert state.round == 2


def test_a_target_score_of_zero_means_a_single_round() -> None:
    state = three_seats(hand1=["G1"], hand2=["Y0"], target_score=0)
    events = go_out(state, 0, "R7")
    assert types(events) == ["card_played", "round_ended", "game_ended"]
    assert events[2].data == {"winner": 0, "scores": [1, 0, 0]}
    assert state.winner == 0


def test_no_move_is_accepted_after_the_game_has_ended() -> None:
    state = three_seats(target_score=0)
    go_out(state, 0, "R7")
    before = state.to_snapshot()
    for seat, move in [
        (1, Move("draw")),
        (1, Move("play", card=card_in_hand(state, 1, "G5"))),
        (2, Move("pass")),
        (0, Move("call_uno")),
        (2, Move("catch_uno", target=1)),
        (1, Move("challenge")),
    ]:
        with pytest.raises(WrongPhase) as caught:
            apply(state, seat, move)
        assert caught.value.code == "wrong_phase"
    with pytest.raises(WrongPhase):
        apply_timeout(state)
    assert state.to_snapshot() == before


@pytest.mark.parametrize(("dealer", "next_dealer"), [(1, 2), (2, 0)])
def test_the_next_round_is_dealt_automatically_by_the_next_dealer(
    dealer: int, next_dealer: int
) -> None:
    state = three_seats(dealer=dealer, hand1=["G5"], hand2=["Y5"], scores=[0, 7, 0])
    events = go_out(state, 0, "R7")
    assert types(events)[:3] == ["card_played", "round_ended", "round_started"]
    started = events[2]
    assert started.round == 2
    assert started.data["dealer"] == next_dealer
    assert [len(hand) for hand in started.data["hands"]] == [7, 7, 7]
    assert state.round == 2
    assert state.dealer == next_dealer
    assert state.scores == [10, 7, 0]
    assert state.winner == -1
    cards = [c for h in state.hands for c in h] + state.draw_pile + state.discard
    assert sorted(cards) == list(range(108))
    assert state.to_act is not None


def test_the_next_round_is_dealt_fresh_with_nobody_having_said_uno() -> None:
    state = build_state([["R7"], ["G5", "G6"], ["Y5"]], top="R2")
    state.said_uno = [False, False, True]  # seat 2 said UNO earlier in the round
    go_out(state, 0, "R7")
    assert state.round == 2
    assert state.said_uno == [False, False, False]
    assert state.uno_owed == -1
    assert state.pending is None or state.pending.type == "choose_color"


def test_going_out_with_a_wild_names_a_colour_and_ends_the_round() -> None:
    state = three_seats("W", hand1=["G5"], hand2=["Y5"], target_score=0)
    events = go_out(state, 0, "W", color="green")
    assert events[0].data["color"] == "green"
    assert event(events, "round_ended").data["points"] == 10
    assert state.color == GREEN


def test_the_next_deal_comes_from_the_games_seed() -> None:
    def next_round(seed: int) -> list[list[int]]:
        state = three_seats(hand1=["G5"], hand2=["Y5"], seed=seed)
        go_out(state, 0, "R7")
        return state.hands

    assert next_round(1) == next_round(1)
    assert next_round(1) != next_round(2)
