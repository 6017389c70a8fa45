"""Exact replay from the log alone: the moves are read back from the events they
caused, applied again from the seed, and must cause the very same events."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import DECK_SIZE, GameState, Move
from games.engine.replay import LoggedEvent, ReplayMismatch, replay
from tests.random_games import play_random_game


def stored(events: list) -> list[LoggedEvent]:  # type: ignore[type-arg]
    """The log as the database keeps it: seqs from 1, data through JSON."""
    return [
        LoggedEvent(seq, e.type, e.seat, e.round, json.loads(json.dumps(e.data)))
        for seq, e in enumerate(events, start=1)
    ]


def test_a_thousand_random_games_replay_exactly_from_their_logs():
    master = random.Random(20261130)
    for _ in range(1000):
        seed = master.getrandbits(63)
        config, state, events = play_random_game(seed, random.Random(master.getrandbits(32)))
        replayed = replay(config, seed, stored(events))
        assert replayed is not None
        assert replayed.to_snapshot() == state.to_snapshot(), seed


@given(seed=st.integers(0, 2**63 - 1), choices=st.integers(0, 2**32))
@settings(max_examples=50, deadline=None)
def test_the_table_after_each_event_ends_as_the_game_did(seed: int, choices: int) -> None:
    config, state, events = play_random_game(seed, random.Random(choices))
    seen: list[tuple[int, dict]] = []  # type: ignore[type-arg]
    replay(config, seed, stored(events), observe=lambda seq, t: seen.append((seq, t.to_snapshot())))
    assert [seq for seq, _ in seen] == list(range(1, len(events) + 1))
    assert seen[-1][1] == state.to_snapshot()
    for seq, snapshot in seen[1:]:  # from the first deal on, every card is somewhere
        assert GameState.from_snapshot(snapshot).card_total() == DECK_SIZE, seq


def test_a_drawn_card_changed_in_the_log_is_named_by_its_seq():
    config, _, events = play_random_game(5, random.Random(5))
    log = stored(events)
    index = next(i for i, e in enumerate(log) if e.type == "cards_drawn" and e.data["cards"])
    cards = log[index].data["cards"]
    log[index] = replace(log[index], data={**log[index].data, "cards": [(cards[0] + 1) % 108]})
    with pytest.raises(ReplayMismatch) as caught:
        replay(config, 5, log)
    assert caught.value.seq == log[index].seq


def test_a_card_played_that_was_not_in_hand_is_named_by_its_seq():
    config, _, events = play_random_game(9, random.Random(9))
    log = stored(events)
    index = next(i for i, e in enumerate(log) if e.type == "card_played")
    hand_of_player = {
        c
        for e in log[: index + 1]
        if e.type == "round_started"
        for c in e.data["hands"][log[index].seat]
    }
    stranger = next(c for c in range(DECK_SIZE) if c not in hand_of_player)
    log[index] = replace(log[index], data={**log[index].data, "card": stranger})
    with pytest.raises(ReplayMismatch) as caught:
        replay(config, 9, log)
    assert caught.value.seq == log[index].seq


def test_a_log_cut_short_or_run_on_does_not_replay():
    config, _, events = play_random_game(11, random.Random(11))
    log = stored(events)
    extra = replace(log[-1], seq=log[-1].seq + 1)
    with pytest.raises(ReplayMismatch):
        replay(config, 11, [*log, extra])
    with pytest.raises(ReplayMismatch) as caught:
        replay(config, 11, log[:-1])  # game_ended missing: the engine makes more
    assert caught.value.seq == log[-1].seq


def test_a_log_replayed_with_another_seed_fails_at_the_deal():
    config, _, events = play_random_game(13, random.Random(13))
    with pytest.raises(ReplayMismatch) as caught:
        replay(config, 14, stored(events))
    assert caught.value.seq <= 3


def test_replay_stops_after_the_move_holding_the_asked_seq():
    config, _, events = play_random_game(17, random.Random(17))
    log = stored(events)
    seen: list[int] = []
    replay(config, 17, log, until=10, observe=lambda seq, _: seen.append(seq))
    assert seen[-1] >= 10
    assert seen == list(range(1, seen[-1] + 1))
    assert all(e.seq > seen[-1] for e in log[seen[-1] :])
    assert Move  # the module's value type is what replay builds
