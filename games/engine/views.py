"""What a seat may know (`seat_view`) and the whole table (`table_view`), as JSON."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .cards import COLOR_NAMES, DECK_SIZES, NO_COLOR, Deck, card_json
from .events import Event, visible_data
from .moves import Move
from .rules import DIRECTION_NAMES, legal_moves
from .state import CustomEffect, GameState, Mode, PendingType, Rules, ShuffleHandsLastCard


def pending_view(
    state: GameState, viewer: int | None, *, complete: bool = False
) -> dict[str, Any] | None:
    pending = state.pending
    if pending is None:
        return None
    shown: dict[str, Any] = {"type": pending.type, "seat": pending.seat}
    if pending.type in ("challenge", "stack"):
        shown["amount"] = pending.amount
    if pending.type == "challenge":
        shown["accused"] = pending.accused
    if pending.type == "drawn_card" and (complete or viewer == pending.seat):
        shown["card"] = card_json(pending.card)
    return shown


def _round_fields(state: GameState) -> dict[str, Any]:
    return {
        "round": state.round,
        "dealer": state.dealer,
        "current_seat": state.current if state.winner < 0 else None,
        "direction": DIRECTION_NAMES[state.direction],
        "current_color": COLOR_NAMES[state.color] if state.color != NO_COLOR else None,
        "top_card": card_json(state.discard[-1]) if state.discard else None,
    }


def seat_view(state: GameState, viewer: int | None) -> dict[str, Any]:
    """The table as `viewer` sees it: counts for every hand, cards only for its own.

    `viewer` None is a spectator. `you.legal_moves` are API move bodies.
    """
    view = _round_fields(state)
    view.update(
        {
            "draw_pile_count": len(state.draw_pile),
            "discard_pile_count": len(state.discard),
            "pending": pending_view(state, viewer),
            "winner": state.winner if state.winner >= 0 else None,
            "seats": [
                {
                    "seat": seat,
                    "card_count": len(hand),
                    "score": state.scores[seat],
                    "said_uno": state.said_uno[seat],
                    "timeouts": state.timeouts[seat],
                }
                for seat, hand in enumerate(state.hands)
            ],
            "you": None,
        }
    )
    if state.config.partners:
        for seat in view["seats"]:
            seat["team"] = seat["seat"] % 2
    if viewer is not None:
        view["you"] = {
            "seat": viewer,
            "hand": [card_json(c) for c in state.hands[viewer]],
            "legal_moves": [move.to_json() for move in legal_moves(state, viewer)],
        }
        partner = _visible_partner(state, viewer)
        if partner is not None:
            view["you"]["partner_hand"] = [card_json(c) for c in state.hands[partner]]
    return view


def _visible_partner(state: GameState, seat: int) -> int | None:
    """The partner whose hand `seat` sees: in partners with `partners_see_hands` only."""
    return state.config.partner_of(seat) if state.config.partners_see_hands else None


def table_view(state: GameState) -> dict[str, Any]:
    """Every card where it lies: the replay view. The draw pile lists the next card first."""
    view = _round_fields(state)
    view.update(
        {
            "hands": {
                str(seat): [card_json(c) for c in hand] for seat, hand in enumerate(state.hands)
            },
            "draw_pile": [card_json(c) for c in reversed(state.draw_pile)],
            "discard_pile": [card_json(c) for c in state.discard],
            "pending": pending_view(state, None, complete=True),
            "scores": list(state.scores),
        }
    )
    return view


@dataclass(frozen=True, slots=True)
class PendingView:
    """A pending decision as every seat may know it (a Wild Draw Four's guilt is not
    public; the drawn card is shown only to the seat that drew it)."""

    type: PendingType
    seat: int
    amount: int
    accused: int
    previous_color: int
    card: int  # -1 unless the viewer drew it


@dataclass(frozen=True, slots=True)
class PlayerView:
    """Everything one seat may know: what a bot decides from. Other hands are only
    counts, so a bot cannot peek by construction."""

    seat: int
    players: int
    rules: Rules
    target_score: int
    round: int
    hand: tuple[int, ...]
    legal_moves: tuple[Move, ...]
    top_card: int
    color: int
    direction: int
    current: int
    dealer: int
    pending: PendingView | None
    card_counts: tuple[int, ...]
    said_uno: tuple[bool, ...]
    uno_owed: int
    scores: tuple[int, ...]
    discard: tuple[int, ...]  # public: every card on the discard pile, top last
    draw_pile_count: int
    # The current round's events so far, as this seat saw them (others' draws
    # without their cards): what card counting beyond the discard pile reads.
    history: tuple[Event, ...] = ()
    # Each seat's bot strategy, None for a person (empty: not known). Public: the
    # game view shows every seat's `bot`, so a player knows who plays at random.
    bots: tuple[str | None, ...] = ()
    mode: Mode = "classic"
    # In partners with `partners_see_hands`: the partner's hand; empty otherwise.
    partner_hand: tuple[int, ...] = ()
    # The deck, and what its modern cards do.
    deck: Deck = "classic_108"
    shuffle_hands_last_card: ShuffleHandsLastCard = "redeal"
    wild_customizable: CustomEffect = "wild"

    @property
    def partner(self) -> int | None:
        """The seat across the table in partners; None in a classic game."""
        return (self.seat + 2) % 4 if self.mode == "partners" else None

    def unseen(self) -> list[int]:
        """Cards this seat cannot see: the other hands and the draw pile."""
        visible = set(self.hand)
        visible.update(self.discard)
        visible.update(self.partner_hand)
        return [c for c in range(DECK_SIZES[self.deck]) if c not in visible]


def player_view(
    state: GameState,
    seat: int,
    history: Iterable[Event] = (),
    *,
    bots: Iterable[str | None] = (),
) -> PlayerView:
    """`seat`'s view; `history` is the game's events (or any tail of them holding the
    current round), redacted here for `seat`; `bots` each seat's bot strategy (None
    for a person), as the game view shows them."""
    pending = state.pending
    partner = _visible_partner(state, seat)
    pending_view = None
    if pending is not None:
        pending_view = PendingView(
            type=pending.type,
            seat=pending.seat,
            amount=pending.amount,
            accused=pending.accused,
            previous_color=pending.previous_color,
            card=pending.card if pending.seat == seat else -1,
        )
    return PlayerView(
        seat=seat,
        players=state.players,
        rules=state.config.rules,
        target_score=state.config.target_score,
        round=state.round,
        hand=tuple(state.hands[seat]),
        legal_moves=tuple(legal_moves(state, seat)),
        top_card=state.discard[-1],
        color=state.color,
        direction=state.direction,
        current=state.current,
        dealer=state.dealer,
        pending=pending_view,
        card_counts=tuple(len(hand) for hand in state.hands),
        said_uno=tuple(state.said_uno),
        uno_owed=state.uno_owed,
        scores=tuple(state.scores),
        discard=tuple(state.discard),
        draw_pile_count=len(state.draw_pile),
        history=_seen_history(history, state.round, seat),
        bots=tuple(bots),
        mode=state.config.mode,
        partner_hand=tuple(state.hands[partner]) if partner is not None else (),
        deck=state.config.deck,
        shuffle_hands_last_card=state.config.shuffle_hands_last_card,
        wild_customizable=state.config.wild_customizable,
    )


def _seen_history(history: Iterable[Event], round_number: int, seat: int) -> tuple[Event, ...]:
    seen: list[Event] = []
    for event in history:
        if event.round != round_number:
            continue
        data = visible_data(event.type, event.seat, event.data, seat)
        seen.append(
            event if data is event.data else Event(event.type, event.seat, data, event.round)
        )
    return tuple(seen)
