"""The expert bot: determinized Monte Carlo search with card counting.

For a real choice it samples the hidden cards many times (the other hands and the
draw pile, dealt at random from exactly the cards this seat cannot see: card
counting), plays every candidate move in each sampled world, finishes the round
with a fast heuristic policy for every seat, and keeps the move that wins most
often. The same sampled worlds and rollout seeds serve every candidate (common
random numbers), so the comparison is between moves, not between luck.

The work per decision is bounded by a fixed number of rollouts, not by the clock,
so a decision is a pure function of (view, rng) and stays well under 50 ms.
"""

from __future__ import annotations

import random

from games.bots import greedy
from games.bots.common import best_color, to_act, with_uno
from games.engine import GameConfig, GameState, Move, Pending, PlayerView, legal_moves, push
from games.engine.cards import COLOR_OF, IS_WILD
from games.engine.moves import ACCEPT

ROLLOUT_BUDGET = 120  # rollouts per decision, shared among the candidates
MIN_SAMPLES = 12
MAX_ROLLOUT_MOVES = 250
# Moves simulated per decision at most, whatever the table: keeps a decision within
# its time budget when hands are large or a house rule makes rounds long.
MAX_SIMULATED_MOVES = 6000
# Leave the greedy choice only for a move that won this many more sampled worlds:
# below that, the difference is noise and the heuristic knows better.
MIN_ADVANTAGE = 0.08


def choose(view: PlayerView, rng: random.Random) -> Move | None:
    legal = list(view.legal_moves)
    if not legal:
        return None
    for move in legal:
        if move.action in ("catch_uno", "call_uno"):
            return move
    baseline = greedy.choose(view, rng)
    if to_act(view) != view.seat or baseline is None:
        return baseline  # a jump-in sheds a card for free
    candidates = _candidates(view, legal)
    plain = baseline.without_uno()
    if plain not in candidates:
        candidates.append(plain)
    if len(candidates) == 1:
        return baseline
    samples = max(MIN_SAMPLES, ROLLOUT_BUDGET // len(candidates))
    wins = [0] * len(candidates)
    budget = [MAX_SIMULATED_MOVES]
    done = 0
    while done < samples and budget[0] > 0:
        world = determinize(view, rng)
        rollout_seed = rng.getrandbits(32)
        for i, move in enumerate(candidates):
            sim = world.copy()
            push(sim, view.seat, with_uno(view, move))
            wins[i] += rollout(sim, random.Random(rollout_seed), budget) == view.seat
        done += 1
    samples = done
    best = max(range(len(candidates)), key=lambda i: (wins[i], -i))
    if wins[best] - wins[candidates.index(plain)] < MIN_ADVANTAGE * samples:
        return baseline
    return with_uno(view, candidates[best])


def _candidates(view: PlayerView, legal: list[Move]) -> list[Move]:
    """Distinct choices worth comparing: a wild only in the colour it suits best."""
    chosen: list[Move] = []
    for move in legal:
        card = move.card
        if move.action == "play" and card is not None and IS_WILD[card]:
            rest = [c for c in view.hand if c != card]
            if move.color != best_color(rest):
                continue
        chosen.append(move)
    return chosen


def determinize(view: PlayerView, rng: random.Random) -> GameState:
    """A full table consistent with everything `view` shows, hidden cards at random."""
    unseen = view.unseen()
    rng.shuffle(unseen)
    # Rollouts only need to know who wins this round.
    state = GameState(GameConfig(view.players, 0, view.rules), rng.getrandbits(63))
    state.round = view.round
    state.dealer = view.dealer
    hands: list[list[int]] = []
    for seat, count in enumerate(view.card_counts):
        if seat == view.seat:
            hands.append(list(view.hand))
        else:
            hands.append(unseen[:count])
            del unseen[:count]
    state.hands = hands
    state.draw_pile = unseen
    state.discard = list(view.discard)
    state.current = view.current
    state.direction = view.direction
    state.color = view.color
    state.uno_owed = view.uno_owed
    state.said_uno = list(view.said_uno)
    pending = view.pending
    if pending is not None:
        card = pending.card
        if pending.type == "drawn_card" and card < 0:
            card = hands[pending.seat][-1]
        guilty = pending.type == "challenge" and any(
            COLOR_OF[c] == pending.previous_color for c in hands[pending.accused]
        )
        state.pending = Pending(
            pending.type,
            pending.seat,
            card=card,
            amount=pending.amount,
            accused=pending.accused,
            guilty=guilty,
            previous_color=pending.previous_color,
        )
    return state


def rollout(state: GameState, rng: random.Random, budget: list[int]) -> int:
    """Finish the round with the fast policy; returns the winning seat. `budget`
    holds the moves left to simulate for this decision and is spent here."""
    for _ in range(MAX_ROLLOUT_MOVES):
        if state.winner >= 0:
            return state.winner
        if budget[0] <= 0:
            break
        budget[0] -= 1
        seat = state.to_act
        assert seat is not None
        push(state, seat, fast_policy(state, seat, rng))
    # Capped: call it for the seat closest to going out.
    return min(range(state.players), key=lambda s: len(state.hands[s]))


def fast_policy(state: GameState, seat: int, rng: random.Random) -> Move:
    """A cheap stand-in for a sensible player: match in the colour held most, keep
    wilds for last, accept a Wild Draw Four, say UNO."""
    moves = legal_moves(state, seat)
    hand = state.hands[seat]
    pending = state.pending
    if pending is not None and pending.type == "challenge":
        return ACCEPT
    best: Move | None = None
    best_score = -1.0
    counts = [0, 0, 0, 0]
    for card in hand:
        color = COLOR_OF[card]
        if color >= 0:
            counts[color] += 1
    for move in moves:
        action = move.action
        if action == "play":
            played = move.card
            assert played is not None
            if IS_WILD[played]:
                color = move.color if move.color is not None else 0
                score = counts[color] * 0.5 + rng.random() * 0.1
            else:
                score = 10 + counts[COLOR_OF[played]] + rng.random()
        elif action == "choose_color":
            color = move.color if move.color is not None else 0
            score = counts[color] + rng.random() * 0.1
        elif action in ("draw", "pass"):
            score = 0.0
        else:
            continue
        if score > best_score:
            best, best_score = move, score
    assert best is not None
    if best.action == "play" and len(hand) == 2:
        return Move("play", card=best.card, color=best.color, target=best.target, uno=True)
    return best
