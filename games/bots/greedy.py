"""The greedy bot: one-move-deep heuristics a sound human player uses.

- Catch a forgotten UNO at once; say UNO with the second-to-last card.
- Keep wilds for when nothing else fits; play a Wild Draw Four only without a
  card of the current colour (never caught bluffing) unless it is the last resort.
- Stay in the colour it holds most; shed high-value cards first.
- Hit a next player close to going out with Draw Two, Skip, Reverse or Wild Draw Four.
- Challenge a Wild Draw Four when the odds favour it; stack and jump in when allowed.
- In partners, play for the team: never catch the partner's UNO; when the partner is
  close to going out, hand them the turn (a Skip or a Draw Two lands the turn on the
  seat across) and name a colour they hold when their hand is shown; never swap
  hands with them under seven_o.
- With the 112-card deck: play Wild Shuffle Hands while holding more cards than the
  average hand (in partners, while the team holds more than the other), keep it
  otherwise; use a Wild Customizable for what it does: hit with everyone drawing
  one, swap with the smallest hand, shed the colour held most, take the extra turn.
"""

from __future__ import annotations

import random

from games.bots.common import CHALLENGE_THRESHOLD, best_color, guilt_probability, to_act, with_uno
from games.engine import Move, PlayerView
from games.engine.cards import (
    COLOR_OF,
    DRAW_TWO,
    IS_WILD,
    KIND_OF,
    NUMBER_OF,
    POINTS_OF,
    REVERSE,
    SKIP,
    WILD,
    WILD_CUSTOMIZABLE,
    WILD_DRAW_FOUR,
    WILD_SHUFFLE_HANDS,
)
from games.engine.moves import ACCEPT, CHALLENGE


def _score_play(view: PlayerView, move: Move) -> float:
    card = move.card
    assert card is not None
    rest = list(view.hand)
    rest.remove(card)
    kind = KIND_OF[card]
    players = view.players
    next_seat = (view.seat + view.direction) % players
    threat = view.card_counts[next_seat] <= 2
    partner = view.partner

    color_after = move.color if move.color is not None else COLOR_OF[card]
    score = 2.0 * sum(1 for c in rest if COLOR_OF[c] == color_after)
    score += POINTS_OF[card] / 10
    if kind == WILD or (kind == WILD_CUSTOMIZABLE and view.wild_customizable == "wild"):
        score -= 12
    elif kind == WILD_SHUFFLE_HANDS:
        score += 30 if _holds_more_than_average(view) else -30
    elif kind == WILD_CUSTOMIZABLE:
        score += _custom_effect_worth(view, move, rest, threat)
    elif kind == WILD_DRAW_FOUR:
        holds_color = any(COLOR_OF[c] == view.color for c in rest)
        score -= 25 if holds_color else 9
    if threat:
        score += {
            DRAW_TWO: 15,
            SKIP: 12,
            REVERSE: 8 if players > 2 else 12,
            WILD_DRAW_FOUR: 25,
        }.get(kind, 0)
    if partner is not None and view.card_counts[partner] <= 2 and kind in (SKIP, DRAW_TWO):
        # Skipping the opponent between lands the turn on the partner about to go out.
        score += 14
    if partner is not None and IS_WILD[card] and view.partner_hand and len(view.partner_hand) <= 3:
        # A colour the partner about to go out can follow with, when their hand is shown.
        score += 3 * sum(1 for c in view.partner_hand if COLOR_OF[c] == color_after)
    if view.rules.seven_o and NUMBER_OF[card] == 7 and move.target is not None:
        if move.target == partner:
            return score - 100  # the team's cards stay where they are
        score += 3 * (len(rest) - view.card_counts[move.target])
    elif view.rules.seven_o and NUMBER_OF[card] == 0:
        giver = (view.seat - view.direction) % players
        score += 2 * (len(rest) - view.card_counts[giver])
    return score


def _holds_more_than_average(view: PlayerView) -> bool:
    """Whether a Wild Shuffle Hands would leave this seat (its team, in partners) with
    fewer cards: it holds more than its share of every card in hand."""
    counts = view.card_counts
    partner = view.partner
    if partner is None:
        return counts[view.seat] - 1 > (sum(counts) - 1) / view.players
    team = counts[view.seat] + counts[partner] - 1
    return team > sum(counts) - 1 - team


def _custom_effect_worth(view: PlayerView, move: Move, rest: list[int], threat: bool) -> float:
    """What a Wild Customizable's effect is worth, on top of its colour and points."""
    effect = view.wild_customizable
    partner = view.partner
    if effect == "everyone_draws_one":
        return 4.0 + (10 if threat else 0) - (4 if partner is not None else 0)
    if effect == "swap_hands" and move.target is not None:
        if move.target == partner:
            return -100  # the team's cards stay where they are
        return 3.0 * (len(rest) - view.card_counts[move.target])
    if effect == "discard_color":
        return 3.0 * sum(1 for c in rest if COLOR_OF[c] == move.color)
    if effect == "skip_everyone":
        return 8.0 + (6 if threat else 0)
    return 0.0


def _playable_choices(view: PlayerView, plays: list[Move]) -> list[Move]:
    """One colour per wild (the best one for the hand left; with a partner's hand in
    sight, every colour, for `_score_play` to weigh), every other play."""
    chosen: list[Move] = []
    for move in plays:
        card = move.card
        assert card is not None
        if IS_WILD[card] and not view.partner_hand:
            rest = [c for c in view.hand if c != card]
            if move.color != best_color(rest):
                continue
        chosen.append(move)
    return chosen or plays


def best_play(view: PlayerView, plays: list[Move], rng: random.Random) -> Move:
    candidates = _playable_choices(view, plays)
    scored = [(_score_play(view, m), rng.random(), m) for m in candidates]
    return with_uno(view, max(scored, key=lambda item: (item[0], item[1]))[2])


def choose(view: PlayerView, rng: random.Random) -> Move | None:
    legal = list(view.legal_moves)
    if not legal:
        return None
    for move in legal:
        if move.action == "call_uno":
            return move
        if move.action == "catch_uno" and move.target != view.partner:  # never the team's
            return move
    plays = [m for m in legal if m.action == "play"]
    if to_act(view) != view.seat:
        return best_play(view, plays, rng) if plays else None  # a jump-in
    pending = view.pending
    if pending is not None and pending.type == "challenge":
        if plays:  # stacking: pass the sum on
            return best_play(view, plays, rng)
        return CHALLENGE if guilt_probability(view) > CHALLENGE_THRESHOLD else ACCEPT
    if pending is not None and pending.type == "choose_color":
        color = best_color(view.hand)
        return next(m for m in legal if m.color == color)
    if plays:
        return best_play(view, plays, rng)
    return legal[0]  # draw, or pass
