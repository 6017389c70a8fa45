"""Events: what a move caused, in the types and data of the API's event log.

Inside the engine (and in storage) cards in `data` are plain ids; `render` turns an
event into its API shape for one viewer, leaving out what that viewer may not see.
Both follow the declaration in `vocabulary`: its secrets say what is left out, and
its card keys what becomes a card object.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from .cards import card_json
from .vocabulary import CARD_KEYS, SECRETS, STAFF_ONLY, EventType

EventData = Mapping[str, Any]

_CARD_KEYS: Final = frozenset(k for k, form in CARD_KEYS.items() if form == "card")
_CARD_LIST_KEYS: Final = frozenset(k for k, form in CARD_KEYS.items() if form == "cards")
_HANDS_KEYS: Final = frozenset(k for k, form in CARD_KEYS.items() if form == "hands")


@dataclass(slots=True)
class Event:
    """One event: its type, the seat it is about (None: the whole table), its data
    (the type's TypedDict in `vocabulary`) and its round (None before the first deal)."""

    type: EventType
    seat: int | None
    data: EventData
    round: int | None

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

    Each secret key of the type is left out unless `viewer` is its reader; a seated
    viewer gets its own entry of a per-seat secret instead. The same `data` comes
    back when nothing is hidden.
    """
    secrets = SECRETS.get(event_type)
    if secrets is None:
        return data
    shown: dict[str, Any] | None = None
    for secret in secrets:
        if secret.key not in data:
            continue
        if viewer is not None and viewer == secret.reader_seat(seat, data):
            continue
        if shown is None:
            shown = dict(data)
        value = shown.pop(secret.key)
        if secret.own_entry_as is not None and viewer is not None:
            shown[secret.own_entry_as] = value[viewer]
    return data if shown is None else shown


def players_data(event_type: str, data: EventData) -> EventData:
    """`data` without its keys for staff alone (`EventSpec.staff_only`): what any
    player reads, however complete their log. The same `data` when it has none."""
    hidden = STAFF_ONLY.get(event_type)
    if hidden is None or hidden.isdisjoint(data):
        return data
    return {key: value for key, value in data.items() if key not in hidden}


def render_data(data: EventData) -> dict[str, Any]:
    """Replace card ids by card objects (and seat-indexed hands by a seat-keyed map)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in _CARD_KEYS and value is not None:
            out[key] = card_json(value)
        elif key in _CARD_LIST_KEYS:
            out[key] = [card_json(c) for c in value]
        elif key in _HANDS_KEYS:
            out[key] = {str(seat): [card_json(c) for c in hand] for seat, hand in enumerate(value)}
        else:
            out[key] = value
    return out


def stored_data(data: dict[str, Any]) -> dict[str, Any]:
    """`render_data` undone: card objects back to ids, a seat-keyed map of hands back
    to a list by seat (what a log read from the API is replayed from)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in _CARD_KEYS and isinstance(value, dict):
            out[key] = value.get("id")
        elif key in _CARD_LIST_KEYS and isinstance(value, list):
            out[key] = [c.get("id") if isinstance(c, dict) else c for c in value]
        elif key in _HANDS_KEYS and isinstance(value, dict):
            hands = [value[seat] for seat in sorted(value, key=int)]
            out[key] = [[c.get("id") if isinstance(c, dict) else c for c in h] for h in hands]
        else:
            out[key] = value
    return out


def render(event: Event, viewer: int | None = None, *, complete: bool = False) -> dict[str, Any]:
    """The API shape of an event (without `seq` and `at`, which storage adds), as a
    player reads it: never with its keys for staff alone."""
    data = event.data if complete else visible_data(event.type, event.seat, event.data, viewer)
    data = players_data(event.type, data)
    return {
        "round": event.round,
        "type": event.type,
        "seat": event.seat,
        "data": render_data(data),
    }
