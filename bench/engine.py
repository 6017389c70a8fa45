"""Engine throughput: random legal games, engine only, on one core.

    python -m bench.engine --players 4 --games 2000 [--rules stacking,jump_in]
        [--deal uno-deal/1|mt19937] [--deck classic_108|modern_112]
        [--wild-customizable EFFECT] [--versus-classic] [--json]

Each step asks `legal_moves` for the seat to act, picks one at random and applies it,
so the figure counts move generation, validation and application together, and every
deal and reshuffle of each game by `--deal`: `uno-deal/1` (what games are dealt by,
docs/fairness.md) or `mt19937` (games dealt before, and chosen seeds), from the
`--deck` of 108 or 112 cards. Snapshot sizes are sampled every 64 moves, outside the
timed region. `--versus-classic` runs the chosen deck and the classic one in turn,
twice each, and prints the ratio of their speeds: a figure the machine's noise
touches alike.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import fields

from games.engine import GameConfig, Rules, apply, fair, legal_moves, new_game
from games.engine.cards import DECKS
from games.engine.state import CUSTOM_EFFECTS

SNAPSHOT_EVERY = 64


def run(
    players: int,
    games: int,
    rules: Rules,
    target_score: int,
    seed: int,
    deal: str = fair.ALGORITHM,
    **table: str,
) -> dict[str, float]:
    """`games` random games of the config `table` completes (the deck, its options)."""
    rng = random.Random(seed)
    client_seeds = ["a" * 32] * players
    moves = 0
    snapshot_bytes = 0
    snapshots = 0
    untimed = 0.0
    started = time.perf_counter()
    for _ in range(games):
        config = GameConfig(players, target_score, rules, **table)  # type: ignore[arg-type]
        if deal == fair.ALGORITHM:
            server_seed = rng.getrandbits(256).to_bytes(32, "big").hex()
            state, _events = new_game(config, server_seed, client_seeds=client_seeds)
        else:
            state, _events = new_game(config, rng.getrandbits(63))
        while state.winner < 0:
            seat = state.current if state.pending is None else state.pending.seat
            apply(state, seat, rng.choice(legal_moves(state, seat)))
            moves += 1
            if moves % SNAPSHOT_EVERY == 0:
                t = time.perf_counter()
                snapshot_bytes += len(json.dumps(state.to_snapshot(), separators=(",", ":")))
                snapshots += 1
                untimed += time.perf_counter() - t
    elapsed = time.perf_counter() - started - untimed
    return {
        "games": games,
        "moves": moves,
        "seconds": round(elapsed, 3),
        "games_per_s": round(games / elapsed, 1),
        "moves_per_s": round(moves / elapsed),
        "snapshot_bytes": round(snapshot_bytes / max(snapshots, 1)),
    }


def parse_rules(text: str) -> Rules:
    names = {f.name for f in fields(Rules)}
    chosen = [name for name in text.split(",") if name]
    unknown = [name for name in chosen if name not in names]
    if unknown:
        raise SystemExit(f"unknown rules: {', '.join(unknown)} (known: {', '.join(sorted(names))})")
    return Rules(**dict.fromkeys(chosen, True))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--target-score", type=int, default=500)
    parser.add_argument("--rules", default="", help="comma-separated house rules")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deal", choices=[fair.ALGORITHM, "mt19937"], default=fair.ALGORITHM)
    parser.add_argument("--deck", choices=DECKS, default="classic_108")
    parser.add_argument("--wild-customizable", choices=CUSTOM_EFFECTS, default=None)
    parser.add_argument(
        "--versus-classic", action="store_true", help="also the classic deck, and the ratio"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    rules = parse_rules(args.rules)
    table = {"deck": args.deck}
    if args.wild_customizable is not None:
        table["wild_customizable"] = args.wild_customizable
    common = (args.players, args.games, rules, args.target_score, args.seed, args.deal)
    if args.versus_classic:
        compared = versus_classic(common, table)
        print(json.dumps(compared) if args.json else _versus_text(compared))
        return
    result = run(*common, **table)
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"{result['games']} games, {result['moves']} moves in {result['seconds']} s\n"
        f"games/s:        {result['games_per_s']}\n"
        f"moves/s:        {result['moves_per_s']}\n"
        f"snapshot bytes: {result['snapshot_bytes']} (mean)"
    )


def versus_classic(common: tuple[object, ...], table: dict[str, str]) -> dict[str, object]:
    """The deck of `table` and the classic one, in turn, twice each (the same seeds:
    each pair of runs plays the same number of games), and the ratio of their speeds."""
    runs: dict[str, list[dict[str, float]]] = {"deck": [], "classic": []}
    for _ in range(2):
        runs["deck"].append(run(*common, **table))  # type: ignore[arg-type]
        runs["classic"].append(run(*common))  # type: ignore[arg-type]

    def total(key: str, name: str) -> float:
        return sum(r[key] for r in runs[name])

    def speed(name: str, what: str) -> float:
        return total(what, name) / total("seconds", name)

    return {
        **table,
        "deck_runs": runs["deck"],
        "classic_runs": runs["classic"],
        "games_per_s_ratio": round(speed("deck", "games") / speed("classic", "games"), 3),
        "moves_per_s_ratio": round(speed("deck", "moves") / speed("classic", "moves"), 3),
    }


def _versus_text(compared: dict[str, object]) -> str:
    lines = []
    for name, label in (("deck_runs", compared["deck"]), ("classic_runs", "classic_108")):
        for result in compared[name]:  # type: ignore[attr-defined]
            lines.append(
                f"{label:12} {result['games_per_s']:8} games/s "
                f"{result['moves_per_s']:9} moves/s  {result['snapshot_bytes']} bytes"
            )
    lines.append(
        f"{compared['deck']} / classic_108: games/s x{compared['games_per_s_ratio']}, "
        f"moves/s x{compared['moves_per_s_ratio']}"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    main(sys.argv[1:])
