"""Print the test vectors of docs/fairness.md, computed by the engine.

    python scripts/fairness_vectors.py

`tests/engine/test_fairness_vectors.py` checks that the document's vectors are what
this prints; `web/verify.js` is checked against the same vectors in the browser."""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import GameConfig, Rules, fair, new_game

SERVER_SEED = bytes(range(32)).hex()
CLIENT_SEEDS = ["9f86d081884c7d65", "", "7c1e9b0a2f", "0"]


def vectors() -> dict[str, Any]:
    first = fair.round_seed(SERVER_SEED, CLIENT_SEEDS, 1)
    deck = list(range(108))
    fair.shuffled(deck, first, 0)
    ten = list(range(10))
    fair.shuffled(ten, first, 3)
    stream = fair.Stream(first, "below", 0)
    state, events = new_game(GameConfig(4, 500, Rules()), SERVER_SEED, client_seeds=CLIENT_SEEDS)
    dealt = next(e for e in events if e.type == "round_started").data
    other = "f" * 64
    return {
        "commitments": [
            {"server_seed": seed, "commitment": fair.commitment(seed)}
            for seed in (SERVER_SEED, other)
        ],
        "round_seeds": [
            {
                "server_seed": SERVER_SEED,
                "client_seeds": CLIENT_SEEDS,
                "round": number,
                "round_seed": fair.round_seed(SERVER_SEED, CLIENT_SEEDS, number),
            }
            for number in (1, 2)
        ]
        + [
            {
                "server_seed": other,
                "client_seeds": ["a", "b"],
                "round": 7,
                "round_seed": fair.round_seed(other, ["a", "b"], 7),
            }
        ],
        "below": {
            "round_seed": first,
            "label": "below",
            "index": 0,
            "bound": 3 * 2**30,
            "values": [stream.below(3 * 2**30) for _ in range(10)],
        },
        "shuffles": [
            {"round_seed": first, "index": 0, "cards": 108, "order": deck},
            {"round_seed": first, "index": 3, "cards": 10, "order": ten},
        ],
        "first_dealer": {
            "round_seed": first,
            "players": 4,
            "dealer": fair.first_dealer(first, 4),
        },
        "round_one": {
            "server_seed": SERVER_SEED,
            "client_seeds": CLIENT_SEEDS,
            "dealer": dealt["dealer"],
            "hands": dealt["hands"],
            "top_card": dealt["top_card"],
            "draw_pile_count": len(state.draw_pile),
        },
    }


def dumped(value: dict[str, Any]) -> str:
    """Indented, with each list of numbers packed onto as few lines as read well."""
    numbers = re.compile(r"\[\n(\s+)(-?\d+(?:,\n\s+-?\d+)*)\n\s+\]")

    def pack(found: re.Match[str]) -> str:
        indent = found.group(1)
        items = [item.strip() for item in found.group(2).split(",")]
        lines = textwrap.wrap(", ".join(items), 88 - len(indent))
        return (
            "[\n"
            + ",\n".join(indent + line.rstrip(",") for line in lines)
            + "\n"
            + indent[2:]
            + "]"
        )

    return numbers.sub(pack, json.dumps(value, indent=2))


if __name__ == "__main__":
    print(dumped(vectors()))
