"""Bots at a partners table (docs/rules.md, "Partners") play for their team: every
strategy finishes partners games with legal moves; the greedy bot never catches its
partner's UNO, hands the turn to a partner about to go out, names a colour its
partner holds when it sees their hand, and never swaps hands with them."""

from __future__ import annotations

import random

import pytest

from games.bots import STRATEGIES, choose
from games.engine import GameConfig, Move, Rules, apply, legal_moves, new_game, player_view
from games.engine.cards import GREEN
from games.engine.position import build_state, card_in_hand
from tests.random_games import bots_finish


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
@pytest.mark.parametrize("see", [False, True], ids=["hands hidden", "partners see hands"])
def test_every_bot_finishes_partners_games_with_legal_moves(strategy: str, see: bool) -> None:
    config = GameConfig(4, 0, Rules(), mode="partners", partners_see_hands=see)
    for seed in range(1 if strategy == "expert" else 3):
        assert bots_finish(strategy, config, seed).finished


def test_the_greedy_bot_catches_an_opponent_but_never_its_partner() -> None:
    hands = [["R5", "R7"], ["B1", "B2"], ["G1", "G2"], ["Y1", "Y2"]]
    state = build_state(hands, top="R2", mode="partners")
    apply(state, 0, Move("play", card=card_in_hand(state, 0, "R5")))  # forgets UNO
    assert Move("catch_uno", target=0) in legal_moves(state, 2)
    assert choose("greedy", player_view(state, 2), random.Random(0)) != Move("catch_uno", target=0)
    assert choose("greedy", player_view(state, 3), random.Random(0)) == Move("catch_uno", target=0)


def test_the_greedy_bot_hands_the_turn_to_a_partner_about_to_go_out() -> None:
    # Seat 0 may stay in red with a 9 or play a green Skip; its partner (seat 2) holds
    # one card. At a classic table the same hand stays in red: the seat across is an
    # opponent there, and the Skip no gift to anyone.
    hands = [["R9", "GS", "R3", "R4"], ["B1", "B2", "B3", "B5"], ["G1"], ["Y1", "Y2", "Y3"]]
    state = build_state(hands, top="RS", mode="partners")
    move = choose("greedy", player_view(state, 0), random.Random(0))
    assert move == Move("play", card=card_in_hand(state, 0, "GS"))
    classic = build_state(hands, top="RS")
    assert choose("greedy", player_view(classic, 0), random.Random(0)) == Move(
        "play", card=card_in_hand(classic, 0, "R9")
    )


def test_the_greedy_bot_names_a_colour_its_partner_holds_when_it_sees_their_hand() -> None:
    hands = [["W", "B3"], ["B1", "B2", "B5"], ["G1", "G4", "G7"], ["Y1", "Y2", "Y3"]]
    state = build_state(hands, top="R5", mode="partners", partners_see_hands=True)
    move = choose("greedy", player_view(state, 0), random.Random(0))
    assert move is not None
    assert move.card == card_in_hand(state, 0, "W")
    assert move.color == GREEN


def test_the_greedy_bot_never_swaps_hands_with_its_partner() -> None:
    hands = [["R7", "B3", "B4", "B5"], ["B1", "B2", "B6"], ["G1"], ["Y1", "Y2", "Y3"]]
    state = build_state(hands, top="R2", mode="partners", rules=Rules(seven_o=True))
    move = choose("greedy", player_view(state, 0), random.Random(0))
    assert move is not None
    assert move.target != 2


def test_the_expert_s_worlds_hold_the_partner_s_hand_it_sees_and_every_card() -> None:
    from games.bots.expert.sampling import determinize

    config = GameConfig(4, 0, Rules(), mode="partners", partners_see_hands=True)
    state, _ = new_game(config, 11)
    view = player_view(state, 1)
    for world_seed in range(20):
        world = determinize(view, random.Random(world_seed))
        assert world.hands[3] == state.hands[3]  # the partner's, as seen
        assert world.hands[1] == state.hands[1]
        assert world.card_total() == 108


def test_the_expert_counts_a_round_its_partner_wins_as_won() -> None:
    from games.bots.expert.rollout import simulate

    # Seat 2 (seat 0's partner) is to play its last card: the round is the team's.
    state = build_state([["B1", "B2"], ["G1", "G2"], ["R7"], ["Y1", "Y2"]], top="R5", current=2)
    alone, _ = simulate(state.copy(), 1, 100, 0)
    together, _ = simulate(state.copy(), 1, 100, 0, mate=2)
    assert (alone, together) == (0.0, 1.0)
