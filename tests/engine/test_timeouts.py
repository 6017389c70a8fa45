"""docs/rules.md, "Timeouts and leaving": the default action for a seat that did not act,
and the count of timeouts in a row."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from games.engine import (
    TIMEOUTS_BEFORE_BOT,
    GameConfig,
    GameState,
    Move,
    Pending,
    apply,
    apply_timeout,
    new_game,
    seat_view,
)
from games.engine.cards import COLOR_BY_NAME, COLOR_NAMES, COLOR_OF, KIND_OF, NO_COLOR
from games.engine.position import build_state, card_in_hand, hand_codes

WILD_KIND = 4


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


def play(state: GameState, seat: int, code: str, color: str | None = None) -> list[Any]:
    card = card_in_hand(state, seat, code)
    colour = COLOR_BY_NAME[color] if color is not None else None
    return apply(state, seat, Move("play", card=card, color=colour))


def test_a_timeout_accepts_a_pending_wild_draw_four() -> None:
    state = build_state(
        [["W+4", "B3", "B4"], ["G1", "G2"], ["Y1", "Y2"]],
        top="R2",
        draw=["Y7", "Y8", "G7", "G8"],
    )
    four = list(reversed(state.draw_pile[-4:]))
    play(state, 0, "W+4", color="blue")
    events = apply_timeout(state)
    assert types(events) == ["turn_timed_out", "cards_drawn", "player_skipped"]
    assert events[0].seat == 1
    assert events[0].data == {"timeouts": 1}
    assert events[1].seat == 1
    assert events[1].data == {"count": 4, "reason": "wild_draw_four", "cards": four}
    assert events[2].seat == 1
    assert "challenged" not in types(events)
    assert len(state.hands[1]) == 6
    assert state.pending is None
    assert state.current == 2
    assert state.timeouts == [0, 1, 0]


def test_a_timeout_chooses_the_most_common_colour_when_a_colour_must_be_chosen() -> None:
    for seed in range(5000):
        state, _ = new_game(GameConfig(players=3), seed)
        if KIND_OF[state.discard[-1]] != WILD_KIND:
            continue
        left = (state.dealer + 1) % 3
        counts = Counter(COLOR_OF[c] for c in state.hands[left] if COLOR_OF[c] != NO_COLOR)
        ranked = counts.most_common()
        if len(ranked) > 1 and ranked[0][1] > ranked[1][1]:
            break
    else:
        pytest.fail("no seed flips a Wild first with a clear most common colour")
    favourite = ranked[0][0]
    hand = list(state.hands[left])
    events = apply_timeout(state)
    assert types(events) == ["turn_timed_out", "color_chosen"]
    assert events[0].seat == left
    assert events[1].seat == left
    assert events[1].data == {"color": COLOR_NAMES[favourite]}
    assert state.color == favourite
    assert state.pending is None
    assert state.current == left  # the normal turn that follows is still theirs
    assert state.hands[left] == hand


def test_a_timeout_chooses_the_colour_held_most_even_when_wilds_are_held() -> None:
    state = build_state([["W", "W", "G1", "G2", "B3"], ["R1", "R2"]], top="W", color="red")
    state.color = NO_COLOR
    state.pending = Pending("choose_color", 0)
    apply_timeout(state)
    assert COLOR_NAMES[state.color] == "green"


def test_a_timeout_draws_a_card_and_keeps_it_when_it_is_playable() -> None:
    state = build_state([["R7", "B3"], ["G1", "G2"]], top="R2", draw=["R9"])
    r9 = state.draw_pile[-1]
    events = apply_timeout(state)
    assert types(events) == ["turn_timed_out", "cards_drawn", "turn_passed"]
    assert events[1].data == {"count": 1, "reason": "draw", "cards": [r9]}
    assert events[2].seat == 0
    assert hand_codes(state, 0) == ["R7", "B3", "R9"]
    assert state.pending is None
    assert state.current == 1
    assert state.timeouts == [1, 0]


def test_a_timeout_draws_a_card_and_the_turn_ends_when_it_is_not_playable() -> None:
    state = build_state([["G7", "B3"], ["G1", "G2"]], top="R2", draw=["Y9"])
    events = apply_timeout(state)
    assert types(events) == ["turn_timed_out", "cards_drawn", "turn_passed"]
    assert hand_codes(state, 0) == ["G7", "B3", "Y9"]
    assert state.pending is None
    assert state.current == 1


def test_a_timeout_after_drawing_keeps_the_drawn_card_without_drawing_again() -> None:
    state = build_state([["R7", "B3"], ["G1", "G2"]], top="R2", draw=["R9", "R8"])
    apply(state, 0, Move("draw"))
    assert state.pending is not None
    assert state.pending.type == "drawn_card"
    events = apply_timeout(state)
    assert types(events) == ["turn_timed_out", "turn_passed"]
    assert events[0].data == {"timeouts": 1}
    assert hand_codes(state, 0) == ["R7", "B3", "R9"]
    assert state.pending is None
    assert state.current == 1


def test_a_timeout_with_nothing_left_to_draw_passes() -> None:
    state = build_state([["G7", "B3"], ["G1", "G2"]], top="R2", rest="none")
    events = apply_timeout(state)
    assert types(events) == ["turn_timed_out", "turn_passed"]
    assert hand_codes(state, 0) == ["G7", "B3"]
    assert state.current == 1


def test_timeouts_count_in_a_row_and_reset_when_the_seat_acts_itself() -> None:
    # Every drawn card is unplayable: each timeout draws and ends the turn.
    state = build_state(
        [["R7", "R8", "G1"], ["G2", "G3"]],
        top="R2",
        draw=["Y1", "Y2", "Y3", "Y4", "Y5"],
    )
    counts = []
    for _ in range(4):
        events = apply_timeout(state)
        counts.append((events[0].seat, events[0].data["timeouts"]))
    assert counts == [(0, 1), (1, 1), (0, 2), (1, 2)]
    assert state.timeouts == [2, 2]
    assert seat_view(state, None)["seats"][0]["timeouts"] == 2
    play(state, 0, "R7")
    assert state.timeouts == [0, 2]
    events = apply_timeout(state)
    assert events[0].data == {"timeouts": 3}
    assert state.timeouts == [0, 3]
    assert state.timeouts[1] == TIMEOUTS_BEFORE_BOT == 3
    events = apply_timeout(state)
    assert (events[0].seat, events[0].data) == (0, {"timeouts": 1})
