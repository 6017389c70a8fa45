"""The expert bot: determinized Monte Carlo search with card counting.

For a real choice it samples the hidden cards many times (`sampling`: the other
hands and the draw pile dealt from exactly the cards this seat cannot see, within
what the round has shown of each hand), plays every candidate move in each sampled
world with the engine, then plays on a few turns with a fast greedy-like policy on
bare lists (`rollout`), and keeps the candidate with the best paired outcome over
the same worlds (`decision`). A seat the table shows to be a random bot is
simulated exactly as it plays.

The work per decision is bounded by a count of simulated moves, not by the clock,
so a decision is a pure function of (view, rng) and stays under 50 ms on one core.
"""

from games.bots.expert.decision import (
    MAX_SIMULATED_MOVES,
    Decision,
    candidate_moves,
    choose,
    decide,
    search,
)
from games.bots.expert.rollout import leaf_value, simulate
from games.bots.expert.sampling import (
    HandLimit,
    Hidden,
    determinize,
    hand_limits,
    random_players,
)

__all__ = [
    "MAX_SIMULATED_MOVES",
    "Decision",
    "HandLimit",
    "Hidden",
    "candidate_moves",
    "choose",
    "decide",
    "determinize",
    "hand_limits",
    "leaf_value",
    "random_players",
    "search",
    "simulate",
]
