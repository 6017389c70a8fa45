"""Seeds every JSON parser reads exactly (docs/rules.md, Determinism): new games draw
their seed below 2^53 and derive round seeds as wide; games dealt before keep their
63-bit round seeds, so their replay does not change."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import LEGACY_SEED_BITS, SEED_BITS, GameConfig, GameState, new_game, round_seed
from games.engine.replay import LoggedEvent, ReplayMismatch, replay
from games.engine.rng import new_seed

EXACT = 2**53  # every integer below it is exact as a double

# A seed as games were dealt before, with the round seeds and first deal the service
# gave it then: a game dealt with it must replay to the very same cards.
OLD_SEED = 6983017181972492979
OLD_ROUND_SEEDS = [865762625347729519, 5434021335996008269]
OLD_HANDS = [[45, 94, 39, 20, 8, 30, 37], [64, 13, 17, 49, 14, 68, 99]]


def stored(events: list) -> list[LoggedEvent]:  # type: ignore[type-arg]
    return [
        LoggedEvent(seq, e.type, e.seat, e.round, json.loads(json.dumps(e.data)))
        for seq, e in enumerate(events, start=1)
    ]


def test_new_games_draw_their_seed_below_two_to_the_53():
    seeds = [new_seed() for _ in range(200)]
    assert all(0 <= seed < EXACT for seed in seeds)
    assert len(set(seeds)) == len(seeds)


@given(seed=st.integers(0, EXACT - 1), round_no=st.integers(1, 200))
def test_every_round_seed_of_a_new_game_is_below_two_to_the_53(seed: int, round_no: int) -> None:
    derived = round_seed(seed, round_no)
    assert 0 <= derived < EXACT
    # The high bits of the 63-bit derivation: one hash, two widths.
    assert derived == round_seed(seed, round_no, LEGACY_SEED_BITS) >> (63 - SEED_BITS)


def test_a_game_dealt_with_63_bit_seeds_deals_as_it_always_did():
    assert [round_seed(OLD_SEED, n, LEGACY_SEED_BITS) for n in (1, 2)] == OLD_ROUND_SEEDS
    state, _ = new_game(GameConfig(2, 0), OLD_SEED, seed_bits=LEGACY_SEED_BITS)
    assert state.hands == OLD_HANDS
    assert (state.dealer, state.discard) == (1, [55])


def test_a_new_games_snapshot_says_how_wide_its_round_seeds_are():
    state, _ = new_game(GameConfig(3, 0), 12345)
    snapshot = state.to_snapshot()
    assert snapshot["seed_bits"] == SEED_BITS
    assert GameState.from_snapshot(snapshot).seed_bits == SEED_BITS


def test_a_snapshot_without_seed_bits_is_a_game_dealt_with_63_bit_round_seeds():
    state, _ = new_game(GameConfig(2, 0), OLD_SEED, seed_bits=LEGACY_SEED_BITS)
    snapshot = state.to_snapshot()
    assert "seed_bits" not in snapshot  # as every snapshot stored before
    again = GameState.from_snapshot(snapshot)
    assert again.seed_bits == LEGACY_SEED_BITS
    assert again.to_snapshot() == snapshot


@given(seed=st.integers(0, 2**63 - 1), bits=st.sampled_from([SEED_BITS, LEGACY_SEED_BITS]))
@settings(max_examples=40, deadline=None)
def test_a_deal_replays_exactly_only_with_the_width_it_was_dealt_with(seed: int, bits: int) -> None:
    config = GameConfig(4, 0)
    state, events = new_game(config, seed, seed_bits=bits)
    replayed = replay(config, seed, stored(events), seed_bits=bits)
    assert replayed is not None
    assert replayed.to_snapshot() == state.to_snapshot()
    other = LEGACY_SEED_BITS if bits == SEED_BITS else SEED_BITS
    with pytest.raises(ReplayMismatch):
        replay(config, seed, stored(events), seed_bits=other)
