"""Sampling the hidden cards: the worlds a decision is weighed in.

A sampled world is a full game state consistent with everything the view shows: the
other hands and the draw pile dealt at random from exactly the cards this seat cannot
see (card counting), each hand within what the round has shown of it (`memory`: a
seat that drew holds nothing of the colour it drew on), and a challenged Wild Draw
Four player's hand guilty or innocent as the odds of a bluff say. The seats the
table shows to be random bots are read here too: their Wild Draw Four is more often
a bluff, and the rollouts play them as they play.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final

from games.bots import memory
from games.bots.common import guilt_probability
from games.engine import GameConfig, GameState, Pending, PlayerView
from games.engine.cards import CARD_COUNT, COLOR_OF

# How likely a bluff is to be played, relative to an honest Wild Draw Four: weighs
# the card counting of a challenge decision. Players bluff mostly to stop a next seat
# about to go out (measured on greedy and random players' games).
BLUFF_LIKELIHOOD: Final = 0.15
BLUFF_LIKELIHOOD_THREATENED: Final = 0.5
# A random bot plays a Wild Draw Four whatever it holds, a little less often when it
# holds the colour (it then has more cards that fit).
BLUFF_LIKELIHOOD_RANDOM: Final = 0.75
# Bot strategies the rollouts play exactly as they are written.
RANDOM_PLAYERS: Final = frozenset({"random"})


def random_players(view: PlayerView) -> int:
    """The other seats the table shows to be random bots, a bit per seat."""
    seats = 0
    for seat, strategy in enumerate(view.bots):
        if strategy in RANDOM_PLAYERS and seat != view.seat:
            seats |= 1 << seat
    return seats


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


# Per seat: the cards known in its hand, how many more must fit `allowed` (a 112-entry
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
        allowed = bytes(not knowledge.excludes(c) for c in range(CARD_COUNT)) if bound else None
        deeper = max(bound - knowledge.recent, 0) if knowledge.layered else 0
        deeper_allowed = (
            bytes(not knowledge.excludes_older(c) for c in range(CARD_COUNT)) if deeper else None
        )
        limits.append((known, bound, allowed, deeper, deeper_allowed))
    return limits


def _shuffle(cards: list[int], rng: random.Random) -> None:
    """Fisher-Yates on `rng.random`: twice as fast as `Random.shuffle`, as random here."""
    rand = rng.random
    for i in range(len(cards) - 1, 0, -1):
        j = int(rand() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]


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
    config = GameConfig(
        view.players,
        0,
        view.rules,
        view.mode,
        deck=view.deck,
        shuffle_hands_last_card=view.shuffle_hands_last_card,
        wild_customizable=view.wild_customizable,
    )
    state = GameState(config, rng.getrandbits(63))
    state.round = view.round
    state.dealer = view.dealer
    pending = view.pending
    shown = view.partner if view.partner_hand else None  # a partner's hand in sight
    fixed: dict[int, list[int]] = {}
    if shown is not None:
        fixed[shown] = list(view.partner_hand)
    if (
        pending is not None
        and pending.type == "challenge"
        and pending.previous_color >= 0
        and pending.accused not in fixed
    ):
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
