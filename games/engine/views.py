"""What a seat may know (`seat_view`) and the whole table (`table_view`), as JSON."""

from __future__ import annotations

from typing import Any

from .cards import COLOR_NAMES, NO_COLOR, card_json
from .rules import DIRECTION_NAMES, legal_moves
from .state import GameState


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
    if viewer is not None:
        view["you"] = {
            "seat": viewer,
            "hand": [card_json(c) for c in state.hands[viewer]],
            "legal_moves": [move.to_json() for move in legal_moves(state, viewer)],
        }
    return view


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
