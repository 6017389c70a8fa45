"""Property tests: random tables, players, house rules and moves against the invariants.

The stateful machine plays legal moves (in turn and out of turn), timeouts, and
random garbage moves, and after every step checks that every card of the deck (108
or 112) is there, that
the seat to act can move, and that the snapshot round-trips; at the end, replaying
the seed and the accepted moves reproduces the same state and the same events.
"""

from __future__ import annotations

import json
import random
from dataclasses import fields

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from games.engine import (
    EngineError,
    Event,
    GameConfig,
    GameState,
    IllegalMove,
    MalformedMove,
    Move,
    Rules,
    apply,
    apply_timeout,
    legal_moves,
    new_game,
    push,
)
from games.engine.cards import CARD_COUNT
from games.engine.moves import ACTIONS
from games.engine.state import CUSTOM_EFFECTS, SHUFFLE_HANDS_LAST_CARD

RULE_NAMES = [f.name for f in fields(Rules)]
rules_strategy = st.builds(Rules, **{name: st.booleans() for name in RULE_NAMES})
# Either deck; the modern one with any Wild Customizable and either end by Shuffle Hands.
decks = st.one_of(
    st.builds(dict, deck=st.just("classic_108")),
    st.builds(
        dict,
        deck=st.just("modern_112"),
        shuffle_hands_last_card=st.sampled_from(SHUFFLE_HANDS_LAST_CARD),
        wild_customizable=st.sampled_from(CUSTOM_EFFECTS),
    ),
)

random_moves = st.builds(
    Move,
    action=st.sampled_from(sorted(ACTIONS)),
    card=st.one_of(st.none(), st.integers(0, CARD_COUNT - 1)),
    color=st.one_of(st.none(), st.integers(0, 3)),
    target=st.one_of(st.none(), st.integers(-1, 10)),
    uno=st.booleans(),
)

Step = tuple[int, Move] | None  # None: a timeout


def replay(config: GameConfig, seed: int, steps: list[Step]) -> tuple[GameState, list[Event]]:
    state, events = new_game(config, seed)
    for step in steps:
        if step is None:
            events += apply_timeout(state)
        else:
            events += apply(state, *step)
    return state, events


class GameMachine(RuleBasedStateMachine):
    state: GameState

    @initialize(
        seed=st.integers(0, 2**63 - 1),
        players=st.integers(2, 10),
        rules=rules_strategy,
        target_score=st.sampled_from([0, 0, 50, 200, 500]),
        deck=decks,
    )
    def start(
        self, seed: int, players: int, rules: Rules, target_score: int, deck: dict[str, str]
    ) -> None:
        self.config = GameConfig(players, target_score, rules, **deck)  # type: ignore[arg-type]
        self.seed = seed
        self.state, self.events = new_game(self.config, seed)
        self.steps: list[Step] = []

    def seats_with_moves(self) -> list[int]:
        return [s for s in range(self.state.players) if legal_moves(self.state, s)]

    @precondition(lambda self: not self.state.finished)
    @rule(data=st.data())
    def a_seat_makes_a_legal_move(self, data: st.DataObject) -> None:
        to_act = self.state.to_act
        assert to_act is not None
        # Mostly the seat to act; sometimes anyone with a move (catches, calls, jump-ins).
        seats = self.seats_with_moves()
        seat = data.draw(st.sampled_from([to_act, to_act, to_act, *seats]))
        move = data.draw(st.sampled_from(legal_moves(self.state, seat)))
        if move.action == "play" and data.draw(st.booleans()):
            move = Move("play", card=move.card, color=move.color, target=move.target, uno=True)
        self.events += apply(self.state, seat, move)
        self.steps.append((seat, move))

    @precondition(lambda self: not self.state.finished)
    @rule()
    def the_seat_to_act_times_out(self) -> None:
        self.events += apply_timeout(self.state)
        self.steps.append(None)

    @rule(seat=st.integers(0, 9), move=random_moves)
    def a_random_move_is_accepted_only_if_legal(self, seat: int, move: Move) -> None:
        assume(seat < self.state.players)
        before = self.state.to_snapshot()
        listed = move.without_uno() in legal_moves(self.state, seat)
        try:
            events = apply(self.state, seat, move)
        except (IllegalMove, MalformedMove):
            assert not listed, f"{move} is listed as legal but was rejected"
            assert self.state.to_snapshot() == before
            return
        assert listed, f"{move} was accepted but is not listed as legal"
        self.events += events
        self.steps.append((seat, move))

    @invariant()
    def every_card_of_the_deck_is_on_the_table(self) -> None:
        state = self.state
        cards = [c for hand in state.hands for c in hand] + state.draw_pile + state.discard
        assert sorted(cards) == list(range(self.config.deck_size))

    @invariant()
    def the_seat_to_act_always_has_a_legal_move(self) -> None:
        if not self.state.finished:
            assert self.state.to_act is not None
            assert legal_moves(self.state, self.state.to_act)
        else:
            assert all(not legal_moves(self.state, s) for s in range(self.state.players))

    @invariant()
    def every_listed_legal_move_applies_and_push_agrees(self) -> None:
        for seat in range(self.state.players):
            for move in legal_moves(self.state, seat):
                checked, unchecked = self.state.copy(), self.state.copy()
                events = apply(checked, seat, move)
                unchecked.timeouts[seat] = 0  # apply's only extra: the seat acted itself
                assert push(unchecked, seat, move) == events
                assert unchecked.to_snapshot() == checked.to_snapshot()

    @invariant()
    def the_snapshot_round_trips_through_json(self) -> None:
        snap = self.state.to_snapshot()
        restored = GameState.from_snapshot(json.loads(json.dumps(snap)))
        assert restored.to_snapshot() == snap
        for seat in range(self.state.players):
            assert legal_moves(restored, seat) == legal_moves(self.state, seat)

    def teardown(self) -> None:
        if not hasattr(self, "state"):
            return
        state, events = replay(self.config, self.seed, self.steps)
        assert state.to_snapshot() == self.state.to_snapshot()
        assert events == self.events


GameMachine.TestCase.settings = settings(
    stateful_step_count=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_random_play_keeps_every_invariant = GameMachine.TestCase


@given(
    players=st.integers(2, 10),
    rules=rules_strategy,
    seed=st.integers(0, 2**63 - 1),
    choice_seed=st.integers(0, 2**32),
    deck=decks,
)
@settings(max_examples=60, deadline=None)
def test_whole_random_games_end_and_replay_exactly(
    players: int, rules: Rules, seed: int, choice_seed: int, deck: dict[str, str]
) -> None:
    """Single-round games of either deck played to the end by a seeded random player
    replay exactly."""
    config = GameConfig(players, 0, rules, **deck)  # type: ignore[arg-type]
    rng = random.Random(choice_seed)
    state, events = new_game(config, seed)
    steps: list[Step] = []
    for _ in range(20_000):
        if state.finished:
            break
        seat = state.to_act
        assert seat is not None
        moves = legal_moves(state, seat)
        # Play when possible, as any player would: uniformly random play can wander
        # for a very long time under draw_until_playable.
        plays = [m for m in moves if m.action == "play"]
        move = rng.choice(plays if plays and rng.random() < 0.9 else moves)
        events += apply(state, seat, move)
        steps.append((seat, move))
    assert state.finished
    assert state.card_total() == config.deck_size
    assert events[-1].type == "game_ended"
    replayed, replayed_events = replay(config, seed, steps)
    assert replayed.to_snapshot() == state.to_snapshot()
    assert replayed_events == events


def test_an_engine_error_always_carries_a_reason_and_an_api_code() -> None:
    state, _ = new_game(GameConfig(3), 7)
    other = (state.current + 1) % 3
    with pytest.raises(EngineError) as caught:
        apply(state, other, Move("pass"))
    assert caught.value.reason
    assert caught.value.code == "not_your_turn"
