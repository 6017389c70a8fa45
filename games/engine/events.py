"""Events: what a move caused, in the types and data of the API's event log.

Inside the engine (and in storage) cards in `data` are plain ids; `render` turns an
event into its API shape for one viewer, leaving out what that viewer may not see.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .cards import card_json

EventData = dict[str, Any]

# Data keys that hold one card id, a list of ids, or a list of lists (by seat).
_CARD_KEYS: Final = frozenset(("card", "top_card"))
_CARD_LIST_KEYS: Final = frozenset(("cards", "hand"))
_HANDS_KEY: Final = "hands"


@dataclass(slots=True)
class Event:
    type: str
    seat: int | None
    data: EventData
    round: int

    def to_json(self) -> dict[str, Any]:
        """The stored form: ids, not card objects, and nothing hidden."""
        return {
            "type": self.type,
            "seat": self.seat,
            "data": self.data,
            "round": self.round,
        }

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Event:
        return Event(obj["type"], obj["seat"], obj["data"], obj["round"])


def visible_data(
    event_type: str, seat: int | None, data: EventData, viewer: int | None
) -> EventData:
    """`data` as `viewer` may see it while the game runs (`viewer` None: a spectator).

    Others' drawn cards, others' hands and a hand revealed to someone else are left
    out; the counts stay.
    """
    if event_type == "cards_drawn":
        if viewer != seat and "cards" in data:
            return {k: v for k, v in data.items() if k != "cards"}
    elif event_type == "round_started":
        if _HANDS_KEY in data:
            shown = {k: v for k, v in data.items() if k != _HANDS_KEY}
            if viewer is not None:
                shown["hand"] = data[_HANDS_KEY][viewer]
            return shown
    elif event_type == "hand_revealed" and viewer != data.get("to") and "hand" in data:
        return {k: v for k, v in data.items() if k != "hand"}
    return data


def render_data(data: EventData) -> dict[str, Any]:
    """Replace card ids by card objects (and seat-indexed hands by a seat-keyed map)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in _CARD_KEYS and value is not None:
            out[key] = card_json(value)
        elif key in _CARD_LIST_KEYS:
            out[key] = [card_json(c) for c in value]
        elif key == _HANDS_KEY:
            out[key] = {str(seat): [card_json(c) for c in hand] for seat, hand in enumerate(value)}
        else:
            out[key] = value
    return out


def render(event: Event, viewer: int | None = None, *, complete: bool = False) -> dict[str, Any]:
    """The API shape of an event (without `seq` and `at`, which storage adds)."""
    data = event.data if complete else visible_data(event.type, event.seat, event.data, viewer)
    return {
        "round": event.round,
        "type": event.type,
        "seat": event.seat,
        "data": render_data(data),
    }
