"""The expert bot: legal in every situation, bounded in work, a pure function of its
view and rng, never weaker than greedy out of turn."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from games.bots import expert, greedy
from games.bots.expert import decision, sampling
from games.engine import (
    GameConfig,
    GameState,
    Move,
    PlayerView,
    Rules,
    apply,
    legal_moves,
    new_game,
    player_view,
    push,
)
from games.engine.cards import BLUE, COLOR_OF, RED
from games.engine.position import build_state, card_in_hand

ALL_RULES = Rules(
    stacking=True, seven_o=True, jump_in=True, draw_until_playable=True, force_play=True
)
TABLES = [
    (2, Rules()),
    (4, Rules()),
    (10, Rules()),
    (3, ALL_RULES),
    (10, ALL_RULES),
    (5, Rules(stacking=True)),
    (4, Rules(draw_until_playable=True, force_play=True)),
    (6, Rules(seven_o=True, jump_in=True)),
]


def _views(players: int, rules: Rules, seed: int, every: int) -> Iterator[tuple[GameState, int]]:
    """Positions from a game played by greedy bots: every `every`-th decision."""
    rng = random.Random(seed)
    state, _ = new_game(GameConfig(players, 0, rules), seed)
    step = 0
    while not state.finished and step < 2000:
        seat = state.to_act
        assert seat is not None
        view = player_view(state, seat)
        if step % every == 0:
            yield state.copy(), seat
        move = greedy.choose(view, rng)
        assert move is not None
        apply(state, seat, move)
        step += 1


@pytest.mark.parametrize(("players", "rules"), TABLES)
def test_the_expert_chooses_a_legal_move_within_its_work_bound(players: int, rules: Rules) -> None:
    for state, seat in _views(players, rules, seed=players, every=7):
        view = player_view(state, seat)
        decision = expert.decide(view, random.Random(seat))
        assert decision.move is not None
        assert decision.move.without_uno() in legal_moves(state, seat)
        assert decision.work <= expert.MAX_SIMULATED_MOVES


def test_the_work_bound_holds_with_huge_hands_and_every_house_rule() -> None:
    # Ten seats holding ten cards each, little left to draw: the longest rounds.
    state, _ = new_game(GameConfig(10, 0, ALL_RULES), 3)
    for hand in state.hands:
        hand.extend(state.draw_pile.pop() for _ in range(3))
    assert state.card_total() == 108
    seat = state.to_act
    assert seat is not None
    view = player_view(state, seat)
    decision = expert.decide(view, random.Random(1))
    assert decision.move is not None
    assert decision.move.without_uno() in legal_moves(state, seat)
    assert decision.work <= expert.MAX_SIMULATED_MOVES


def test_a_rollout_stops_at_its_limit_and_counts_its_moves() -> None:
    state, _ = new_game(GameConfig(10, 0, ALL_RULES), 3)
    value, used = expert.simulate(state.copy(), seed=9, limit=25, me=0)
    assert 0.0 <= value <= 1.0
    assert 0 < used <= 25


@pytest.mark.parametrize("seed", range(4))
def test_the_expert_is_a_pure_function_of_its_view_and_rng(seed: int) -> None:
    for state, seat in _views(3, Rules(stacking=True), seed=seed, every=11):
        view = player_view(state, seat)
        first = expert.decide(view, random.Random(seed))
        again = expert.decide(view, random.Random(seed))
        assert first == again


def test_pending_decisions_get_legal_answers() -> None:
    rng = random.Random(0)
    # A Wild Draw Four to challenge or accept.
    state = build_state([["G5", "W+4", "G1"], ["B1", "B2", "Y7"]], top="R2")
    apply(state, 0, Move("play", card=card_in_hand(state, 0, "W+4"), color=RED))
    move = expert.choose(player_view(state, 1), rng)
    assert move in (Move("challenge"), Move("accept"))
    # A Draw Two stack: stacking always beats drawing four.
    state = build_state(
        [["R+2", "G1", "B7"], ["Y+2", "B2", "Y7"]], top="R5", rules=Rules(stacking=True)
    )
    apply(state, 0, Move("play", card=card_in_hand(state, 0, "R+2")))
    move = expert.choose(player_view(state, 1), rng)
    assert move is not None
    assert move.without_uno() in legal_moves(state, 1)
    # A drawn card that fits: play it or keep it.
    state = build_state([["B1", "G2"], ["Y3", "Y4"]], top="R5", draw=["R7"])
    apply(state, 0, Move("draw"))
    move = expert.choose(player_view(state, 0), rng)
    assert move in (Move("play", card=card_in_hand(state, 0, "R7")), Move("pass"))


def test_a_wild_first_card_gets_a_colour() -> None:
    for seed in range(200):
        state, _ = new_game(GameConfig(3, 0), seed)
        if state.pending is not None and state.pending.type == "choose_color":
            seat = state.pending.seat
            move = expert.choose(player_view(state, seat), random.Random(0))
            assert move is not None
            assert move.action == "choose_color"
            return
    pytest.fail("no deal in 200 started on a wild")


def test_the_expert_acts_out_of_turn_as_greedy_does() -> None:
    # A forgotten UNO is caught at once.
    state = build_state([["R5", "R7"], ["B1", "B2"], ["G1", "G2"]], top="R2")
    apply(state, 0, Move("play", card=card_in_hand(state, 0, "R5")))
    assert expert.choose(player_view(state, 2), random.Random(0)) == Move("catch_uno", target=0)
    # Its own UNO is said with the second-to-last card.
    state = build_state([["R5", "R7", "B9"], ["B1", "B2"]], top="R2")
    move = expert.choose(player_view(state, 0), random.Random(0))
    assert move is not None
    assert not move.uno
    state = build_state([["R5", "G7"], ["B1", "B2", "B3"]], top="R2")
    move = expert.choose(player_view(state, 0), random.Random(0))
    assert move is not None
    assert move.uno
    # A jump-in is taken exactly when greedy takes it.
    state = build_state(
        [["R5", "G1"], ["B1", "B2", "B3"], ["R3", "G2", "Y4"]],
        top="R3",
        rules=Rules(jump_in=True),
    )
    view = player_view(state, 2)
    assert view.legal_moves
    assert expert.choose(view, random.Random(4)) == greedy.choose(view, random.Random(4))


def test_a_sampled_world_holds_exactly_the_unseen_cards() -> None:
    state, _ = new_game(GameConfig(4, 0), 8)
    view: PlayerView = player_view(state, 2)
    world = expert.determinize(view, random.Random(5))
    assert world.hands[2] == list(view.hand)
    assert [len(h) for h in world.hands] == list(view.card_counts)
    assert world.card_total() == 108
    hidden = sorted(c for s, h in enumerate(world.hands) if s != 2 for c in h)
    assert sorted(hidden + world.draw_pile) == sorted(view.unseen())


def test_a_challenged_hand_is_sampled_guilty_or_innocent_as_drawn() -> None:
    hand = ["W+4", "R1", "Y1", "G1", "B1", "Y2", "G2"]
    state = build_state([hand, ["B5", "B6", "B7"]], top="R2")
    apply(state, 0, Move("play", card=card_in_hand(state, 0, "W+4"), color=RED))
    view = player_view(state, 1)
    verdicts = set()
    for seed in range(40):
        world = expert.determinize(view, random.Random(seed))
        assert world.pending is not None
        held = any(COLOR_OF[c] == RED for c in world.hands[0])
        assert world.pending.guilty == held
        assert len(world.hands[0]) == 6
        verdicts.add(held)
    assert verdicts == {True, False}


def test_a_random_bot_in_a_rollout_accepts_a_wild_draw_four_it_would_win_a_challenge_on():
    # Seat 0 bluffed (it holds red); a greedy-like seat challenges, a random bot never.
    state = build_state([["W+4", "R1", "G1"], ["B5", "B6", "B7"]], top="R2")
    push(state, 0, Move("play", card=card_in_hand(state, 0, "W+4"), color=BLUE))
    assert state.pending is not None
    assert state.pending.guilty

    challenged = state.copy()
    expert.simulate(challenged, seed=1, limit=1, me=0)
    accepted = state.copy()
    expert.simulate(accepted, seed=1, limit=1, me=0, random_seats=1 << 1)

    assert [len(h) for h in challenged.hands] == [6, 3]
    assert [len(h) for h in accepted.hands] == [2, 7]


def test_a_random_bot_in_a_rollout_plays_any_card_that_fits_where_greedy_always_picks_one():
    state = build_state([["R5", "R6", "B9"], ["R7", "G7", "Y1", "Y2"]], top="B7", current=1)
    as_greedy: set[int] = set()
    as_random: set[int] = set()
    for seed in range(40):
        greedy_world = state.copy()
        expert.simulate(greedy_world, seed=seed, limit=1, me=0)
        as_greedy.add(greedy_world.discard[-1])
        random_world = state.copy()
        expert.simulate(random_world, seed=seed, limit=1, me=0, random_seats=1 << 1)
        as_random.add(random_world.discard[-1])
    assert len(as_greedy) == 1
    assert as_random == {card_in_hand(state, 1, "R7"), card_in_hand(state, 1, "G7")}


def test_the_seats_modelled_as_random_are_the_other_seats_the_view_names_random_bots():
    state, _ = new_game(GameConfig(4, 0), 2)
    view = player_view(state, 1, bots=["random", "random", None, "greedy"])
    assert expert.random_players(view) == 0b0001
    assert expert.random_players(player_view(state, 1)) == 0


def test_a_candidate_clearly_behind_the_leader_leaves_the_race_but_the_baseline_never_does():
    worlds = 32
    behind = [0.0] * worlds
    leader = [1.0] * worlds
    close = [0.0 if w == 0 else 1.0 for w in range(worlds)]
    outcomes = [behind, leader, close, list(behind)]
    assert decision._still_in_race([0, 1, 2, 3], outcomes) == [0, 1, 2]


def test_a_wild_draw_four_from_a_random_bot_is_judged_a_bluff_more_often():
    hand = ["W+4", "R1", "Y1", "G1", "B1", "Y2", "G2"]
    state = build_state([hand, ["B5", "B6", "B7"]], top="R2")
    apply(state, 0, Move("play", card=card_in_hand(state, 0, "W+4"), color=RED))
    unknown = sampling._guilt_posterior(player_view(state, 1))
    random_bot = sampling._guilt_posterior(player_view(state, 1, bots=["random", None]))
    assert 0.0 < unknown < random_bot < 1.0
