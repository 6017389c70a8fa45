"""Bots with the 112-card deck (docs/rules.md, "The 112-card deck"): every strategy
finishes games of every Wild Customizable with legal moves; the greedy bot plays Wild
Shuffle Hands while it holds more cards than the average hand (its team's share, in
partners) and keeps it otherwise, swaps with the smallest hand but never its
partner's, sheds the colour it holds most; bots forget what they knew of hands a
shuffle dealt anew, and the expert's worlds hold all 112 cards."""

from __future__ import annotations

import random

import pytest

from games.bots import STRATEGIES, choose, memory
from games.bots.expert.sampling import determinize
from games.engine import GameConfig, Move, apply, new_game, player_view
from games.engine.cards import BLUE, SHUFFLE_HANDS
from games.engine.position import build_state, card_in_hand
from games.engine.state import CUSTOM_EFFECTS
from tests.random_games import bots_finish

MODERN = {"deck": "modern_112"}


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
@pytest.mark.parametrize("effect", CUSTOM_EFFECTS)
def test_every_bot_finishes_modern_games_with_legal_moves(strategy: str, effect: str) -> None:
    config = GameConfig(3, 0, deck="modern_112", wild_customizable=effect)  # type: ignore[arg-type]
    for seed in range(1 if strategy == "expert" else 3):
        assert bots_finish(strategy, config, seed).card_total() == 112


def test_greedy_bots_at_a_table_of_ten_finish_when_everyone_draws_one() -> None:
    # Seed 1 once passed the same two Wild Customizable back and forth without end.
    config = GameConfig(10, 0, deck="modern_112", wild_customizable="everyone_draws_one")
    for seed in range(4):
        assert bots_finish("greedy", config, seed).finished


def move_of(state, seat: int = 0) -> Move:  # type: ignore[no-untyped-def]
    move = choose("greedy", player_view(state, seat), random.Random(0))
    assert move is not None
    return move


def test_the_greedy_bot_shuffles_hands_when_it_holds_more_than_the_average():
    many = [["WSH", "R1", "R2", "B3", "B7", "G8"], ["B1"], ["G1", "G2"]]
    assert move_of(build_state(many, top="R5", **MODERN)).card == SHUFFLE_HANDS
    few = [["WSH", "R1"], ["B1", "B2", "B4", "B6"], ["G1", "G2", "G3", "G4"]]
    assert move_of(build_state(few, top="R5", **MODERN)).card != SHUFFLE_HANDS


def test_in_partners_the_greedy_bot_weighs_its_team_s_cards_against_the_other_team_s():
    # Seat 0 holds more than the average hand, but its partner holds one card: the team
    # holds fewer than the other, so a shuffle would hand the other team cards.
    hands = [["WSH", "R1", "R2", "B3", "B7"], ["B1", "B2", "B4"], ["G1"], ["Y1", "Y2", "Y3"]]
    state = build_state(hands, top="R5", mode="partners", **MODERN)
    assert move_of(state).card != SHUFFLE_HANDS


def test_the_greedy_bot_swaps_with_the_smallest_hand_but_never_its_partner_s():
    hands = [["WC", "R1", "R2", "B3", "B7"], ["B1", "B2"], ["G1"], ["Y1", "Y2", "Y3"]]
    classic = build_state(hands, top="R5", wild_customizable="swap_hands", **MODERN)
    assert move_of(classic).target == 2
    partners = build_state(
        hands, top="R5", wild_customizable="swap_hands", mode="partners", **MODERN
    )
    move = move_of(partners)
    assert move.card != card_in_hand(partners, 0, "WC") or move.target == 1


def test_the_greedy_bot_sheds_the_colour_it_holds_most():
    hands = [["WC", "B1", "B2", "B3", "R7"], ["G1", "G2"]]
    state = build_state(hands, top="G5", wild_customizable="discard_color", **MODERN)
    move = move_of(state)
    assert (move.card, move.color) == (card_in_hand(state, 0, "WC"), BLUE)


def test_after_a_shuffle_of_hands_a_bot_knows_nothing_of_the_new_hands_but_their_sizes():
    hands = [["R1", "R2"], ["WSH", "G1", "G2", "G3"], ["B1", "B2", "B3"]]
    state = build_state(hands, top="R5", current=2, draw=["B9"], **MODERN)
    history = apply(state, 2, Move("draw"))  # nothing red or 5 in seat 2's hand
    history += apply(state, 0, Move("play", card=card_in_hand(state, 0, "R1")))
    assert memory.of_view(player_view(state, 0, history))[2].colors
    history += apply(state, 1, Move("play", card=SHUFFLE_HANDS, color=0))
    seen = memory.of_view(player_view(state, 0, history))
    assert all(not knowledge.known and not knowledge.colors for knowledge in seen)


def test_the_expert_s_worlds_hold_all_112_cards_and_its_own_hand():
    state, _ = new_game(GameConfig(3, 0, **MODERN), 5)  # type: ignore[arg-type]
    view = player_view(state, 1)
    for world_seed in range(10):
        world = determinize(view, random.Random(world_seed))
        assert world.card_total() == 112
        assert world.config.deck == "modern_112"
        assert world.hands[1] == state.hands[1]
