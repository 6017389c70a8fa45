"""How the staff pages say things: cards in their colours, seats by their names, the
house rules and spans of time as words, and a line per event of a game's log."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from django.utils.html import format_html, format_html_join

from games.engine.cards import CODE_OF, COLOR_BY_NAME, COLOR_NAMES, COLOR_OF
from games.engine.vocabulary import Means, data_keys, is_event_type, means
from games.models import Event, SeatingEntry

COLOR_CLASSES: dict[str, str] = {color: f"uno-{color}" for color in COLOR_NAMES}


def card_html(card: int) -> str:
    """One card, drawn in its colour (wilds in black)."""
    color = COLOR_OF[card]
    css = COLOR_CLASSES[COLOR_NAMES[color]] if color >= 0 else "uno-wild"
    return format_html(
        '<span class="uno-card {}" title="card {}">{}</span>', css, card, CODE_OF[card]
    )


def cards_html(cards: list[int]) -> str:
    return format_html_join("", "{}", ((card_html(c),) for c in cards)) or "—"


def seat_name(entry: SeatingEntry | None) -> str:
    """A seat of `Game.seating` as people name it: the player's name, "bot (expert)",
    or "bot (greedy) for alice" when a bot holds a timed-out player's seat."""
    if not entry:
        return "—"
    name = entry["player"]["name"] if entry["player"] else None
    if entry["bot"] is not None:
        bot = f"bot ({entry['bot']})"
        return f"{bot} for {name}" if name else bot
    return name or "—"


def seat_label(seating: Sequence[SeatingEntry], number: object) -> str:
    """A seat number with its name: "seat 1 (bot (expert))"."""
    entry = seat_at(seating, number)
    return f"seat {number}" if entry is None else f"seat {number} ({seat_name(entry)})"


# Every house rule of `Rules`, as the rules (docs/rules.md) call it.
RULE_NAMES: dict[str, str] = {
    "stacking": "Stacking of Draw Twos and Wild Draw Fours",
    "seven_o": "Seven-O (a 7 swaps hands, a 0 passes them on)",
    "jump_in": "Jump-in",
    "draw_until_playable": "Draw until playable",
    "force_play": "Force play (a playable drawn card must be played)",
}
OFFICIAL_RULES = "Official rules"


def rules_in_words(rules: dict[str, Any] | None) -> str:
    """The house rules that are on, as words, in the order the rules give them (the
    stored JSON's key order is the database's: PostgreSQL sorts a jsonb's keys);
    "Official rules" with none."""
    rules = rules or {}
    known = [RULE_NAMES[name] for name in RULE_NAMES if rules.get(name)]
    unknown = [name for name, value in rules.items() if value and name not in RULE_NAMES]
    on = known + unknown
    return ", ".join(on) if on else OFFICIAL_RULES


def abandoned_in_words(data: dict[str, Any]) -> str:
    """A `game_abandoned` event's data as operators read it."""
    by = data.get("by")
    reason = data.get("reason", "")
    return f"abandoned by {by}: {reason}" if by else f"abandoned: {reason}"


def _plain_html(value: Any, seating: Sequence[SeatingEntry]) -> str:
    """Any other value of `data`, without the braces of a stored dict."""
    if isinstance(value, dict):
        if "name" in value:  # a player reference
            return format_html("{}", value["name"])
        return format_html_join(
            " ", "{}={}", ((k, _plain_html(v, seating)) for k, v in value.items())
        )
    if isinstance(value, list):
        return format_html_join(", ", "{}", ((_plain_html(v, seating),) for v in value))
    return format_html("{}", value)


def _ratings_html(value: list[Any], seating: Sequence[SeatingEntry]) -> str:
    def one(entry: dict[str, Any]) -> tuple[str, str, str]:
        rating = entry.get("rating", {}).get("ordinal", 0.0)
        change = entry.get("change", {}).get("ordinal", 0.0)
        return seat_name(seat_at(seating, entry.get("seat"))), f"{rating:.2f}", f"{change:+.2f}"

    return format_html_join(", ", "{} {} ({})", (one(e) for e in value if isinstance(e, dict)))


def seat_at(seating: Sequence[SeatingEntry], number: object) -> SeatingEntry | None:
    return seating[number] if isinstance(number, int) and 0 <= number < len(seating) else None


def describe_event(event: Event, seating: Sequence[SeatingEntry] = ()) -> str:
    """A readable line for the log and the viewer: cards in their colours, seats by
    their names (from the game's `seating`), players by name, no stored dicts."""
    data = event.data
    seat_keys = (
        {key.name for key in data_keys(event.type) if means(key.type) is Means.SEAT}
        if is_event_type(event.type)
        else set()
    )
    parts: list[str] = []
    if event.type == "game_abandoned":
        parts.append(format_html("{}", abandoned_in_words(data)))
        data = {}
    for key, value in data.items():
        if key in ("card", "top_card") and isinstance(value, int):
            parts.append(format_html("{}: {}", key, card_html(value)))
        elif key in ("cards", "hand") and isinstance(value, list):
            parts.append(format_html("{}: {}", key, cards_html(value)))
        elif key == "hands" and isinstance(value, list):
            hands = format_html_join(
                " ",
                "{}: {}",
                ((seat_name(seat_at(seating, s)), cards_html(h)) for s, h in enumerate(value)),
            )
            parts.append(format_html("hands {}", hands))
        elif key == "scores" and isinstance(value, list):
            scores = format_html_join(
                ", ", "{} {}", ((seat_name(seat_at(seating, s)), n) for s, n in enumerate(value))
            )
            parts.append(format_html("scores: {}", scores))
        elif key == "ratings" and isinstance(value, list):
            parts.append(format_html("ratings: {}", _ratings_html(value, seating)))
        elif key in seat_keys:
            parts.append(format_html("{}: {}", key, seat_label(seating, value)))
        elif key == "color" and isinstance(value, str) and value in COLOR_BY_NAME:
            parts.append(
                format_html(
                    'color: <span class="uno-dot {}">{}</span>', COLOR_CLASSES[value], value
                )
            )
        else:
            parts.append(format_html("{}: {}", key, _plain_html(value, seating)))
    who = "" if event.seat is None else f"{seat_label(seating, event.seat)} "
    body = format_html_join(", ", "{}", ((p,) for p in parts))
    return format_html("<strong>{}</strong> {}{}", event.type, who, body)


def duration_in_words(span: dt.timedelta) -> str:
    """A span as an operator reads it at a glance: "45 s", "12 min", "3 h 05 min",
    "2 d 4 h"."""
    seconds = max(int(span.total_seconds()), 0)
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    hours = minutes // 60
    if hours < 24:
        return f"{hours} h {minutes % 60:02d} min"
    return f"{hours // 24} d {hours % 24} h"
