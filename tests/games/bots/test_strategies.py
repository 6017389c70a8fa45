"""Bots choose only legal moves, from one seat's view, and play their characters."""

from __future__ import annotations

import dataclasses
import random

import pytest

from games.bots import STRATEGIES, choose
from games.bots.common import guilt_probability
from games.engine import (
    GameConfig,
    Move,
    PlayerView,
    Rules,
    apply,
    legal_moves,
    new_game,
    player_view,
)
from games.engine.cards import RED
from games.engine.position import build_state, card_in_hand
from tests.random_games import bots_finish

ALL_RULES = Rules(
    stacking=True, seven_o=True, jump_in=True, draw_until_playable=True, force_play=True
)


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
@pytest.mark.parametrize("rules", [Rules(), ALL_RULES], ids=["official", "house"])
def test_every_bot_only_ever_chooses_a_legal_move_and_finishes_games(
    strategy: str, rules: Rules
) -> None:
    # The expert simulates thousands of moves per decision: one game is enough for it.
    for seed in range(1 if strategy == "expert" else 3):
        assert bots_finish(strategy, GameConfig(3, 0, rules), seed).finished


def test_a_players_view_holds_no_other_hand() -> None:
    names = {field.name for field in dataclasses.fields(PlayerView)}
    assert "hands" not in names
    assert "draw_pile" not in names
    state, _ = new_game(GameConfig(4), 5)
    view = player_view(state, 1)
    others = {c for seat, hand in enumerate(state.hands) if seat != 1 for c in hand}
    assert others.isdisjoint(view.hand)
    assert others.isdisjoint(view.discard)
    assert others <= set(view.unseen())


def test_the_random_bot_never_challenges_and_says_uno() -> None:
    state = build_state([["R5", "R7"], ["B1", "B2"]], top="R2")
    rng = random.Random(0)
    move = choose("random", player_view(state, 0), rng)
    assert move is not None
    assert move.uno
    state = build_state([["G5", "W+4", "G1"], ["B1", "B2"]], top="R2")
    apply(state, 0, Move("play", card=card_in_hand(state, 0, "W+4"), color=RED))
    assert choose("random", player_view(state, 1), rng) == Move("accept")


def test_the_random_bot_does_nothing_out_of_turn() -> None:
    state = build_state([["R5", "R7"], ["B1", "B2"], ["G1", "G2"]], top="R2")
    apply(state, 0, Move("play", card=card_in_hand(state, 0, "R5")))  # forgets UNO
    assert Move("catch_uno", target=0) in legal_moves(state, 2)
    assert choose("random", player_view(state, 2), random.Random(0)) is None
    assert choose("random", player_view(state, 0), random.Random(0)) is None


def test_the_greedy_bot_catches_a_forgotten_uno_at_once() -> None:
    state = build_state([["R5", "R7"], ["B1", "B2"], ["G1", "G2"]], top="R2")
    apply(state, 0, Move("play", card=card_in_hand(state, 0, "R5")))
    assert choose("greedy", player_view(state, 2), random.Random(0)) == Move("catch_uno", target=0)


def test_the_greedy_bot_keeps_its_wild_when_another_card_fits() -> None:
    state = build_state([["W", "R9", "B3"], ["B1", "B2"]], top="R2")
    move = choose("greedy", player_view(state, 0), random.Random(0))
    assert move == Move("play", card=card_in_hand(state, 0, "R9"))


def test_the_greedy_bot_names_the_colour_it_holds_most() -> None:
    state = build_state([["W", "G1", "G2", "B3"], ["B1", "B2"]], top="Y5")
    move = choose("greedy", player_view(state, 0), random.Random(0))
    assert move is not None
    assert move.card == card_in_hand(state, 0, "W")
    assert move.color == 2  # green


def test_the_greedy_bot_challenges_when_the_accused_likely_held_the_colour() -> None:
    # Seat 0 plays a Wild Draw Four holding many cards: it probably held red.
    hand = ["W+4", "R1", "Y1", "G1", "B1", "Y2", "G2", "B2", "Y3", "G3"]
    state = build_state([hand, ["B5", "B6"]], top="R2")
    apply(state, 0, Move("play", card=card_in_hand(state, 0, "W+4"), color=RED))
    view = player_view(state, 1)
    assert guilt_probability(view) > 0.5
    assert choose("greedy", view, random.Random(0)) == Move("challenge")


def test_the_expert_bot_is_a_pure_function_of_its_view_and_rng() -> None:
    state, _ = new_game(GameConfig(2), 11)
    view = player_view(state, state.to_act or 0)
    first = choose("expert", view, random.Random(3))
    again = choose("expert", view, random.Random(3))
    assert first == again
    assert first is not None
    assert first.without_uno() in view.legal_moves
