"""Evidence that `uno-deal/1` deals fairly, and what it costs (docs/fairness.md).

    python -m bench.fairness [--shuffles 1000000] [--deals 1000000] [--json]

Uniformity: `--shuffles` decks of 108 shuffled by the round-seed stream, one round
seed per 1,000 shuffles (each from a fresh server seed), and a chi-square test of
independence over the 108 x 108 table of card by position (107 x 107 degrees of
freedom: every shuffle puts each card at exactly one position). The first discard:
`--deals` whole deals of round 1 by the engine (four seats, fresh seeds), and a
chi-square goodness-of-fit of the first card's kind against the deck's proportions
once Wild Draw Fours are put back (they never start the pile): 76 numbers, 8 each of
Skip, Reverse and Draw Two, 4 Wilds, of 104. A p-value far from 0 says the counts
are what a uniform shuffle gives.

Cost: the same shuffles and deals by the Mersenne Twister deal games were dealt with
before (`mt19937/53`), in blocks alternated with the new one's in one run, so the
ratio holds on a noisy machine; `--repeats` blocks each.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable

from games.engine import GameConfig, fair, new_game
from games.engine.cards import KIND_NAMES, KIND_OF
from games.engine.rng import derive, new_seed, shuffled

DECK = 108
PER_KEY = 1000
# The first card's kinds, once a Wild Draw Four is never left on the pile.
FIRST_CARD_SHARES = {
    "number": 76,
    "skip": 8,
    "reverse": 8,
    "draw_two": 8,
    "wild": 4,
}


def upper_gamma_regularized(a: float, x: float) -> float:
    """Q(a, x) = Gamma(a, x) / Gamma(a): a series below a + 1, a continued fraction
    above (Numerical Recipes, 6.2), to about 1e-12."""
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        while abs(term) > abs(total) * 1e-15:
            n += 1
            term *= x / n
            total += term
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def chi_square_p(statistic: float, freedom: int) -> float:
    return upper_gamma_regularized(freedom / 2, statistic / 2)


def card_by_position(shuffles: int) -> dict[str, float]:
    counts = [0] * (DECK * DECK)
    key = ""
    for index in range(shuffles):
        if index % PER_KEY == 0:
            key = fair.round_seed(fair.new_server_seed(), ["be7c4"], 1)
        deck = list(range(DECK))
        fair.shuffled(deck, key, index % PER_KEY)
        for position, card in enumerate(deck):
            counts[position * DECK + card] += 1
    expected = shuffles / DECK
    statistic = sum((count - expected) ** 2 for count in counts) / expected
    freedom = (DECK - 1) * (DECK - 1)
    return {
        "shuffles": shuffles,
        "chi_square": round(statistic, 1),
        "degrees_of_freedom": freedom,
        "p_value": round(chi_square_p(statistic, freedom), 4),
        "fewest_in_a_cell": min(counts),
        "most_in_a_cell": max(counts),
        "expected_per_cell": round(expected, 1),
    }


def first_discards(deals: int) -> dict[str, object]:
    config = GameConfig(4)
    seen = dict.fromkeys(FIRST_CARD_SHARES, 0)
    for _ in range(deals):
        state, _ = new_game(config, fair.new_server_seed(), client_seeds=["a", "", "b", ""])
        seen[KIND_NAMES[KIND_OF[state.discard[0]]]] += 1
    whole = sum(FIRST_CARD_SHARES.values())
    statistic = sum(
        (seen[kind] - deals * share / whole) ** 2 / (deals * share / whole)
        for kind, share in FIRST_CARD_SHARES.items()
    )
    freedom = len(FIRST_CARD_SHARES) - 1
    return {
        "deals": deals,
        "seen": seen,
        "expected": {k: round(deals * s / whole, 1) for k, s in FIRST_CARD_SHARES.items()},
        "chi_square": round(statistic, 2),
        "degrees_of_freedom": freedom,
        "p_value": round(chi_square_p(statistic, freedom), 4),
    }


def _timed(work: Callable[[int], None], count: int) -> float:
    started = time.perf_counter()
    work(count)
    return time.perf_counter() - started


def cost(repeats: int, count: int) -> dict[str, float]:
    """Microseconds per shuffle of 108 and per deal of round 1 (four seats), by each
    algorithm, in alternated blocks; the ratios of the new to the old."""
    server_seed = fair.new_server_seed()
    key = fair.round_seed(server_seed, ["a", "b"], 1)
    config = GameConfig(4)
    seeds = ["a", "", "b", ""]

    def fair_shuffles(n: int) -> None:
        for index in range(n):
            fair.shuffled(list(range(DECK)), key, index)

    def twister_shuffles(n: int) -> None:
        seed = new_seed()
        for index in range(n):
            shuffled(list(range(DECK)), derive(seed, "shuffle", index))

    def fair_deals(n: int) -> None:
        for _ in range(n):
            new_game(config, fair.new_server_seed(), client_seeds=seeds)

    def twister_deals(n: int) -> None:
        for _ in range(n):
            new_game(config, new_seed())

    totals = dict.fromkeys(("fair_shuffle", "mt_shuffle", "fair_deal", "mt_deal"), 0.0)
    for _ in range(repeats):
        totals["fair_shuffle"] += _timed(fair_shuffles, count)
        totals["mt_shuffle"] += _timed(twister_shuffles, count)
        totals["mt_deal"] += _timed(twister_deals, count)
        totals["fair_deal"] += _timed(fair_deals, count)
    micro = {name: round(total / (repeats * count) * 1e6, 1) for name, total in totals.items()}
    return {
        **{f"{name}_us": value for name, value in micro.items()},
        "shuffle_ratio": round(micro["fair_shuffle"] / micro["mt_shuffle"], 2),
        "deal_ratio": round(micro["fair_deal"] / micro["mt_deal"], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shuffles", type=int, default=1_000_000)
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--per-block", type=int, default=4000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = {
        "cost": cost(args.repeats, args.per_block),
        "card_by_position": card_by_position(args.shuffles),
        "first_discard": first_discards(args.deals),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    c = result["cost"]
    print(
        f"shuffle of 108: {c['fair_shuffle_us']} us (uno-deal/1) vs {c['mt_shuffle_us']} us "
        f"(mt19937/53): x{c['shuffle_ratio']}"
    )
    print(
        f"deal of round 1, 4 seats: {c['fair_deal_us']} us vs {c['mt_deal_us']} us: "
        f"x{c['deal_ratio']}"
    )
    for name in ("card_by_position", "first_discard"):
        print(name, json.dumps(result[name]))


if __name__ == "__main__":
    main()
