"""The fast rollout: a round played on from a sampled world, on bare lists.

After a candidate move, the round is played on a few turns with a greedy-like policy
simulated on the lists of the game state (hands, draw pile, discards as card ids)
rather than through the engine, then judged from the cards every seat holds and
who plays next (`leaf_value`). A seat the table shows to be a random bot is
simulated exactly as it plays: any card that fits, any colour, never a challenge.

A rollout draws from 64-bit linear congruential generators seeded per world, one for
the reshuffles and one for the players' choices, so that every candidate meets the
same shuffles whatever was chosen (common random numbers).

Each move a rollout makes leaves the table as `games.engine.apply` would (`step`
applies a given one; tests/games/bots/test_expert_rollout.py holds the two together),
except that a reshuffle has its own order, and that a seat going out ends the
rollout at once, where the engine still makes the next seat draw a last Draw Two or
Wild Draw Four and scores the round. A rollout knows no UNO debts: nobody forgets to
say UNO, so nobody is caught; nobody jumps in; a drawn card that fits is always
played. The 112-card deck's Wild Shuffle Hands and Wild Customizable play there as
plain Wilds: the candidate move itself, played by the engine, does what they do.
"""

from __future__ import annotations

import math
import sys
from typing import Final

from games.engine import GameState, Move, Pending
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

# A round cut short is judged by a softmax over the seats of these weights: a card in
# hand, a wild in hand, and each seat to wait for before one's turn (per seat).
LEAF_CARD: Final = 0.28
LEAF_WILD: Final = 0.65
LEAF_TURN: Final = 0.2
_MASK: Final = (1 << 64) - 1
# Knuth's MMIX linear congruential generator: one step is x * _LCG_MUL + _LCG_ADD.
_LCG_MUL: Final = 6364136223846793005
_LCG_ADD: Final = 1442695040888963407
_UNIT: Final = 1.0 / (1 << 53)
# A greedy player's liking for a card, before the colour it leaves in hand: shed
# high points, keep wilds.
_BASE: Final = tuple(
    POINTS_OF[c] / 10 - (12 if KIND_OF[c] == WILD else 0) for c in range(len(POINTS_OF))
)
# Extra liking for a card that stops a next player holding two cards or fewer.
_THREAT: Final = tuple(
    {DRAW_TWO: 15.0, SKIP: 12.0, REVERSE: 10.0, WILD_DRAW_FOUR: 25.0}.get(KIND_OF[c], 0.0)
    for c in range(len(POINTS_OF))
)


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
    *,
    first: Move | None = None,
    mate: int = -1,
) -> tuple[float, int]:
    """Finish the round from `state` (its lists are used up) with a greedy-like policy
    for every seat: play the card that keeps the most of its colour in hand, wilds
    last, hit a seat about to go out, always play a drawn card that fits, challenge a
    Wild Draw Four, stack when possible. The seats in `random_seats` (a bit per seat)
    play as the random bot instead: any card that fits, a wild as likely as its four
    colour choices, any colour, never a challenge. Nobody forgets UNO or jumps in.

    Returns `me`'s value, 1 or 0 for a round won or lost (in partners, won by `me` or
    by `mate`, the partner), `leaf_value` when `limit` moves did not finish it, and the
    moves used, weighed by the size of the hands looked through.

    With `first`, the seat to act makes that move instead, and the rollout stops
    after it, leaving `state` where it then stands (`step`).
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
    bluffed_color = -1  # the colour current under that Wild Draw Four
    forced = -1  # a card just drawn that fits: the seat plays it
    pending = state.pending
    if state.winner >= 0:
        return float(state.winner in (me, mate)), 0
    if pending is not None:
        seat = pending.seat
        if pending.type == "challenge":
            facing, amount, accused, guilty = 1, pending.amount, pending.accused, pending.guilty
            bluffed_color = pending.previous_color
        elif pending.type == "stack":
            facing, amount = 2, pending.amount
        elif pending.type == "drawn_card":
            forced = pending.card
        else:
            color = _best_color(hands[seat])
    # `first` in the loop's terms (`_choice`), played instead of the policy's choice.
    given = False
    given_card = given_color = given_target = -1
    given_challenge = False
    if first is not None:
        given = True
        given_card, given_color, given_target, given_challenge = _choice(first)
        if first.action == "choose_color":
            color = given_color
            given = False
            limit = 0
        elif forced >= 0 and given_card < 0:
            raise ValueError("a rollout always plays a drawn card that fits")

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
        # The move: `card` to play (-1: none), and only where they apply, the colour a
        # wild names, the seat a 7 swaps with, and whether a Wild Draw Four faced
        # without a card is challenged.
        if given:
            card, named, target, challenges = given_card, given_color, given_target, given_challenge
            forced = -1
            given = False
            limit = used
        else:
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
            if card >= 0:
                # A wild has no colour of its own: the hand holds the same colours with
                # it as without it.
                if is_wild[card]:
                    if at_random:
                        x = (x * lcg_mul + lcg_add) & mask
                        named = (x >> 11) & 3
                    else:
                        named = _best_color(hand)
                elif seven_o and NUMBER_OF[card] == 7:
                    if at_random:
                        x = (x * lcg_mul + lcg_add) & mask
                        target = (seat + 1 + (x >> 11) % (n - 1)) % n
                    else:
                        others = (s for s in range(n) if s != seat)
                        target = min(others, key=lambda s: len(hands[s]))

        if card < 0:
            if facing:
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
        color = named if is_wild[card] else color_of[card]
        if not hand:
            if first is not None:
                _leave(state, seat, direction, color, None, winner=seat)
            return float(seat in (me, mate)), used
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
            bluffed_color = previous
            guilty = False
            for c in hand:
                if color_of[c] == previous:
                    guilty = True
                    break
            seat = nxt
        else:
            if seven_o and NUMBER_OF[card] == 7:
                hands[seat], hands[target] = hands[target], hands[seat]
            elif seven_o and NUMBER_OF[card] == 0:
                hands[:] = [hands[(s - direction) % n] for s in range(n)]
            seat = nxt
    if first is not None:
        if facing == 1:
            waiting: Pending | None = Pending(
                "challenge",
                seat,
                amount=amount,
                accused=accused,
                guilty=guilty,
                previous_color=bluffed_color,
            )
        elif facing == 2:
            waiting = Pending("stack", seat, amount=amount)
        else:
            waiting = Pending("drawn_card", seat, card=forced) if forced >= 0 else None
        _leave(state, seat, direction, color, waiting)
    return leaf_value(hands, me, seat, direction, mate), used


def step(state: GameState, move: Move, seed: int = 0) -> None:
    """Apply `move`, a legal move of the seat to act, to `state` as a rollout applies
    it, and leave `state` where the rollout then stands: hands, piles, turn, direction,
    colour, the pending decision and the winner (scores, UNO debts and timeouts stay
    as they were). `seed` keys the rollout's reshuffles. Calling or catching UNO and
    passing on a drawn card that fits are never a rollout's moves."""
    simulate(state, seed, sys.maxsize, first=move)


def _choice(move: Move) -> tuple[int, int, int, bool]:
    """`move` in a rollout's terms: the card to play (-1: none, so draw, or take or
    challenge the cards a pending draw gives), the colour a wild or a colour choice
    names, the seat a 7 swaps with, and whether a Wild Draw Four is challenged."""
    action = move.action
    color = -1 if move.color is None else move.color
    if action == "play" and move.card is not None:
        return move.card, color, -1 if move.target is None else move.target, False
    if action in ("draw", "pass", "accept", "challenge", "choose_color"):
        return -1, color, -1, action == "challenge"
    raise ValueError(f"a rollout never makes the move {move}")


def _leave(
    state: GameState,
    seat: int,
    direction: int,
    color: int,
    pending: Pending | None,
    winner: int = -1,
) -> None:
    """Where a rollout stopped, written back into `state`."""
    state.current = seat
    state.direction = direction
    state.color = color
    state.pending = pending
    if winner >= 0:
        state.winner = winner


def leaf_value(
    hands: list[list[int]], me: int, current: int, direction: int, mate: int = -1
) -> float:
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
        if seat in (me, mate):
            mine += strength
    return mine / total


def _best_color(hand: list[int]) -> int:
    counts = [0, 0, 0, 0]
    for c in hand:
        k = COLOR_OF[c]
        if k >= 0:
            counts[k] += 1
    return counts.index(max(counts))
