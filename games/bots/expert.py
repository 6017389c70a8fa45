"""The expert bot: determinized Monte Carlo search with card counting.

For a real choice it samples the hidden cards many times: the other hands and the
draw pile, dealt at random from exactly the cards this seat cannot see (card
counting), each hand within what the round has shown of it (`memory`: a seat that
drew holds nothing of the colour it drew on), and a challenged Wild Draw Four
player's hand guilty or innocent as the odds of a bluff say. It plays every
candidate move in each sampled world with the engine, then plays on a few turns with
a fast greedy-like policy simulated on bare lists rather than through the engine,
and judges where the round then stands from the cards every seat holds
(`leaf_value`). The same sampled worlds serve every candidate (common random
numbers), so candidates are compared on paired outcomes, not on luck; a candidate
clearly behind the leader is dropped as the worlds come in, so the work goes to the
close calls, and the greedy choice stands unless another move beats it clearly. A
wild may also name a colour the next seat is known to lack. A seat the table shows
to be a random bot is simulated exactly as it plays: any card that fits, any colour,
never a challenge.

The work per decision is bounded by a count of simulated moves, not by the clock,
so a decision is a pure function of (view, rng) and stays under 50 ms on one core.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Final

from games.bots import greedy, memory
from games.bots.common import color_counts, guilt_probability, to_act, with_uno
from games.engine import GameConfig, GameState, Move, Pending, PlayerView, push
from games.engine.cards import (
    COLOR_OF,
    DRAW_TWO,
    FACE_OF,
    IS_WILD,
    KIND_OF,
    NUMBER_OF,
    POINTS_OF,
    REVERSE,
    SKIP,
    WILD,
    WILD_DRAW_FOUR,
)

# Simulated moves per decision at most, whatever the table (each world and each
# candidate also pays a fixed overhead in the same unit): the only bound on the work.
MAX_SIMULATED_MOVES: Final = 20_000
WORLD_COST: Final = 18  # dealing a world, in simulated moves
CANDIDATE_COST: Final = 5  # copying a world and applying a candidate with the engine
MAX_WORLDS: Final = 2000
MIN_WORLDS: Final = 8
MAX_ROLLOUT_MOVES: Final = 16
# A round cut short is judged by a softmax over the seats of these weights: a card in
# hand, a wild in hand, and each seat to wait for before one's turn (per seat).
LEAF_CARD: Final = 0.28
LEAF_WILD: Final = 0.65
LEAF_TURN: Final = 0.2
MAX_CANDIDATES: Final = 8
# Leave the greedy choice only for a move whose paired advantage over it is this many
# standard errors above zero: below that, the difference is noise.
MIN_Z: Final = 0.5
# Every RACE_EVERY worlds, a candidate whose paired deficit to the leader is more than
# RACE_Z standard errors below zero gets no more worlds (the baseline always does).
RACE_Z: Final = 2.0
RACE_EVERY: Final = 16
# How likely a bluff is to be played, relative to an honest Wild Draw Four: weighs
# the card counting of a challenge decision. Players bluff mostly to stop a next seat
# about to go out (measured on greedy and random players' games).
BLUFF_LIKELIHOOD: Final = 0.15
BLUFF_LIKELIHOOD_THREATENED: Final = 0.5
# A random bot plays a Wild Draw Four whatever it holds, a little less often when it
# holds the colour (it then has more cards that fit).
BLUFF_LIKELIHOOD_RANDOM: Final = 0.75
# The other seats in a rollout challenge a Wild Draw Four this often: nobody plays
# quite like us.
CHALLENGE_RATE: Final = 0.5
# Bot strategies the rollouts play exactly as they are written.
RANDOM_PLAYERS: Final = frozenset({"random"})


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
            values[i], used = simulate(sim, seed, horizon, seat, CHALLENGE_RATE, random_seats)
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


def random_players(view: PlayerView) -> int:
    """The other seats the table shows to be random bots, a bit per seat."""
    seats = 0
    for seat, strategy in enumerate(view.bots):
        if strategy in RANDOM_PLAYERS and seat != view.seat:
            seats |= 1 << seat
    return seats


# -- sampling the hidden cards ----------------------------------------------------------


def _none_of(pool: int, of_color: int, drawn: int) -> float:
    """P(no card of a colour among `drawn` cards dealt from `pool`, `of_color` of them
    of that colour)."""
    p_none = 1.0
    for i in range(drawn):
        remaining = pool - i
        if remaining <= 0:
            break
        p_none *= max(remaining - of_color, 0) / remaining
    return p_none


def _guilt_prior(view: PlayerView, limit: HandLimit | None) -> float:
    """P(the accused holds the colour before its Wild Draw Four), if its hand were
    dealt at random within what the table has shown of it."""
    pending = view.pending
    if limit is None or pending is None:
        return guilt_probability(view)
    color = pending.previous_color
    known, bound, allowed, deeper, deeper_allowed = limit
    if any(COLOR_OF[c] == color for c in known):
        return 1.0
    unseen = view.unseen()
    rest = view.card_counts[pending.accused] - len(known)
    p_none = 1.0
    for table, count in ((deeper_allowed, deeper), (allowed, bound - deeper)):
        if table is not None and count > 0:
            pool = [c for c in unseen if table[c]]
            p_none *= _none_of(len(pool), sum(1 for c in pool if COLOR_OF[c] == color), count)
            rest -= count
    of_color = sum(1 for c in unseen if COLOR_OF[c] == color)
    return 1.0 - p_none * _none_of(len(unseen), of_color, max(rest, 0))


def _guilt_posterior(view: PlayerView, limit: HandLimit | None = None) -> float:
    """P(the pending Wild Draw Four was a bluff): card counting, weighed by how rarely
    a player bluffs unless the next seat is about to go out."""
    prior = _guilt_prior(view, limit)
    threatened = view.card_counts[view.seat] <= 2
    ratio = BLUFF_LIKELIHOOD_THREATENED if threatened else BLUFF_LIKELIHOOD
    if view.pending is not None and random_players(view) >> view.pending.accused & 1:
        ratio = BLUFF_LIKELIHOOD_RANDOM
    weighed = prior * ratio
    return weighed / (weighed + 1.0 - prior) if weighed + 1.0 - prior > 0 else prior


# Per seat: the cards known in its hand, how many more must fit `allowed` (a 108-entry
# table of the cards it may hold, None: any), and how many of those must also fit the
# narrower table of what it has lacked through earlier draws.
HandLimit = tuple[list[int], int, bytes | None, int, bytes | None]


def hand_limits(
    view: PlayerView, seen: list[memory.Knowledge] | None = None
) -> list[HandLimit | None]:
    """What `memory` says (`seen`, read from `view` when not given) each other seat's
    hand holds or lacks, ready for dealing."""
    if not view.history:
        return [None] * view.players
    if seen is None:
        seen = memory.of_view(view)
    visible = set(view.hand)
    visible.update(view.discard)
    limits: list[HandLimit | None] = []
    for seat, knowledge in enumerate(seen):
        known = [c for c in knowledge.known if c not in visible]
        if seat == view.seat or (not known and not knowledge.constrained):
            limits.append(None)
            continue
        count = view.card_counts[seat]
        known = known[:count]
        bound = max(count - len(known) - knowledge.fresh, 0) if knowledge.constrained else 0
        allowed = bytes(not knowledge.excludes(c) for c in range(108)) if bound else None
        deeper = max(bound - knowledge.recent, 0) if knowledge.layered else 0
        deeper_allowed = (
            bytes(not knowledge.excludes_older(c) for c in range(108)) if deeper else None
        )
        limits.append((known, bound, allowed, deeper, deeper_allowed))
    return limits


def _deal(unseen: list[int], count: int, allowed: bytes) -> list[int]:
    """Take the first `count` cards of the shuffled `unseen` that `allowed` lets through."""
    taken: list[int] = []
    if count <= 0:
        return taken
    for index, card in enumerate(unseen):
        if allowed[card]:
            taken.append(index)
            if len(taken) == count:
                break
    picked = [unseen[index] for index in taken]
    for index in reversed(taken):
        del unseen[index]
    return picked


@dataclass(frozen=True, slots=True)
class Hidden:
    """What every sampled world of one decision starts from: the cards this seat
    cannot see, what the table has shown of each hand, and the odds that a pending
    Wild Draw Four was a bluff."""

    unseen: tuple[int, ...]
    limits: list[HandLimit | None] | None
    guilt: float

    @staticmethod
    def of(view: PlayerView, limits: list[HandLimit | None] | None = None) -> Hidden:
        pending = view.pending
        guilt = 0.0
        if pending is not None and pending.type == "challenge" and pending.previous_color >= 0:
            guilt = _guilt_posterior(view, limits[pending.accused] if limits else None)
        return Hidden(tuple(view.unseen()), limits, guilt)


def determinize(
    view: PlayerView,
    rng: random.Random,
    limits: list[HandLimit | None] | None = None,
    hidden: Hidden | None = None,
) -> GameState:
    """A full table consistent with everything `view` shows, hidden cards at random
    (within what the table has shown of each hand: `hand_limits`). `hidden`, worked
    out once per decision, saves working it out again for every world."""
    if hidden is None:
        hidden = Hidden.of(view, limits)
    limits = hidden.limits
    unseen = list(hidden.unseen)
    _shuffle(unseen, rng)
    # Rollouts only need to know who wins this round.
    state = GameState(GameConfig(view.players, 0, view.rules), rng.getrandbits(63))
    state.round = view.round
    state.dealer = view.dealer
    pending = view.pending
    fixed: dict[int, list[int]] = {}
    if pending is not None and pending.type == "challenge" and pending.previous_color >= 0:
        accused = pending.accused
        fixed[accused] = _accused_hand(
            unseen,
            view.card_counts[accused],
            pending.previous_color,
            rng.random() < hidden.guilt,
        )
    partial: dict[int, list[int]] = {}
    if limits is not None:
        for seat, limit in enumerate(limits):
            if limit is None or seat in fixed:
                continue
            known, bound, allowed, deeper, deeper_allowed = limit
            hand = [c for c in known if c in unseen]
            if hand:
                unseen[:] = [c for c in unseen if c not in hand]
            if deeper_allowed is not None:
                hand += _deal(unseen, deeper, deeper_allowed)
            if allowed is not None:
                hand += _deal(unseen, bound - deeper, allowed)
            partial[seat] = hand
    hands: list[list[int]] = []
    for seat, count in enumerate(view.card_counts):
        if seat == view.seat:
            hands.append(list(view.hand))
        elif seat in fixed:
            hands.append(fixed[seat])
        else:
            hand = partial.get(seat, [])
            more = count - len(hand)
            hands.append(hand + unseen[:more])
            del unseen[:more]
    state.hands = hands
    state.draw_pile = unseen
    state.discard = list(view.discard)
    state.current = view.current
    state.direction = view.direction
    state.color = view.color
    state.uno_owed = view.uno_owed
    state.said_uno = list(view.said_uno)
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


def _accused_hand(unseen: list[int], count: int, color: int, guilty: bool) -> list[int]:
    """Take `count` cards out of the shuffled `unseen` for a Wild Draw Four player,
    holding the previous colour or not as `guilty` says (when the cards allow)."""
    of_color = [i for i, c in enumerate(unseen) if COLOR_OF[c] == color]
    others = [i for i, c in enumerate(unseen) if COLOR_OF[c] != color]
    if guilty and of_color:
        picked = [of_color[0], *sorted(of_color[1:] + others)[: count - 1]]
    elif not guilty and len(others) >= count:
        picked = others[:count]
    else:
        picked = list(range(count))
    chosen = set(picked[:count])
    hand = [unseen[i] for i in sorted(chosen)]
    unseen[:] = [c for i, c in enumerate(unseen) if i not in chosen]
    return hand


# -- the fast rollout -------------------------------------------------------------------

# A greedy player's liking for a card, before the colour it leaves in hand: shed
# high points, keep wilds.
_MASK: Final = (1 << 64) - 1
# Knuth's MMIX linear congruential generator: one step is x * _LCG_MUL + _LCG_ADD.
_LCG_MUL: Final = 6364136223846793005
_LCG_ADD: Final = 1442695040888963407
_UNIT: Final = 1.0 / (1 << 53)
_BASE: Final = tuple(
    POINTS_OF[c] / 10 - (12 if KIND_OF[c] == WILD else 0) for c in range(len(POINTS_OF))
)
# Extra liking for a card that stops a next player holding two cards or fewer.
_THREAT: Final = tuple(
    {DRAW_TWO: 15.0, SKIP: 12.0, REVERSE: 10.0, WILD_DRAW_FOUR: 25.0}.get(KIND_OF[c], 0.0)
    for c in range(len(POINTS_OF))
)


def _shuffle(cards: list[int], rng: random.Random) -> None:
    """Fisher-Yates on `rng.random`: twice as fast as `Random.shuffle`, as random here."""
    rand = rng.random
    for i in range(len(cards) - 1, 0, -1):
        j = int(rand() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]


def _take(pile: list[int], discard: list[int], key: list[int]) -> int:
    """The top of the draw pile, shuffling the discards under it when it is empty (with
    a 64-bit LCG keyed per world, so that every candidate meets the same shuffle)."""
    if not pile:
        if len(discard) <= 1:
            return -1
        pile.extend(discard[:-1])
        del discard[:-1]
        x = key[0]
        lcg_mul, lcg_add, mask = _LCG_MUL, _LCG_ADD, _MASK
        for i in range(len(pile) - 1, 0, -1):
            x = (x * lcg_mul + lcg_add) & mask
            j = (x >> 32) % (i + 1)
            pile[i], pile[j] = pile[j], pile[i]
        key[0] = x
    return pile.pop()


def _give(hand: list[int], count: int, pile: list[int], discard: list[int], key: list[int]) -> None:
    for _ in range(count):
        card = _take(pile, discard, key)
        if card < 0:
            return
        hand.append(card)


def simulate(
    state: GameState,
    seed: int,
    limit: int,
    me: int = -1,
    challenge_rate: float = 1.0,
    random_seats: int = 0,
) -> tuple[float, int]:
    """Finish the round from `state` (its lists are used up) with a greedy-like policy
    for every seat: play the card that keeps the most of its colour in hand, wilds
    last, hit a seat about to go out, always play a drawn card that fits, challenge a
    Wild Draw Four, stack when possible. The seats in `random_seats` (a bit per seat)
    play as the random bot instead: any card that fits, a wild as likely as its four
    colour choices, any colour, never a challenge. Nobody forgets UNO or jumps in.

    Returns `me`'s value, 1 or 0 for a round won or lost, `leaf_value` when `limit`
    moves did not finish it, and the moves used, weighed by the size of the hands
    looked through.
    """
    n = state.players
    rules = state.config.rules
    stacking = rules.stacking
    seven_o = rules.seven_o
    until_playable = rules.draw_until_playable
    hands = state.hands
    pile = state.draw_pile
    discard = state.discard
    color = state.color
    face = FACE_OF[discard[-1]]
    direction = state.direction
    seat = state.current
    color_of = COLOR_OF
    face_of = FACE_OF
    kind_of = KIND_OF
    is_wild = IS_WILD
    base = _BASE
    threat_bonus = _THREAT

    facing = 0  # 1: a Wild Draw Four (challenge or accept), 2: a Draw Two stack
    amount = 0
    accused = -1
    guilty = False
    forced = -1  # a card just drawn that fits: the seat plays it
    pending = state.pending
    if state.winner >= 0:
        return float(state.winner == me), 0
    if pending is not None:
        seat = pending.seat
        if pending.type == "challenge":
            facing, amount, accused, guilty = 1, pending.amount, pending.accused, pending.guilty
        elif pending.type == "stack":
            facing, amount = 2, pending.amount
        elif pending.type == "drawn_card":
            forced = pending.card
        else:
            color = _best_color(hands[seat])

    key = [seed]
    # The players' own choices are drawn from a second LCG, so that a shuffle stays
    # the same whatever they chose.
    x = seed ^ 0x9E3779B97F4A7C15
    lcg_mul, lcg_add, mask = _LCG_MUL, _LCG_ADD, _MASK
    used = 0
    while True:
        hand = hands[seat]
        # A move costs more with a big hand to look through.
        cost = 1 + (len(hand) >> 3)
        if used + cost > limit:
            break
        used += cost
        at_random = random_seats >> seat & 1
        if facing:
            wanted = WILD_DRAW_FOUR if facing == 1 else DRAW_TWO
            card = -1
            # The random bot stacks a Draw Two but accepts a Wild Draw Four.
            if stacking and not (at_random and facing == 1):
                for c in hand:
                    if kind_of[c] == wanted:
                        card = c
                        break
            if card < 0:
                challenges = True
                if at_random:
                    challenges = False
                elif seat != me and challenge_rate < 1.0:
                    x = (x * lcg_mul + lcg_add) & mask
                    challenges = (x >> 11) * _UNIT < challenge_rate
                if facing == 1 and not challenges:
                    _give(hand, amount, pile, discard, key)
                    facing = amount = 0
                    seat = (seat + direction) % n
                    continue
                if facing == 1 and guilty:
                    _give(hands[accused], amount, pile, discard, key)
                    facing = amount = 0
                    continue  # the challenger takes a normal turn
                _give(hand, amount + 2 if facing == 1 else amount, pile, discard, key)
                facing = amount = 0
                seat = (seat + direction) % n
                continue
        elif forced >= 0:
            card = forced
            forced = -1
        elif at_random:
            card = -1
            fitting = 0
            for c in hand:
                if is_wild[c]:
                    fitting += 4
                elif color_of[c] == color or face_of[c] == face:
                    fitting += 1
            if fitting:
                x = (x * lcg_mul + lcg_add) & mask
                pick = (x >> 11) % fitting
                for c in hand:
                    if is_wild[c]:
                        pick -= 4
                    elif color_of[c] == color or face_of[c] == face:
                        pick -= 1
                    else:
                        continue
                    if pick < 0:
                        card = c
                        break
        else:
            card = -1
            counts = [0, 0, 0, 0]
            for c in hand:
                k = color_of[c]
                if k >= 0:
                    counts[k] += 1
            top_count = max(counts)
            holds = counts[color] > 0
            threatened = len(hands[(seat + direction) % n]) <= 2
            best = -1e9
            for c in hand:
                k = color_of[c]
                if k < 0:
                    score = 2.0 * top_count + base[c]
                    if kind_of[c] == WILD_DRAW_FOUR:
                        score -= 25 if holds else 9
                elif k == color or face_of[c] == face:
                    score = 2.0 * (counts[k] - 1) + base[c]
                else:
                    continue
                if threatened:
                    score += threat_bonus[c]
                if score > best:
                    best = score
                    card = c
        if card < 0:
            drawn = _take(pile, discard, key)
            while drawn >= 0:
                hand.append(drawn)
                if is_wild[drawn] or color_of[drawn] == color or face_of[drawn] == face:
                    break
                if not until_playable:
                    drawn = -1
                    break
                drawn = _take(pile, discard, key)
            if drawn >= 0:
                forced = drawn
            else:
                seat = (seat + direction) % n
            continue

        # Play `card`.
        hand.remove(card)
        discard.append(card)
        face = face_of[card]
        kind = kind_of[card]
        previous = color
        if not is_wild[card]:
            color = color_of[card]
        elif at_random:
            x = (x * lcg_mul + lcg_add) & mask
            color = (x >> 11) & 3
        else:
            color = _best_color(hand)
        if not hand:
            return float(seat == me), used
        nxt = (seat + direction) % n
        if kind == SKIP:
            seat = (nxt + direction) % n
        elif kind == REVERSE:
            direction = -direction
            if n > 2:
                seat = (seat + direction) % n
        elif kind == DRAW_TWO:
            if stacking:
                facing = 2
                amount += 2
                seat = nxt
            else:
                _give(hands[nxt], 2, pile, discard, key)
                seat = (nxt + direction) % n
        elif kind == WILD_DRAW_FOUR:
            facing = 1
            amount += 4
            accused = seat
            guilty = False
            for c in hand:
                if color_of[c] == previous:
                    guilty = True
                    break
            seat = nxt
        else:
            if seven_o and NUMBER_OF[card] == 7:
                if at_random:
                    x = (x * lcg_mul + lcg_add) & mask
                    target = (seat + 1 + (x >> 11) % (n - 1)) % n
                else:
                    target = min((s for s in range(n) if s != seat), key=lambda s: len(hands[s]))
                hands[seat], hands[target] = hands[target], hands[seat]
            elif seven_o and NUMBER_OF[card] == 0:
                hands[:] = [hands[(s - direction) % n] for s in range(n)]
            seat = nxt
    return leaf_value(hands, me, seat, direction), used


def leaf_value(hands: list[list[int]], me: int, current: int, direction: int) -> float:
    """`me`'s chance to win a round cut short, from what every hand holds and who
    plays next: a softmax of strengths fitted on greedy and random players' games."""
    n = len(hands)
    mine = 0.0
    total = 0.0
    for seat, hand in enumerate(hands):
        wilds = 0
        for card in hand:
            if IS_WILD[card]:
                wilds += 1
        distance = (seat - current) * direction % n
        strength = math.exp(LEAF_WILD * wilds - LEAF_CARD * len(hand) - LEAF_TURN * distance / n)
        total += strength
        if seat == me:
            mine = strength
    return mine / total


def _best_color(hand: list[int]) -> int:
    counts = [0, 0, 0, 0]
    for c in hand:
        k = COLOR_OF[c]
        if k >= 0:
            counts[k] += 1
    return counts.index(max(counts))
