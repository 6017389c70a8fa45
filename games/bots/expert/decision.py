"""Choosing a move: the candidates, the search over sampled worlds, and their race.

For a real choice the bot compares a few distinct candidate moves, the greedy one
first. It samples worlds (`sampling`), plays every candidate in each with the
engine, then plays on with the fast rollout (`rollout`). The same sampled worlds
serve every candidate (common random numbers), so candidates are compared on paired
outcomes, not on luck; a candidate clearly behind the leader is dropped as the
worlds come in, so the work goes to the close calls, and the greedy choice stands
unless another move beats it clearly. A wild may also name a colour the next seat is
known to lack.

The work per decision is bounded by a count of simulated moves, not by the clock,
so a decision is a pure function of (view, rng) and stays under 50 ms on one core.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Final

from games.bots import greedy, memory
from games.bots.common import color_counts, to_act, with_uno
from games.bots.expert.rollout import simulate
from games.bots.expert.sampling import HandLimit, Hidden, determinize, hand_limits, random_players
from games.engine import Move, PlayerView, push
from games.engine.cards import COLOR_OF, FACE_OF, IS_WILD

# Simulated moves per decision at most, whatever the table (each world and each
# candidate also pays a fixed overhead in the same unit): the only bound on the work.
MAX_SIMULATED_MOVES: Final = 20_000
WORLD_COST: Final = 18  # dealing a world, in simulated moves
CANDIDATE_COST: Final = 5  # copying a world and applying a candidate with the engine
MAX_WORLDS: Final = 2000
MIN_WORLDS: Final = 8
MAX_ROLLOUT_MOVES: Final = 16
MAX_CANDIDATES: Final = 8
# Leave the greedy choice only for a move whose paired advantage over it is this many
# standard errors above zero: below that, the difference is noise.
MIN_Z: Final = 0.5
# Every RACE_EVERY worlds, a candidate whose paired deficit to the leader is more than
# RACE_Z standard errors below zero gets no more worlds (the baseline always does).
RACE_Z: Final = 2.0
RACE_EVERY: Final = 16
# The other seats in a rollout challenge a Wild Draw Four this often: nobody plays
# quite like us.
CHALLENGE_RATE: Final = 0.5


def choose(view: PlayerView, rng: random.Random) -> Move | None:
    return decide(view, rng).move


@dataclass(frozen=True, slots=True)
class Decision:
    """A move and what finding it cost: `work` in simulated moves, never above
    MAX_SIMULATED_MOVES."""

    move: Move | None
    worlds: int = 0
    work: int = 0


def decide(view: PlayerView, rng: random.Random) -> Decision:
    legal = list(view.legal_moves)
    if not legal:
        return Decision(None)
    for move in legal:
        if move.action in ("catch_uno", "call_uno"):
            return Decision(move)
    baseline = greedy.choose(view, rng)
    if to_act(view) != view.seat or baseline is None:
        return Decision(baseline)  # a jump-in sheds a card for free
    plain = baseline.without_uno()
    seen = memory.of_view(view)
    limits = hand_limits(view, seen)
    candidates = candidate_moves(view, legal, plain, _lacking_colors(view, seen))
    if len(candidates) == 1:
        return Decision(baseline)
    best, worlds, work = search(view, candidates, rng, limits)
    return Decision(baseline if best == plain else with_uno(view, best), worlds, work)


def _lacking_colors(view: PlayerView, seen: list[memory.Knowledge] | None = None) -> int:
    """The colours the next seat is known to hold none of (a bit per colour)."""
    if not view.history:
        return 0
    if seen is None:
        seen = memory.of_view(view)
    nxt = seen[(view.seat + view.direction) % view.players]
    return nxt.colors & 0b1111 if nxt.fresh == 0 and not nxt.known else 0


def candidate_moves(
    view: PlayerView, legal: list[Move], baseline: Move, lacking: int = 0
) -> list[Move]:
    """Distinct choices worth comparing, the greedy one first: identical cards once,
    a wild only in the colours the hand left holds most of, at most MAX_CANDIDATES."""
    rest_counts: dict[int, list[int]] = {}
    seen: set[tuple[str, int, int, int]] = set()
    key: tuple[str, int, int, int]
    ranked: list[tuple[float, int, Move]] = []
    for index, move in enumerate(legal):
        card = move.card
        if move.action == "play" and card is not None:
            key = (move.action, FACE_OF[card] * 8 + COLOR_OF[card] + 1, move.color or 0, -1)
            if move.target is not None:
                key = (*key[:3], move.target)
            if IS_WILD[card]:
                counts = rest_counts.get(card)
                if counts is None:
                    rest = list(view.hand)
                    rest.remove(card)
                    counts = rest_counts[card] = color_counts(rest)
                color = move.color if move.color is not None else 0
                top = max(counts)
                # The best colour, and a second one only if the hand holds some of it.
                ordered = sorted(range(4), key=lambda c: (-counts[c], c))
                if not lacking >> color & 1 and (
                    color not in (ordered[0], ordered[1])
                    or (color == ordered[1] and counts[color] == 0)
                ):
                    continue
                rank = -12.0 + 2 * counts[color] - (top - counts[color])
            else:
                rank = 2.0 * sum(1 for c in view.hand if COLOR_OF[c] == COLOR_OF[card])
        else:
            key = (move.action, -1, move.color if move.color is not None else -1, -1)
            rank = -5.0
        if key in seen and move != baseline:
            continue
        seen.add(key)
        ranked.append((rank, -index, move))
    ranked.sort(key=lambda item: (item[0], item[1]), reverse=True)
    chosen = [baseline]
    for _, _, move in ranked:
        if move != baseline and len(chosen) < MAX_CANDIDATES:
            chosen.append(move)
    return chosen


def search(
    view: PlayerView,
    candidates: list[Move],
    rng: random.Random,
    allowed: list[HandLimit | None] | None = None,
) -> tuple[Move, int, int]:
    """The candidate with the best paired advantage over the first (the baseline),
    the worlds sampled and the work spent."""
    k = len(candidates)
    budget = MAX_SIMULATED_MOVES
    # Long rounds (many seats, big hands, house rules) are cut short and judged by the
    # hand sizes rather than sampled in fewer worlds.
    horizon = min(MAX_ROLLOUT_MOVES, budget // (k * MIN_WORLDS) - CANDIDATE_COST)
    world_cost = WORLD_COST + sum(view.card_counts) // 8
    worlds = 0
    seat = view.seat
    mate = -1 if view.partner is None else view.partner  # a partner's win is the team's
    moves = [with_uno(view, move) for move in candidates]
    values = [0.0] * k
    hidden = Hidden.of(view, allowed)
    random_seats = random_players(view)
    active = list(range(k))
    outcomes: list[list[float]] = [[] for _ in range(k)]
    while worlds < MAX_WORLDS and budget >= world_cost + len(active) * (CANDIDATE_COST + horizon):
        budget -= world_cost
        world = determinize(view, rng, hidden=hidden)
        seed = rng.getrandbits(64)
        for i in active:
            sim = world.copy()
            push(sim, seat, moves[i])
            values[i], used = simulate(
                sim, seed, horizon, seat, CHALLENGE_RATE, random_seats, mate=mate
            )
            budget -= used + CANDIDATE_COST
        worlds += 1
        for i in active:
            outcomes[i].append(values[i])
        if worlds % RACE_EVERY == 0 and len(active) > 1:
            active = _still_in_race(active, outcomes)
            if active == [0]:
                break
    work = MAX_SIMULATED_MOVES - budget
    best = _leader(active, outcomes)
    if best == 0 or worlds == 0:
        return candidates[0], worlds, work
    mean, error = _paired_advantage(outcomes[best], outcomes[0])
    if mean <= 0 or mean < MIN_Z * error:
        return candidates[0], worlds, work
    return candidates[best], worlds, work


def _leader(active: list[int], outcomes: list[list[float]]) -> int:
    """The candidate of `active` with the best total, the earliest on a tie."""
    return max(active, key=lambda i: (sum(outcomes[i]), -i))


def _paired_advantage(own: list[float], other: list[float]) -> tuple[float, float]:
    """The mean of `own - other` over the same worlds, and its standard error."""
    worlds = len(own)
    total = squares = 0.0
    for mine, theirs in zip(own, other, strict=True):
        d = mine - theirs
        total += d
        squares += d * d
    mean = total / worlds
    variance = max(squares / worlds - mean * mean, 0.0)
    return mean, math.sqrt(variance / worlds)


def _still_in_race(active: list[int], outcomes: list[list[float]]) -> list[int]:
    """The candidates of `active` not clearly behind the leader on the worlds so far
    (every candidate in `active` was played in each of them); the baseline, 0, stays."""
    leader = _leader(active, outcomes)
    kept: list[int] = []
    for i in active:
        if i not in (0, leader):
            mean, error = _paired_advantage(outcomes[i], outcomes[leader])
            if mean + RACE_Z * error < 0:
                continue
        kept.append(i)
    return kept
