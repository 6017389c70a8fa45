"""docs/rules.md, "Saying UNO": the flag on the play, call_uno afterwards, catching, and
exactly when the catch window closes."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import (
    GameState,
    IllegalMove,
    Move,
    Pending,
    apply,
    apply_timeout,
    legal_moves,
)
from games.engine.cards import COLOR_BY_NAME, NO_COLOR
from games.engine.position import build_state, card_in_hand, hand_codes


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


def play(
    state: GameState, seat: int, code: str, color: str | None = None, uno: bool = False
) -> list[Any]:
    card = card_in_hand(state, seat, code)
    colour = COLOR_BY_NAME[color] if color is not None else None
    return apply(state, seat, Move("play", card=card, color=colour, uno=uno))


def table(hand0: list[str] | None = None, **kwargs: Any) -> GameState:
    """Three seats; seat 0 is about to play down to one card."""
    return build_state(
        [hand0 or ["R7", "B3"], ["G1", "G2", "G3"], ["Y1", "Y2", "Y3"]],
        top="R2",
        draw=kwargs.pop("draw", ["G8", "G9", "Y8", "Y9"]),
        **kwargs,
    )


def catch_rejected(state: GameState, by: int, target: int = 0) -> IllegalMove:
    before = state.to_snapshot()
    with pytest.raises(IllegalMove) as caught:
        apply(state, by, Move("catch_uno", target=target))
    assert state.to_snapshot() == before
    return caught.value


def test_playing_the_second_to_last_card_with_uno_true_says_uno() -> None:
    state = table()
    events = play(state, 0, "R7", uno=True)
    assert types(events) == ["card_played", "uno_called"]
    assert events[1].seat == 0
    assert state.said_uno[0] is True
    for seat in (1, 2):
        assert Move("catch_uno", target=0) not in legal_moves(state, seat)
    error = catch_rejected(state, 1)
    assert type(error) is IllegalMove
    assert error.code == "illegal_move"


def test_the_second_to_last_card_without_uno_leaves_the_player_catchable() -> None:
    state = table()
    events = play(state, 0, "R7")
    assert types(events) == ["card_played"]
    assert state.said_uno[0] is False
    assert state.uno_owed == 0
    assert Move("call_uno") in legal_moves(state, 0)
    assert Move("catch_uno", target=0) in legal_moves(state, 1)
    assert Move("catch_uno", target=0) in legal_moves(state, 2)


def test_call_uno_after_the_play_says_uno_and_a_catch_is_then_rejected() -> None:
    state = table()
    play(state, 0, "R7")
    events = apply(state, 0, Move("call_uno"))
    assert types(events) == ["uno_called"]
    assert events[0].seat == 0
    assert state.said_uno[0] is True
    assert state.current == 1  # saying UNO out of turn takes nobody's turn
    catch_rejected(state, 1)
    catch_rejected(state, 2)


def test_any_other_player_may_catch_and_the_caught_player_draws_two() -> None:
    state = table()
    play(state, 0, "R7")
    two = list(reversed(state.draw_pile[-2:]))
    events = apply(state, 2, Move("catch_uno", target=0))
    assert types(events) == ["uno_caught", "cards_drawn"]
    assert events[0].seat == 0
    assert events[0].data == {"by": 2}
    assert events[1].seat == 0
    assert events[1].data == {"count": 2, "reason": "uno_penalty", "cards": two}
    assert hand_codes(state, 0) == ["B3", "G8", "G9"]
    assert state.uno_owed == -1
    assert state.current == 1  # the catch is not a turn
    assert hand_codes(state, 2) == ["Y1", "Y2", "Y3"]
    catch_rejected(state, 1)  # caught once is enough: three cards now


def test_the_next_player_may_catch_before_taking_their_turn() -> None:
    state = table()
    play(state, 0, "R7")
    apply(state, 1, Move("catch_uno", target=0))
    assert len(state.hands[0]) == 3
    assert state.current == 1
    assert state.pending is None
    apply(state, 1, Move("draw"))


def test_a_catch_against_a_player_who_said_uno_is_rejected_and_costs_nothing() -> None:
    state = table()
    play(state, 0, "R7", uno=True)
    error = catch_rejected(state, 2)
    assert error.code == "illegal_move"
    assert hand_codes(state, 2) == ["Y1", "Y2", "Y3"]


def test_a_catch_of_a_player_with_several_cards_is_rejected_and_costs_nothing() -> None:
    state = table(["R7", "B3", "B4"])
    play(state, 0, "R7")
    catch_rejected(state, 1, target=0)
    catch_rejected(state, 1, target=2)
    catch_rejected(state, 0, target=1)


def test_a_player_who_draws_and_plays_down_to_one_card_must_say_uno() -> None:
    state = table(["B3", "G4"], draw=["R9"])
    apply(state, 0, Move("draw"))
    play(state, 0, "R9")
    assert len(state.hands[0]) == 2
    state = table(["B3"], draw=["R9"])
    apply(state, 0, Move("draw"))
    play(state, 0, "R9")
    assert hand_codes(state, 0) == ["B3"]
    assert Move("catch_uno", target=0) in legal_moves(state, 2)
    apply(state, 2, Move("catch_uno", target=0))
    assert len(state.hands[0]) == 3


# -- the catch window ------------------------------------------------------------------


def test_the_catch_window_closes_at_the_next_play() -> None:
    state = build_state([["R7", "B3"], ["G1", "R3"], ["Y1", "Y2"]], top="R2")
    play(state, 0, "R7")
    play(state, 1, "R3")  # seat 1 is now down to one card without UNO
    catch_rejected(state, 2, target=0)
    assert state.uno_owed == 1
    assert Move("catch_uno", target=1) in legal_moves(state, 2)


def test_the_catch_window_closes_at_the_next_draw() -> None:
    state = table()
    play(state, 0, "R7")
    apply(state, 1, Move("draw"))
    catch_rejected(state, 2)
    catch_rejected(state, 1)


def test_a_draw_two_penalty_does_not_close_the_window_but_the_next_pass_does() -> None:
    # Nothing left to draw once seat 1 has taken its penalty, so seat 2 can only pass.
    state = build_state([["R+2", "B3"], ["G1", "G2"], ["Y1", "Y2"]], top="R2", rest="none")
    events = play(state, 0, "R+2")
    assert types(events) == ["card_played", "cards_drawn", "player_skipped"]
    assert state.current == 2
    assert Move("catch_uno", target=0) in legal_moves(state, 1)
    assert legal_moves(state, 2) == [Move("pass"), Move("catch_uno", target=0)]
    apply(state, 2, Move("pass"))
    catch_rejected(state, 1)


def test_the_catch_window_closes_at_a_colour_choice() -> None:
    # A constructed table: seat 1 must choose a colour while seat 0 is catchable.
    state = table(["B3"])
    state.pending = Pending("choose_color", 1)
    state.color = NO_COLOR
    state.current = 1
    state.uno_owed = 0
    assert Move("catch_uno", target=0) in legal_moves(state, 2)
    apply(state, 1, Move("choose_color", color=COLOR_BY_NAME["green"]))
    catch_rejected(state, 2)


def wild_draw_four_down_to_one() -> GameState:
    state = table(["W+4", "B3"])
    play(state, 0, "W+4", color="blue")
    assert state.pending is not None
    assert state.pending.type == "challenge"
    return state


def test_a_catch_is_allowed_while_the_next_players_challenge_decision_is_pending() -> None:
    state = wild_draw_four_down_to_one()
    assert Move("catch_uno", target=0) in legal_moves(state, 1)
    assert Move("catch_uno", target=0) in legal_moves(state, 2)
    events = apply(state, 2, Move("catch_uno", target=0))
    assert types(events) == ["uno_caught", "cards_drawn"]
    assert len(state.hands[0]) == 3
    assert state.pending is not None
    assert state.pending.seat == 1
    assert legal_moves(state, 1) == [Move("challenge"), Move("accept")]


def test_the_catch_window_closes_at_an_accept() -> None:
    state = wild_draw_four_down_to_one()
    apply(state, 1, Move("accept"))
    catch_rejected(state, 2)


def test_the_catch_window_closes_at_a_challenge() -> None:
    state = wild_draw_four_down_to_one()
    apply(state, 1, Move("challenge"))  # innocent: seat 0 held no red
    assert len(state.hands[0]) == 1
    catch_rejected(state, 2)


def test_the_window_stays_open_while_other_players_catch_or_call_in_vain() -> None:
    state = table()
    play(state, 0, "R7")
    with pytest.raises(IllegalMove):
        apply(state, 2, Move("call_uno"))
    catch_rejected(state, 2, target=1)
    apply(state, 2, Move("catch_uno", target=0))
    assert len(state.hands[0]) == 3


def test_uno_can_be_called_while_the_next_players_challenge_decision_is_pending() -> None:
    state = wild_draw_four_down_to_one()
    events = apply(state, 0, Move("call_uno"))
    assert types(events) == ["uno_called"]
    assert state.said_uno[0] is True
    assert state.pending is not None
    assert state.pending.seat == 1
    catch_rejected(state, 2)


def test_a_timed_out_turn_closes_the_catch_window() -> None:
    state = table()
    play(state, 0, "R7")
    apply_timeout(state)  # seat 1 draws by default
    catch_rejected(state, 2)
