"""Bot strength: engine-only games between two strategies.

    python -m bench.bots --players 2 --games 4000 expert greedy [--first-game N] [--json]
    python -m bench.bots --mode partners [--see-hands] --games 2000 greedy random
    python -m bench.bots --deck modern_112 [--wild-customizable EFFECT] expert greedy

The first strategy plays one seat and is measured; the second fills every other
seat; the measured seat rotates from game to game. In `--mode partners` (four seats) the
first strategy plays a team, both seats across from each other, the second the other
team; a game won by either partner counts for the team, a fair share is one half,
and `--see-hands` lets partners see each other's hand. `--deck modern_112` plays the
112-card deck, its Wild Customizable doing `--wild-customizable`. Game i is dealt from a seed made
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
from games.engine.cards import DECKS
from games.engine.state import CUSTOM_EFFECTS, MODES, Mode

MAX_STEPS = 100_000


@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    decisions: int = 0
    decision_seconds: float = 0.0
    slowest: float = 0.0


def play_game(
    strategies: list[str],
    target_score: int,
    seed: int,
    measured: int,
    tally: Tally,
    table: Table | None = None,
) -> int:
    """Play one game of the config `table` completes (mode, deck and their options);
    returns the winning seat. Times the measured seat's decisions."""
    rngs = [random.Random(seed * 7919 + seat) for seat in range(len(strategies))]
    # In memory only: the 63-bit round seeds of the deals the published rates come from.
    config = GameConfig(len(strategies), target_score, **(table or {}))
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


# GameConfig's keywords beyond seats and target: mode, partners_see_hands, deck, ...
Table = dict[str, Any]
Chunk = tuple[str, str, int, int, list[int], Table]


def _run_chunk(args: Chunk) -> Tally:
    first, second, players, target_score, games, table = args
    mode = table.get("mode", "classic")
    tally = Tally()
    for index in games:
        strategies = [second] * players
        if mode == "partners":
            measured = index % 2  # the team of seats `measured` and `measured + 2`
            strategies[measured] = strategies[measured + 2] = first
        else:
            measured = index % players
            strategies[measured] = first
        seed = 1_000_003 * index + 17
        winner = play_game(strategies, target_score, seed, measured, tally, table)
        tally.games += 1
        tally.wins += winner % 2 == measured if mode == "partners" else winner == measured
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
    mode: Mode = "classic",
    see_hands: bool = False,
    deck: str = "classic_108",
    wild_customizable: str = "wild",
) -> dict[str, Any]:
    end = first_game + games
    chunks = [list(range(first_game + w, end, workers)) for w in range(workers)]
    started = time.perf_counter()
    table: Table = {"mode": mode, "partners_see_hands": see_hands, "deck": deck}
    if deck == "modern_112":
        table["wild_customizable"] = wild_customizable
    jobs: list[Chunk] = [(first, second, players, target_score, c, table) for c in chunks]
    if workers == 1:
        tallies = [_run_chunk(jobs[0])]
    else:
        with ProcessPoolExecutor(workers) as pool:
            tallies = list(pool.map(_run_chunk, jobs))
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
        "mode": mode,
        "see_hands": see_hands,
        "deck": deck,
        "wild_customizable": wild_customizable if deck == "modern_112" else None,
        "fair_share": 0.5 if mode == "partners" else round(1 / players, 4),
        "mean_decision_ms": round(1000 * total.decision_seconds / max(total.decisions, 1), 3),
        "max_decision_ms": round(1000 * total.slowest, 1),
        "seconds": round(time.perf_counter() - started, 1),
    }


def _deck_words(result: dict[str, Any]) -> str:
    effect = result["wild_customizable"]
    return f"112 cards, Wild Customizable {effect}, " if effect else ""


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
    parser.add_argument("--mode", choices=MODES, default="classic")
    parser.add_argument("--see-hands", action="store_true", help="partners see each other's hand")
    parser.add_argument("--deck", choices=DECKS, default="classic_108")
    parser.add_argument("--wild-customizable", choices=CUSTOM_EFFECTS, default="wild")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    players = 4 if args.mode == "partners" else args.players
    result = run(
        args.first,
        args.second,
        players,
        args.games,
        args.target_score,
        args.workers,
        args.first_game,
        args.mode,
        args.see_hands,
        args.deck,
        args.wild_customizable,
    )
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"{result['strategy']} vs {result['against']} ({result['players']} players, "
        f"{'partners, ' if result['mode'] == 'partners' else ''}"
        f"{'hands shown, ' if result['see_hands'] else ''}"
        f"{_deck_words(result)}"
        f"{result['games']} games from game {result['first_game']}): "
        f"win rate {result['win_rate']:.1%} "
        f"(95% CI {result['ci_low']:.1%} to {result['ci_high']:.1%}; fair share "
        f"{result['fair_share']:.0%})\n"
        f"decision time: mean {result['mean_decision_ms']} ms, max {result['max_decision_ms']} ms; "
        f"{result['seconds']} s"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
