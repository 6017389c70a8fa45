"""`uno-deal/1` (docs/fairness.md): every deal from a committed server seed and the
players' own seeds, through an unbiased Fisher-Yates on an HMAC-SHA256 stream."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    DECK_SIZE,
    GameConfig,
    GameState,
    InvalidConfig,
    Rules,
    fair,
    new_game,
)
from games.engine.replay import LoggedEvent, ReplayMismatch, replay
from tests.random_games import play_to_the_end

DOCS = Path(__file__).resolve().parents[2] / "docs" / "fairness.md"

server_seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)
client_seed = st.text(st.sampled_from("0123456789abcdef"), min_size=1, max_size=64)


def documented_vectors() -> dict[str, Any]:
    text = DOCS.read_text()
    block = re.search(r"```json\n(.*?)\n```", text, re.S)
    assert block is not None, "docs/fairness.md has its test vectors in a json block"
    vectors: dict[str, Any] = json.loads(block.group(1))
    return vectors


def stored(events: list) -> list[LoggedEvent]:  # type: ignore[type-arg]
    return [
        LoggedEvent(seq, e.type, e.seat, e.round, json.loads(json.dumps(e.data)))
        for seq, e in enumerate(events, start=1)
    ]


def test_the_documented_vectors_are_what_the_engine_computes():
    vectors = documented_vectors()
    for case in vectors["commitments"]:
        assert fair.commitment(case["server_seed"]) == case["commitment"]
    for case in vectors["round_seeds"]:
        seed = fair.round_seed(case["server_seed"], case["client_seeds"], case["round"])
        assert seed == case["round_seed"]
    below = vectors["below"]
    stream = fair.Stream(below["round_seed"], below["label"], below["index"])
    assert [stream.below(below["bound"]) for _ in below["values"]] == below["values"]
    for case in vectors["shuffles"]:
        cards = list(range(case["cards"]))
        fair.shuffled(cards, case["round_seed"], case["index"])
        assert cards == case["order"]
    dealer = vectors["first_dealer"]
    assert fair.first_dealer(dealer["round_seed"], dealer["players"]) == dealer["dealer"]
    one = vectors["round_one"]
    state, events = new_game(
        GameConfig(len(one["client_seeds"])), one["server_seed"], client_seeds=one["client_seeds"]
    )
    dealt = next(e.data for e in events if e.type == "round_started")
    assert (dealt["dealer"], dealt["hands"], dealt["top_card"]) == (
        one["dealer"],
        one["hands"],
        one["top_card"],
    )
    assert len(state.draw_pile) == one["draw_pile_count"]


def test_the_vectors_exercise_the_rejection_of_words_above_the_limit():
    below = documented_vectors()["below"]
    bound = below["bound"]
    limit = 2**32 - 2**32 % bound
    stream = fair.Stream(below["round_seed"], below["label"], below["index"])
    stream._refill(16)
    words = list(reversed(stream._words))[:16]
    rejected = [w for w in words if w >= limit]
    assert rejected, "a vector that never rejects cannot catch a verifier that never does"
    assert [w % bound for w in words if w < limit][:10] == below["values"]


def test_the_commitment_binds_the_algorithm_name_and_every_byte_of_the_seed():
    seed = bytes(range(32)).hex()
    flipped = ("1" if seed[0] == "0" else "0") + seed[1:]
    assert fair.commitment(seed) != fair.commitment(flipped)
    import hashlib

    assert fair.commitment(seed) == hashlib.sha256(b"uno-deal/1\x00" + bytes(range(32))).hexdigest()


@given(server_seed=server_seeds, seeds=st.lists(client_seed, min_size=2, max_size=10))
@settings(max_examples=40)
def test_every_client_seed_and_the_round_change_the_round_seed(
    server_seed: str, seeds: list[str]
) -> None:
    base = fair.round_seed(server_seed, seeds, 1)
    assert fair.round_seed(server_seed, seeds, 2) != base
    changed = [*seeds]
    changed[-1] = changed[-1][:-1] + ("a" if changed[-1][-1:] != "a" else "b")
    assert fair.round_seed(server_seed, changed, 1) != base
    # Length prefixes: moving a character from one seat's seed to the next changes it.
    if len(seeds[0]) > 1:
        moved = [seeds[0][:-1], seeds[0][-1] + seeds[1], *seeds[2:]]
        assert fair.round_seed(server_seed, moved, 1) != base


@given(server_seed=server_seeds, index=st.integers(0, 50), size=st.integers(0, 108))
@settings(max_examples=60)
def test_a_shuffle_is_a_permutation_and_the_same_inputs_give_the_same_order(
    server_seed: str, index: int, size: int
) -> None:
    key = fair.round_seed(server_seed, ["x", ""], 1)
    cards = list(range(size))
    fair.shuffled(cards, key, index)
    assert sorted(cards) == list(range(size))
    again = list(range(size))
    fair.shuffled(again, key, index)
    assert again == cards


@given(bound=st.integers(1, 2**32), server_seed=server_seeds)
@settings(max_examples=60)
def test_below_stays_below_its_bound(bound: int, server_seed: str) -> None:
    stream = fair.Stream(fair.round_seed(server_seed, [], 1), "below", 0)
    assert all(0 <= stream.below(bound) < bound for _ in range(20))


def test_each_card_lands_in_each_third_of_the_deck_about_equally_often():
    # A coarse guard in the test suite; bench/fairness.py measures the real thing.
    key = fair.round_seed(bytes(32).hex(), ["a"], 1)
    thirds: Counter[tuple[int, int]] = Counter()
    for index in range(3000):
        cards = list(range(DECK_SIZE))
        fair.shuffled(cards, key, index)
        for position, card in enumerate(cards):
            thirds[card, position * 3 // DECK_SIZE] += 1
    assert all(800 < thirds[card, third] < 1200 for card in range(DECK_SIZE) for third in range(3))


def test_a_game_from_a_server_seed_replays_exactly_and_its_snapshot_names_the_algorithm():
    seed = fair.new_server_seed()
    seeds = ["a11", "", fair.new_client_seed()]
    config = GameConfig(3, 200)
    state, events = new_game(config, seed, client_seeds=seeds)
    events += play_to_the_end(state, random.Random(5))
    assert state.finished
    assert state.card_total() == DECK_SIZE
    assert any(e.type == "cards_drawn" for e in events)
    snapshot = json.loads(json.dumps(state.to_snapshot()))
    assert snapshot["deal"] == "uno-deal/1"
    assert snapshot["client_seeds"] == seeds
    assert "seed_bits" not in snapshot
    assert GameState.from_snapshot(snapshot) == state
    replayed = replay(config, seed, stored(events), client_seeds=seeds)
    assert replayed == state
    with pytest.raises(ReplayMismatch):
        replay(config, seed, stored(events), client_seeds=["a11", "", "5e1f"])


def test_the_same_server_seed_with_other_client_seeds_deals_other_hands():
    seed = bytes(range(32)).hex()
    config = GameConfig(2)
    _, one = new_game(config, seed, client_seeds=["a", "b"])
    _, two = new_game(config, seed, client_seeds=["a", "c"])
    assert one[1].data["hands"] != two[1].data["hands"]


@pytest.mark.parametrize(
    ("seed", "client_seeds"),
    [
        ("00" * 31, ["a", "b"]),  # too short
        ("0G" * 32, ["a", "b"]),  # not hex
        ("AB" * 32, ["a", "b"]),  # not lowercase
        ("00" * 32, ["a"]),  # one seed for two seats
        ("00" * 32, ["a", "\n"]),  # not hex
        ("00" * 32, ["a", "AB"]),  # not lowercase
        ("00" * 32, ["a", "seed"]),  # words are not seeds
        ("00" * 32, ["a", "x" * 65]),  # too long
    ],
)
def test_a_deal_refuses_seeds_that_are_not_seeds_of_the_algorithm(
    seed: str, client_seeds: list[str]
) -> None:
    with pytest.raises(InvalidConfig):
        new_game(GameConfig(2, 500, Rules()), seed, client_seeds=client_seeds)


def test_an_integer_seed_takes_no_client_seeds():
    with pytest.raises(InvalidConfig):
        new_game(GameConfig(2), 42, client_seeds=["a", "b"])
