"""Bot strength: engine-only games between two strategies.

    python -m bench.bots --players 2 --games 4000 expert greedy [--first-game N] [--json]

The first strategy plays one seat and is measured; the second fills every other
seat; the measured seat rotates from game to game. Game i is dealt from a seed made
of i alone, and each seat draws its choices from a stream of its own, so two runs
over the same games compare strategies on the same deals and on the same luck of
the other seats until the measured seat's play makes the games differ;
`--first-game` moves the run to games a change was not tuned on. Every seat sees
which strategy each seat plays, as the game view shows it. Prints the
measured strategy's win rate with a 95% confidence interval (Wilson), and the mean
time per decision.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from games.bots import STRATEGIES
from games.engine import (
    LEGACY_SEED_BITS,
    Event,
    GameConfig,
    GameState,
    Move,
    apply,
    new_game,
    player_view,
)

MAX_STEPS = 100_000


@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    decisions: int = 0
    decision_seconds: float = 0.0
    slowest: float = 0.0


def play_game(
    strategies: list[str], target_score: int, seed: int, measured: int, tally: Tally
) -> int:
    """Play one game; returns the winning seat. Times the measured seat's decisions."""
    rngs = [random.Random(seed * 7919 + seat) for seat in range(len(strategies))]
    # In memory only: the 63-bit round seeds of the deals the published rates come from.
    config = GameConfig(len(strategies), target_score)
    state, history = new_game(config, seed, seed_bits=LEGACY_SEED_BITS)
    for _ in range(MAX_STEPS):
        if state.finished:
            return state.winner
        seat, move = _next_action(state, history, strategies, rngs, measured, tally)
        events = apply(state, seat, move)
        starts = [i for i, e in enumerate(events) if e.type == "round_started"]
        if starts:  # the views hold the current round only
            history = events[starts[-1] :]
        else:
            history.extend(events)
    raise RuntimeError(f"game with seed {seed} did not end")


def _next_action(
    state: GameState,
    history: list[Event],
    strategies: list[str],
    rngs: list[random.Random],
    measured: int,
    tally: Tally,
) -> tuple[int, Move]:
    to_act = state.to_act
    assert to_act is not None
    n = state.players
    # Out-of-turn moves (catching a forgotten UNO, jumping in) come before the turn.
    if state.uno_owed >= 0 or state.config.rules.jump_in:
        for offset in range(1, n):
            seat = (to_act + offset) % n
            move = _decide(state, history, seat, strategies, rngs[seat], measured, tally)
            if move is not None:
                return seat, move
    move = _decide(state, history, to_act, strategies, rngs[to_act], measured, tally)
    assert move is not None, "the seat to act must act"
    return to_act, move


def _decide(
    state: GameState,
    history: list[Event],
    seat: int,
    strategies: list[str],
    rng: random.Random,
    measured: int,
    tally: Tally,
) -> Move | None:
    view = player_view(state, seat, history, bots=strategies)
    if not view.legal_moves:
        return None
    choose = STRATEGIES[strategies[seat]]
    if seat != measured:
        return choose(view, rng)
    started = time.perf_counter()
    move = choose(view, rng)
    elapsed = time.perf_counter() - started
    tally.decisions += 1
    tally.decision_seconds += elapsed
    tally.slowest = max(tally.slowest, elapsed)
    return move


def _run_chunk(args: tuple[str, str, int, int, list[int]]) -> Tally:
    first, second, players, target_score, games = args
    tally = Tally()
    for index in games:
        measured = index % players
        strategies = [second] * players
        strategies[measured] = first
        winner = play_game(strategies, target_score, 1_000_003 * index + 17, measured, tally)
        tally.games += 1
        tally.wins += winner == measured
    return tally


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


def run(
    first: str,
    second: str,
    players: int,
    games: int,
    target_score: int,
    workers: int,
    first_game: int = 0,
) -> dict[str, Any]:
    end = first_game + games
    chunks = [list(range(first_game + w, end, workers)) for w in range(workers)]
    started = time.perf_counter()
    if workers == 1:
        tallies = [_run_chunk((first, second, players, target_score, chunks[0]))]
    else:
        with ProcessPoolExecutor(workers) as pool:
            tallies = list(
                pool.map(_run_chunk, [(first, second, players, target_score, c) for c in chunks])
            )
    total = Tally()
    for t in tallies:
        total.games += t.games
        total.wins += t.wins
        total.decisions += t.decisions
        total.decision_seconds += t.decision_seconds
        total.slowest = max(total.slowest, t.slowest)
    low, high = wilson(total.wins, total.games)
    return {
        "strategy": first,
        "against": second,
        "players": players,
        "games": total.games,
        "first_game": first_game,
        "wins": total.wins,
        "win_rate": round(total.wins / total.games, 4),
        "ci_low": round(low, 4),
        "ci_high": round(high, 4),
        "fair_share": round(1 / players, 4),
        "mean_decision_ms": round(1000 * total.decision_seconds / max(total.decisions, 1), 3),
        "max_decision_ms": round(1000 * total.slowest, 1),
        "seconds": round(time.perf_counter() - started, 1),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", choices=sorted(STRATEGIES))
    parser.add_argument("second", choices=sorted(STRATEGIES))
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--target-score", type=int, default=0, help="0: a game is one round")
    parser.add_argument("--workers", type=int, default=2, help="processes (one per core)")
    parser.add_argument(
        "--first-game", type=int, default=0, help="index of the first game (its deal)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run(
        args.first,
        args.second,
        args.players,
        args.games,
        args.target_score,
        args.workers,
        args.first_game,
    )
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"{result['strategy']} vs {result['against']} ({result['players']} players, "
        f"{result['games']} games from game {result['first_game']}): "
        f"win rate {result['win_rate']:.1%} "
        f"(95% CI {result['ci_low']:.1%} to {result['ci_high']:.1%}; fair share "
        f"{result['fair_share']:.0%})\n"
        f"decision time: mean {result['mean_decision_ms']} ms, max {result['max_decision_ms']} ms; "
        f"{result['seconds']} s"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
