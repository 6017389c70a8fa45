"""docs/rules.md, "Deck and deal": the 108 cards, 2-10 seats, the seeded dealer, the deal
one card at a time from the left of the dealer, and determinism from the seed."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

import games.engine.rules as engine_rules
from games.engine import (
    CARDS,
    DECK_SIZE,
    GameConfig,
    InvalidConfig,
    apply,
    apply_timeout,
    legal_moves,
    new_game,
)


def all_cards(state: Any) -> list[int]:
    return [c for hand in state.hands for c in hand] + state.draw_pile + state.discard


def first_event(events: list[Any], type_: str) -> Any:
    return next(e for e in events if e.type == type_)


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


def test_the_classic_deck_has_108_cards_with_the_official_composition() -> None:
    assert DECK_SIZE == 108
    classic = CARDS[:DECK_SIZE]
    counts = Counter(card.code for card in classic)
    expected: Counter[str] = Counter()
    for letter in "RYGB":
        expected[letter + "0"] = 1
        for number in range(1, 10):
            expected[f"{letter}{number}"] = 2
        for symbol in ("S", "R", "+2"):
            expected[letter + symbol] = 2
    expected["W"] = 4
    expected["W+4"] = 4
    assert counts == expected
    per_colour = Counter(card.color for card in classic)
    assert per_colour == {"red": 25, "yellow": 25, "green": 25, "blue": 25, None: 8}


def test_the_modern_deck_adds_one_wild_shuffle_hands_and_three_wild_customizable() -> None:
    assert len(CARDS) == 112
    added = CARDS[DECK_SIZE:]
    assert [(card.id, card.code, card.kind, card.color) for card in added] == [
        (108, "WSH", "wild_shuffle_hands", None),
        (109, "WC", "wild_customizable", None),
        (110, "WC", "wild_customizable", None),
        (111, "WC", "wild_customizable", None),
    ]


def test_every_physical_card_has_a_stable_distinct_id_so_two_red_fives_differ() -> None:
    assert [card.id for card in CARDS] == list(range(112))
    red_fives = [card for card in CARDS if card.code == "R5"]
    assert len(red_fives) == 2
    assert red_fives[0].id != red_fives[1].id
    assert all(card.kind == "number" and card.number == 5 for card in red_fives)


def test_card_objects_carry_colour_kind_and_number_as_the_api_describes() -> None:
    by_code = {card.code: card for card in CARDS}
    assert by_code["B7"].to_json()["color"] == "blue"
    assert (by_code["GS"].kind, by_code["GS"].number) == ("skip", None)
    assert (by_code["YR"].kind, by_code["YR"].color) == ("reverse", "yellow")
    assert by_code["R+2"].kind == "draw_two"
    assert (by_code["W"].kind, by_code["W"].color) == ("wild", None)
    assert (by_code["W+4"].kind, by_code["W+4"].color) == ("wild_draw_four", None)
    assert set(by_code["R0"].to_json()) == {"id", "code", "color", "kind", "number"}


@pytest.mark.parametrize("players", range(2, 11))
def test_a_new_game_deals_seven_cards_to_each_of_2_to_10_seats_and_keeps_all_108(
    players: int,
) -> None:
    state, events = new_game(GameConfig(players=players), seed=players)
    started = first_event(events, "round_started")
    assert len(state.hands) == players
    assert [len(hand) for hand in started.data["hands"]] == [7] * players
    cards = all_cards(state)
    assert sorted(cards) == list(range(108))
    assert len(state.discard) == 1
    assert state.round == 1


@pytest.mark.parametrize("players", [0, 1, 11])
def test_a_game_needs_2_to_10_players(players: int) -> None:
    with pytest.raises(InvalidConfig):
        GameConfig(players=players)


def test_the_round_1_dealer_is_drawn_by_the_seeded_rng() -> None:
    dealers = set()
    for seed in range(60):
        state, events = new_game(GameConfig(players=4), seed)
        started = first_event(events, "game_started")
        assert started.data["dealer"] == state.dealer
        assert first_event(events, "round_started").data["dealer"] == state.dealer
        again, _ = new_game(GameConfig(players=4), seed)
        assert again.dealer == state.dealer
        dealers.add(state.dealer)
    assert dealers == {0, 1, 2, 3}


@pytest.mark.parametrize("players", [2, 3, 5])
def test_cards_are_dealt_one_at_a_time_from_the_left_of_the_dealer_then_one_flipped(
    shuffles: list[tuple[list[int], list[int]]], players: int
) -> None:
    for seed in range(200):
        shuffles.clear()
        state, events = new_game(GameConfig(players=players), seed)
        if len(shuffles) == 1 and state.dealer != 0:
            break
    else:
        pytest.fail("no seed with a dealer other than seat 0 and no re-flip")
    before, deck = shuffles[0]
    assert sorted(before) == list(range(108))  # the whole deck was shuffled
    started = first_event(events, "round_started")
    dealer = state.dealer
    # The top of a pile is its last element: the deal pops from the end.
    position = len(deck) - 1
    dealt: list[list[int]] = [[] for _ in range(players)]
    for _ in range(7):
        for offset in range(1, players + 1):
            dealt[(dealer + offset) % players].append(deck[position])
            position -= 1
    assert started.data["hands"] == dealt
    assert started.data["top_card"] == deck[position]
    assert state.discard[0] == deck[position]


def test_the_same_seed_and_the_same_actions_give_the_same_game() -> None:
    def play_out(seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        state, events = new_game(GameConfig(players=3), seed)
        for step in range(1000):
            if state.winner >= 0:
                break
            seat = state.to_act
            assert seat is not None
            if step % 7 == 6:
                events += apply_timeout(state)
            else:
                moves = legal_moves(state, seat)
                plays = [m for m in moves if m.action == "play"] or moves
                events += apply(state, seat, plays[step % len(plays)])
        assert state.round >= 3  # several deals and reshuffles were replayed
        return state.to_snapshot(), [e.to_json() for e in events]

    assert play_out(11) == play_out(11)
    assert play_out(11) != play_out(12)
