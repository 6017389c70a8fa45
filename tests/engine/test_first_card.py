"""docs/rules.md, "The first card": all six rows of the table.

Games are found by scanning seeds 0, 1, 2, ... for the first one whose flipped card
has the wanted kind, which is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import games.engine.rules as engine_rules
from games.engine import (
    GameConfig,
    GameState,
    Move,
    NotYourTurn,
    WrongPhase,
    apply,
    legal_moves,
    new_game,
    seat_view,
)
from games.engine.cards import COLOR_OF, GREEN, IS_WILD, KIND_OF, WILD_DRAW_FOUR

NUMBER, SKIP, REVERSE, DRAW_TWO, WILD = "number", "skip", "reverse", "draw_two", "wild"
KIND_CODE = {NUMBER: 0, SKIP: 1, REVERSE: 2, DRAW_TWO: 3, WILD: 4}


def find_game(
    players: int,
    kind: str,
    also: Callable[[GameState], bool] = lambda state: True,
    limit: int = 5000,
) -> tuple[GameState, list[Any]]:
    for seed in range(limit):
        state, events = new_game(GameConfig(players=players), seed)
        started = next(e for e in events if e.type == "round_started")
        if KIND_OF[started.data["top_card"]] == KIND_CODE[kind] and also(state):
            return state, events
    raise AssertionError(f"no seed below {limit} flips a {kind} first with {players} players")


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


def round_started(events: list[Any]) -> Any:
    return next(e for e in events if e.type == "round_started")


def no_pending_and_current(state: GameState, seat: int) -> None:
    assert state.pending is None
    assert state.current == seat
    assert state.to_act == seat


def draw_and_end_turn(state: GameState, seat: int) -> None:
    """`seat` draws; a playable drawn card is kept, so the turn ends either way."""
    apply(state, seat, Move("draw"))
    if state.pending is not None:
        apply(state, seat, Move("pass"))


@pytest.mark.parametrize("players", [2, 4])
def test_a_number_first_card_lets_the_player_left_of_the_dealer_play_first_clockwise(
    players: int,
) -> None:
    state, events = find_game(players, NUMBER)
    left = (state.dealer + 1) % players
    no_pending_and_current(state, left)
    assert state.direction == 1
    assert state.color == COLOR_OF[state.discard[-1]]
    assert types(events) == ["game_started", "round_started"]
    started = round_started(events).data
    assert started["current_seat"] == left
    assert started["direction"] == "clockwise"
    assert started["current_color"] == ["red", "yellow", "green", "blue"][state.color]
    assert all(len(hand) == 7 for hand in state.hands)
    draw_and_end_turn(state, left)
    assert state.current == (left + 1) % players


def test_the_seat_left_of_the_last_seat_is_seat_0() -> None:
    state, _ = find_game(4, NUMBER, lambda s: s.dealer == 3)
    no_pending_and_current(state, 0)


def test_a_skip_as_first_card_skips_the_player_left_of_the_dealer() -> None:
    state, events = find_game(4, SKIP)
    dealer = state.dealer
    left = (dealer + 1) % 4
    no_pending_and_current(state, (dealer + 2) % 4)
    assert round_started(events).data["current_seat"] == (dealer + 2) % 4
    skipped = [e for e in events if e.type == "player_skipped"]
    assert [e.seat for e in skipped] == [left]
    assert len(state.hands[left]) == 7  # skipped, not penalised
    assert state.direction == 1


def test_a_skip_as_first_card_with_two_players_lets_the_dealer_play_first() -> None:
    state, events = find_game(2, SKIP)
    no_pending_and_current(state, state.dealer)
    assert [e.seat for e in events if e.type == "player_skipped"] == [1 - state.dealer]


def test_a_reverse_as_first_card_lets_the_dealer_play_first_counterclockwise() -> None:
    state, events = find_game(4, REVERSE)
    dealer = state.dealer
    no_pending_and_current(state, dealer)
    assert state.direction == -1
    started = round_started(events).data
    assert started["current_seat"] == dealer
    assert started["direction"] == "counterclockwise"
    changed = [e for e in events if e.type == "direction_changed"]
    assert [e.data["direction"] for e in changed] == ["counterclockwise"]
    assert "player_skipped" not in types(events)
    draw_and_end_turn(state, dealer)
    assert state.current == (dealer - 1) % 4


def test_a_reverse_as_first_card_with_two_players_lets_the_dealer_play_first() -> None:
    state, events = find_game(2, REVERSE)
    dealer = state.dealer
    no_pending_and_current(state, dealer)
    assert round_started(events).data["current_seat"] == dealer
    assert all(len(hand) == 7 for hand in state.hands)
    draw_and_end_turn(state, dealer)
    assert state.current == 1 - dealer


def test_a_draw_two_as_first_card_makes_the_player_left_draw_2_and_skips_them() -> None:
    state, events = find_game(4, DRAW_TWO)
    dealer = state.dealer
    left = (dealer + 1) % 4
    no_pending_and_current(state, (dealer + 2) % 4)
    drawn = [e for e in events if e.type == "cards_drawn"]
    assert len(drawn) == 1
    assert drawn[0].seat == left
    assert drawn[0].data["count"] == 2
    assert drawn[0].data["reason"] == "first_card"
    assert len(drawn[0].data["cards"]) == 2
    assert set(drawn[0].data["cards"]) <= set(state.hands[left])
    assert len(state.hands[left]) == 9
    assert [len(state.hands[s]) for s in range(4) if s != left] == [7, 7, 7]
    assert len(state.draw_pile) == 108 - 28 - 1 - 2
    assert [e.seat for e in events if e.type == "player_skipped"] == [left]
    assert types(events).index("cards_drawn") < types(events).index("player_skipped")
    assert round_started(events).data["current_seat"] == (dealer + 2) % 4


def test_a_draw_two_as_first_card_with_two_players_lets_the_dealer_play_first() -> None:
    state, _ = find_game(2, DRAW_TWO)
    no_pending_and_current(state, state.dealer)
    assert len(state.hands[1 - state.dealer]) == 9


def test_a_wild_as_first_card_lets_the_player_left_choose_the_colour() -> None:
    state, events = find_game(4, WILD)
    dealer = state.dealer
    left = (dealer + 1) % 4
    assert state.pending is not None
    assert state.pending.type == "choose_color"
    assert state.pending.seat == left
    assert state.to_act == left
    assert round_started(events).data["current_color"] is None
    view = seat_view(state, left)
    assert view["current_color"] is None
    assert view["pending"] == {"type": "choose_color", "seat": left}
    assert view["you"]["legal_moves"] == [
        {"action": "choose_color", "color": c} for c in ("red", "yellow", "green", "blue")
    ]
    assert legal_moves(state, left) == [Move("choose_color", color=c) for c in range(4)]
    for seat in range(4):
        if seat != left:
            assert legal_moves(state, seat) == []
    before = state.to_snapshot()
    card = state.hands[left][0]
    with pytest.raises(WrongPhase):
        apply(state, left, Move("play", card=card, color=0 if IS_WILD[card] else None))
    with pytest.raises(WrongPhase):
        apply(state, left, Move("draw"))
    with pytest.raises(NotYourTurn):
        apply(state, (left + 1) % 4, Move("choose_color", color=GREEN))
    assert state.to_snapshot() == before


def test_after_choosing_the_first_colour_the_same_player_takes_a_normal_turn() -> None:
    state, _ = find_game(4, WILD)
    left = (state.dealer + 1) % 4
    events = apply(state, left, Move("choose_color", color=GREEN))
    assert types(events) == ["color_chosen"]
    assert events[0].seat == left
    assert events[0].data == {"color": "green"}
    assert state.color == GREEN
    no_pending_and_current(state, left)
    moves = legal_moves(state, left)
    assert Move("draw") in moves
    plays = {m.card for m in moves if m.action == "play"}
    assert plays == {c for c in state.hands[left] if IS_WILD[c] or COLOR_OF[c] == GREEN}


def test_a_wild_draw_four_is_never_left_as_the_first_card() -> None:
    for seed in range(300):
        state, events = new_game(GameConfig(players=3), seed)
        assert KIND_OF[state.discard[-1]] != WILD_DRAW_FOUR
        assert round_started(events).data["top_card"] == state.discard[-1]
        cards = [c for h in state.hands for c in h] + state.draw_pile + state.discard
        assert sorted(cards) == list(range(108))


@pytest.fixture
def shuffles(monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[int], list[int]]]:
    """Every shuffle the engine makes, as (pile before, pile after). Only observes."""
    calls: list[tuple[list[int], list[int]]] = []
    real = engine_rules.shuffle_round

    def recording(cards: list[int], key: int | str, index: int) -> None:
        before = list(cards)
        real(cards, key, index)
        calls.append((before, list(cards)))

    monkeypatch.setattr(engine_rules, "shuffle_round", recording)
    return calls


def scan_for_reflips(
    shuffles: list[tuple[list[int], list[int]]], players: int, reflips: int
) -> tuple[GameState, list[Any]]:
    for seed in range(20000):
        shuffles.clear()
        state, events = new_game(GameConfig(players=players), seed)
        if len(shuffles) == reflips + 1:
            return state, events
    raise AssertionError(f"no seed re-flips a Wild Draw Four {reflips} times")


def check_reflips(
    shuffles: list[tuple[list[int], list[int]]], state: GameState, events: list[Any]
) -> None:
    players = state.players
    dealt = 7 * players
    started = round_started(events)
    _, deck = shuffles[0]
    # The hands were dealt once, from the first shuffle, and not touched by re-flips.
    assert sorted(c for h in started.data["hands"] for c in h) == sorted(deck[-dealt:])
    flipped = deck[: len(deck) - dealt][-1]
    for before, after in shuffles[1:]:
        # The flipped Wild Draw Four went back into the pile, which was reshuffled.
        assert KIND_OF[flipped] == WILD_DRAW_FOUR
        assert len(before) == 108 - dealt
        assert flipped in before
        assert sorted(before) == sorted(after)
        flipped = after[-1]
    assert KIND_OF[flipped] != WILD_DRAW_FOUR
    assert state.discard == [flipped]
    assert started.data["top_card"] == flipped
    assert sorted([c for h in state.hands for c in h] + state.draw_pile + state.discard) == list(
        range(108)
    )
    assert types(events)[:2] == ["game_started", "round_started"]
    assert WILD_DRAW_FOUR not in [KIND_OF[c] for c in state.discard]


def test_a_wild_draw_four_flipped_first_is_returned_reshuffled_and_replaced(
    shuffles: list[tuple[list[int], list[int]]],
) -> None:
    state, events = scan_for_reflips(shuffles, players=4, reflips=1)
    check_reflips(shuffles, state, events)


def test_the_wild_draw_four_re_flip_repeats_as_often_as_needed(
    shuffles: list[tuple[list[int], list[int]]],
) -> None:
    state, events = scan_for_reflips(shuffles, players=3, reflips=2)
    check_reflips(shuffles, state, events)


def test_a_game_with_a_re_flip_is_still_the_same_game_from_the_same_seed(
    shuffles: list[tuple[list[int], list[int]]],
) -> None:
    state, events = scan_for_reflips(shuffles, players=4, reflips=1)
    again, again_events = new_game(GameConfig(players=4), state.seed)
    assert again.to_snapshot() == state.to_snapshot()
    assert [e.to_json() for e in again_events] == [e.to_json() for e in events]
