"""docs/rules.md, "A turn", the piles: drawing from the top, reshuffling the discard pile
(except its top card) when the draw pile is empty, both piles exhausted, and
penalties drawn as far as the cards go."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import (
    GameConfig,
    GameState,
    IllegalMove,
    Move,
    apply,
    apply_timeout,
    legal_moves,
    new_game,
)
from games.engine.cards import CODE_OF, GREEN
from games.engine.position import build_state, card_in_hand, hand_codes


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


def play(state: GameState, seat: int, code: str, color: int | None = None) -> list[Any]:
    return apply(state, seat, Move("play", card=card_in_hand(state, seat, code), color=color))


def every_card(state: GameState) -> list[int]:
    return sorted([c for h in state.hands for c in h] + state.draw_pile + state.discard)


def test_a_draw_takes_the_top_card_of_the_draw_pile() -> None:
    state = build_state([["B3", "B4"], ["G1", "G2"]], top="R2", draw=["G5", "Y6"])
    g5, y6 = state.draw_pile[-1], state.draw_pile[-2]
    events = apply(state, 0, Move("draw"))
    assert events[0].data["cards"] == [g5]
    assert state.hands[0][-1] == g5
    assert state.draw_pile[-1] == y6


def test_an_empty_draw_pile_is_refilled_from_the_discard_pile_except_its_top_card() -> None:
    state = build_state(
        [["B3", "B4"], ["G1", "G2"]], top="R2", discard=["B1", "G3", "Y4"], rest="none"
    )
    assert state.draw_pile == []
    top = state.discard[-1]
    under = set(state.discard[:-1])
    cards = every_card(state)
    events = apply(state, 0, Move("draw"))
    drawn = events[0].data["cards"]
    assert events[0].type == "cards_drawn"
    assert events[0].data["count"] == 1
    assert drawn[0] in under
    assert state.discard == [top]
    assert set(state.draw_pile) == under - set(drawn)
    assert state.color == 0  # still red: the top card stays
    assert every_card(state) == cards


def test_the_reshuffle_keeps_a_wild_on_top_and_its_named_colour() -> None:
    state = build_state(
        [["Y3", "Y4"], ["R1", "R2"]],
        top="W",
        color="green",
        discard=["B1", "B7"],
        rest="none",
    )
    wild = state.discard[-1]
    apply(state, 0, Move("draw"))
    assert state.discard == [wild]
    assert state.color == GREEN


def reshuffle_state(seed: int) -> GameState:
    # Every card not in a hand lies in the discard pile: the draw pile is empty.
    return build_state([["Y3", "Y4"], ["R1", "R5"]], top="B9", rest="discard", seed=seed)


def test_the_reshuffle_really_shuffles_and_is_seeded() -> None:
    state = reshuffle_state(seed=5)
    under = state.discard[:-1]
    assert len(under) == 108 - 4 - 1
    same = reshuffle_state(seed=5)
    other = reshuffle_state(seed=6)
    for s in (state, same, other):
        apply(s, 0, Move("draw"))
    new_pile = [*state.draw_pile, state.hands[0][-1]]
    assert sorted(new_pile) == sorted(under)
    assert new_pile != under
    assert new_pile != list(reversed(under))
    assert state.to_snapshot() == same.to_snapshot()
    assert other.draw_pile != state.draw_pile
    assert len(state.discard) == 1


def test_a_penalty_goes_on_from_the_reshuffled_pile_when_the_draw_pile_runs_out() -> None:
    state = build_state(
        [["R+2", "B3"], ["G1", "G2"], ["Y1", "Y2"]],
        top="R2",
        discard=["B1", "Y4"],
        draw=["G5"],
        rest="none",
    )
    g5 = state.draw_pile[-1]
    old_discard = set(state.discard)
    events = play(state, 0, "R+2")
    assert types(events) == ["card_played", "cards_drawn", "player_skipped"]
    drawn = events[1].data["cards"]
    assert events[1].data["count"] == 2
    assert drawn[0] == g5
    assert drawn[1] in old_discard
    assert CODE_OF[state.discard[-1]] == "R+2"
    assert len(state.discard) == 1
    assert len(state.draw_pile) == 2
    assert state.current == 2


def exhausted(hand0: list[str]) -> GameState:
    return build_state([hand0, ["G1", "G2"], ["Y1", "Y2"]], top="R2", rest="none")


def test_when_both_piles_are_exhausted_draw_is_not_legal_and_pass_is() -> None:
    state = exhausted(["B3", "G4"])
    assert state.draw_pile == []
    assert len(state.discard) == 1
    moves = legal_moves(state, 0)
    assert Move("draw") not in moves
    assert Move("pass") in moves
    before = state.to_snapshot()
    with pytest.raises(IllegalMove) as caught:
        apply(state, 0, Move("draw"))
    assert caught.value.code == "illegal_move"
    assert state.to_snapshot() == before
    events = apply(state, 0, Move("pass"))
    assert types(events) == ["turn_passed"]
    assert events[0].seat == 0
    assert hand_codes(state, 0) == ["B3", "G4"]
    assert state.current == 1
    assert state.pending is None


def test_a_draw_two_penalty_is_drawn_as_far_as_the_cards_go() -> None:
    state = exhausted(["R+2", "B3"])
    r2 = state.discard[-1]
    events = play(state, 0, "R+2")
    assert types(events) == ["card_played", "cards_drawn", "player_skipped"]
    assert events[1].seat == 1
    assert events[1].data == {"count": 1, "reason": "draw_two", "cards": [r2]}
    assert hand_codes(state, 1) == ["G1", "G2", "R2"]
    assert events[2].seat == 1
    assert state.current == 2
    assert state.draw_pile == []
    assert CODE_OF[state.discard[-1]] == "R+2"


def test_an_accepted_wild_draw_four_is_drawn_as_far_as_the_cards_go() -> None:
    state = build_state(
        [["W+4", "B3", "B4"], ["G1", "G2"], ["Y1", "Y2"]],
        top="R2",
        draw=["G5"],
        rest="none",
    )
    play(state, 0, "W+4", color=GREEN)
    events = apply(state, 1, Move("accept"))
    drawn = next(e for e in events if e.type == "cards_drawn")
    assert drawn.data["count"] == 2
    assert sorted(CODE_OF[c] for c in drawn.data["cards"]) == ["G5", "R2"]
    assert len(state.hands[1]) == 4
    assert state.current == 2
    assert [CODE_OF[c] for c in state.discard] == ["W+4"]
    assert state.color == GREEN


def test_a_uno_penalty_is_drawn_as_far_as_the_cards_go() -> None:
    state = exhausted(["B2", "B3"])
    play(state, 0, "B2")  # second-to-last card, UNO not said; the discard is now R2, B2
    events = apply(state, 2, Move("catch_uno", target=0))
    drawn = next(e for e in events if e.type == "cards_drawn")
    assert drawn.data["count"] == 1
    assert drawn.data["reason"] == "uno_penalty"
    assert sorted(hand_codes(state, 0)) == ["B3", "R2"]


def test_all_108_cards_stay_in_play_through_long_games_with_reshuffles() -> None:
    state, _ = new_game(GameConfig(players=2, target_score=10_000), seed=3)
    reshuffles = 0
    for step in range(1500):
        seat = state.to_act
        if seat is None:
            break
        empty_before, round_before = not state.draw_pile, state.round
        if step % 10 == 9:
            apply_timeout(state)
        else:
            moves = legal_moves(state, seat)
            hoarding = [m for m in moves if m.action in ("draw", "accept", "pass")]
            apply(state, seat, hoarding[0] if hoarding and step % 3 else moves[0])
        if empty_before and state.draw_pile and state.round == round_before:
            reshuffles += 1
        assert every_card(state) == list(range(108))
    assert reshuffles > 0
