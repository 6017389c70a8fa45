"""The expert's fast rollout plays by the engine's rules: from random positions, with
the house rules on and off, one rollout step with a given move leaves the table as
`games.engine.apply` leaves it with the same move.

The positions come from games of random (or mostly greedy) legal moves played to a
random depth. The moves stepped are those of the seat to act that a rollout makes;
it does not model, so these tests do not draw:

- calling or catching UNO: nobody forgets UNO in a rollout;
- jumping in: nobody plays out of turn in a rollout (with jump_in on, the seat to act
  still has its ordinary moves, and those are drawn);
- passing on a drawn card that fits: a rollout always plays it.

Where the rollout knowingly differs, the comparison says so:

- a reshuffle of the discards draws from the rollout's own generator (every candidate
  of a decision meets the same shuffle), so after one the same cards are in play, but
  not in the same order, and the cards drawn from it (and so whether they fit) are
  others: only the cards in play, the discards and the direction are compared;
- once a seat goes out the rollout stops: the round is won, whatever the engine does
  next (a last Draw Two or Wild Draw Four still makes the next seat draw, and the
  round is scored), so only the winner is compared;
- UNO debts, scores and timeouts are not a rollout's concern.
"""

from __future__ import annotations

import random
from dataclasses import fields

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.bots import greedy
from games.bots.expert import rollout
from games.engine import (
    GameConfig,
    GameState,
    Move,
    Rules,
    apply,
    legal_moves,
    new_game,
    player_view,
)
from games.engine.position import build_state, card_in_hand

RULE_NAMES = [f.name for f in fields(Rules)]
rules_strategy = st.builds(Rules, **{name: st.booleans() for name in RULE_NAMES})
NO_RULES = Rules()
ALL_RULES = Rules(**dict.fromkeys(RULE_NAMES, True))


def _position(seed: int, players: int, rules: Rules, depth: int) -> GameState:
    """A round after up to `depth` random legal moves (before its last, if it ended)."""
    rng = random.Random(seed)
    state, _ = new_game(GameConfig(players, 0, rules), seed)
    for _ in range(depth):
        seat = state.to_act
        assert seat is not None
        before = state.copy()
        apply(state, seat, rng.choice(legal_moves(state, seat)))
        if state.finished:
            return before
    return state


def _rollout_moves(state: GameState) -> list[Move]:
    """The legal moves of the seat to act that a rollout makes."""
    seat = state.to_act
    assert seat is not None
    unmodelled = {"call_uno", "catch_uno"}
    if state.pending is not None and state.pending.type == "drawn_card":
        unmodelled.add("pass")
    return [move for move in legal_moves(state, seat) if move.action not in unmodelled]


def _cards_in_play(state: GameState) -> list[int]:
    return sorted([card for hand in state.hands for card in hand] + state.draw_pile)


def assert_rollout_steps_as_the_engine_plays(state: GameState, move: Move, seed: int) -> None:
    seat = state.to_act
    assert seat is not None
    played = state.copy()
    apply(played, seat, move)
    stepped = state.copy()
    rollout.step(stepped, move, seed)

    assert stepped.winner == played.winner, move
    if played.finished:
        return
    assert stepped.direction == played.direction, move
    assert stepped.discard == played.discard, move
    if played.shuffles != state.shuffles:
        # Other cards came off the reshuffled pile: what they did (fit or not, how many
        # were drawn until one fitted) differs too; the cards in play are the same.
        assert _cards_in_play(stepped) == _cards_in_play(played), move
        return
    assert stepped.hands == played.hands, move
    assert stepped.draw_pile == played.draw_pile, move
    assert (stepped.current, stepped.to_act) == (played.current, played.to_act), move
    assert stepped.color == played.color, move
    assert stepped.pending == played.pending, move


@settings(deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    players=st.integers(2, 10),
    rules=rules_strategy,
    depth=st.integers(0, 150),
    step_seed=st.integers(0, 2**64 - 1),
    data=st.data(),
)
def test_a_rollout_step_leaves_the_table_as_the_engine_does(
    seed: int, players: int, rules: Rules, depth: int, step_seed: int, data: st.DataObject
) -> None:
    state = _position(seed, players, rules, depth)
    move = data.draw(st.sampled_from(_rollout_moves(state)))
    assert_rollout_steps_as_the_engine_plays(state, move, step_seed)


def test_each_rollout_move_at_the_start_of_many_games_steps_as_the_engine_plays() -> None:
    # Every modelled move at every position of the first 120 moves of many games: the
    # rare situations (a Wild Draw Four stacked on another, a 0 passing every hand on, a
    # bluff challenged, a last card) come up here, house rules on and off.
    checked = 0
    for game in range(40):
        rules = (NO_RULES, ALL_RULES, Rules(stacking=True), Rules(seven_o=True))[game % 4]
        rng = random.Random(game)
        state, _ = new_game(GameConfig(2 + game % 5, 0, rules), game)
        for _ in range(120):
            if state.finished:
                break
            for move in _rollout_moves(state):
                assert_rollout_steps_as_the_engine_plays(state, move, seed=game)
                checked += 1
            seat = state.to_act
            assert seat is not None
            # Mostly greedy play, so that rounds are won within the first moves too.
            move = greedy.choose(player_view(state, seat), rng) if rng.random() < 0.6 else None
            apply(state, seat, move or rng.choice(legal_moves(state, seat)))
    assert checked > 5_000


def test_a_colour_named_for_a_wild_first_card_steps_as_the_engine_plays() -> None:
    for seed in range(200):
        state, _ = new_game(GameConfig(3, 0), seed)
        if state.pending is not None and state.pending.type == "choose_color":
            for move in _rollout_moves(state):
                assert move.action == "choose_color"
                assert_rollout_steps_as_the_engine_plays(state, move, seed)
            return
    pytest.fail("no deal in 200 started on a wild")


def test_a_rollout_step_refuses_the_moves_a_rollout_never_makes() -> None:
    state = build_state([["R5", "R7"], ["B1", "B2"], ["G1", "G2"]], top="R2")
    apply(state, 0, Move("play", card=card_in_hand(state, 0, "R5")))
    with pytest.raises(ValueError, match="never makes"):
        rollout.step(state.copy(), Move("catch_uno", target=0))
    with pytest.raises(ValueError, match="never makes"):
        rollout.step(state.copy(), Move("call_uno"))
    # A drawn card that fits is always played.
    state = build_state([["B1", "G2"], ["Y3", "Y4"]], top="R5", draw=["R7"])
    apply(state, 0, Move("draw"))
    with pytest.raises(ValueError, match="drawn card"):
        rollout.step(state.copy(), Move("pass"))
