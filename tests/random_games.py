"""Whole games played at random by the engine, with house rules, out-of-turn moves
and timeouts: real logs for the tests of replay and of the event vocabulary."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import fields, replace
from typing import Any

from games.engine import (
    Event,
    GameConfig,
    GameState,
    Rules,
    apply,
    apply_timeout,
    legal_moves,
    new_game,
)

RULE_NAMES = [f.name for f in fields(Rules)]
ALL_HOUSE_RULES = Rules(**dict.fromkeys(RULE_NAMES, True))


def play_random_game(
    seed: int,
    rng: random.Random,
    *,
    rules: Rules | None = None,
    players: int | None = None,
    **table: Any,
) -> tuple[GameConfig, GameState, list[Event]]:
    """A whole game with random players, house rules (each on by chance unless given),
    out-of-turn moves and timeouts, at a table of 2 to 10 seats (unless `players`
    says); `table` holds more of the config (the deck, its options)."""
    if rules is None:
        rules = Rules(**{name: rng.random() < 0.3 for name in RULE_NAMES})
    seats = rng.randint(2, 10) if players is None else players
    config = GameConfig(seats, rng.choice([0, 0, 0, 100]), rules, **table)
    state, events = new_game(config, seed)
    for _ in range(20_000):
        if state.finished:
            break
        if rng.random() < 0.03:
            events += apply_timeout(state)
            continue
        to_act = state.to_act
        assert to_act is not None
        seat = to_act
        if rng.random() < 0.2:  # anyone with a move: catches, calls, jump-ins
            seat = rng.choice([s for s in range(config.players) if legal_moves(state, s)])
        moves = legal_moves(state, seat)
        plays = [m for m in moves if m.action == "play"]
        move = rng.choice(plays if plays and rng.random() < 0.9 else moves)
        if move.action == "play" and rng.random() < 0.5:
            move = replace(move, uno=True)
        events += apply(state, seat, move)
    assert state.finished
    return config, state, events


def play_to_the_end(
    state: GameState,
    rng: random.Random,
    *,
    after_each: Callable[[GameState], None] | None = None,
) -> list[Event]:
    """Play `state` to its end with the seat to act playing a card nine times in ten
    when it can, else any legal move; `after_each` looks at the table after each
    move. The events of those moves."""
    events: list[Event] = []
    for _ in range(20_000):
        if state.finished:
            return events
        seat = state.to_act
        assert seat is not None
        moves = legal_moves(state, seat)
        plays = [m for m in moves if m.action == "play"]
        events += apply(state, seat, rng.choice(plays if plays and rng.random() < 0.9 else moves))
        if after_each is not None:
            after_each(state)
    raise AssertionError("the game did not end")


def bots_finish(strategy: str, config: GameConfig, seed: int) -> GameState:
    """A game of `config` that bots of `strategy` play at every seat to its end, each
    move checked legal first. The table at the end."""
    from games.bots import choose
    from games.engine import player_view

    rng = random.Random(seed)
    state, _ = new_game(config, seed)
    for _ in range(3000):
        if state.finished:
            return state
        seat = state.to_act
        assert seat is not None
        move = choose(strategy, player_view(state, seat), rng)
        assert move is not None, "the seat to act must act"
        assert move.without_uno() in legal_moves(state, seat)
        apply(state, seat, move)
    raise AssertionError(f"{strategy} bots did not finish the game of seed {seed}")
