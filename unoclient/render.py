"""What the terminal shows: cards in colour (ANSI), events and moves in words."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

RESET = "\x1b[0m"
STYLES = {
    "red": "\x1b[1;97;41m",
    "yellow": "\x1b[1;30;43m",
    "green": "\x1b[1;97;42m",
    "blue": "\x1b[1;97;44m",
    None: "\x1b[1;97;40m",  # wilds
}
# Past tense throughout: it reads the same after "You" and after a name.
REASONS = {
    "draw": "",
    "draw_two": " (Draw Two)",
    "wild_draw_four": " (Wild Draw Four)",
    "challenge": " (the challenge)",
    "uno_penalty": " (UNO penalty)",
    "stack": " (the stack)",
    "first_card": " (first card)",
    "wild_customizable": " (Wild Customizable)",
}
# What the Wild Customizable does at a 112-card table, as the table line says it.
CUSTOMIZABLE = {
    "wild": "a plain Wild",
    "everyone_draws_one": "everyone else draws one",
    "swap_hands": "swap hands with a seat you name",
    "discard_color": "discard every card of the colour you name",
    "skip_everyone": "skip everyone, play again",
}


class Painter:
    def __init__(self, color: bool = True) -> None:
        self.color = color

    def card(self, card: dict[str, Any]) -> str:
        code = f" {card['code']} "
        if not self.color:
            return f"[{card['code']}]"
        return f"{STYLES.get(card.get('color'), STYLES[None])}{code}{RESET}"

    def cards(self, cards: list[dict[str, Any]]) -> str:
        return " ".join(self.card(c) for c in cards) or "(none)"

    def color_name(self, name: str | None) -> str:
        if not name:
            return "-"
        return f"{STYLES[name]} {name} {RESET}" if self.color else name


def seat_name(seats: list[dict[str, Any]], seat: int | None, me: int | None) -> str:
    if seat is None:
        return "the table"
    if seat == me:
        return "You"
    entry = seats[seat] if seat < len(seats) else {}
    if entry.get("bot"):
        return f"Bot {seat} ({entry['bot']})"
    player = entry.get("player") or {}
    return str(player.get("name") or f"Seat {seat}")


def describe_event(
    event: dict[str, Any], seats: list[dict[str, Any]], me: int | None, paint: Painter
) -> str | None:
    """One line for an event, or None for those not worth a line."""
    kind, data = event["type"], event["data"]
    who = seat_name(seats, event["seat"], me)
    if kind == "card_played":
        line = f"{who} played {paint.card(data['card'])}"
        if data["card"].get("color") is None:
            line += f", colour {paint.color_name(data['color'])}"
        if "target" in data:
            line += f", swapping hands with {seat_name(seats, data['target'], me)}"
        # UNO said with the play is told by the `uno_called` that always follows it.
        return line
    if kind == "cards_drawn":
        shown = f": {paint.cards(data['cards'])}" if "cards" in data else ""
        count = data["count"]
        reason = REASONS.get(data["reason"], "")
        return f"{who} drew {count} card{'s' * (count != 1)}{reason}{shown}"
    simple = {
        "turn_passed": f"{who} passed",
        "uno_called": f"{who} said UNO!",
        "player_skipped": f"{who} lost a turn",
        "game_started": "The game starts",
        "player_left": f"{who} left",
        "seats_arranged": "The host arranged the seats",
        "game_resumed": "The game goes on",
    }
    if kind in simple:
        return simple[kind]
    if kind == "turn_timed_out":
        whose = "Your" if event["seat"] == me else f"{who}'s"
        return f"{whose} turn timed out ({data.get('timeouts', 1)} in a row)"
    if kind == "seat_taken_by_bot":
        if event["seat"] == me:
            return (
                f"Your seat was handed to a {data.get('strategy')} bot;"
                " type r and Enter to take it back"
            )
        return f"A bot ({data.get('strategy')}) takes seat {event['seat']}"
    if kind == "seat_resumed":
        if event["seat"] == me:
            return "You took your seat back"
        name = (data.get("player") or {}).get("name") or who
        return f"{name} took seat {event['seat']} back"
    if kind == "game_paused":
        return f"The game is paused until {clock_time(data.get('until'))}: nobody is at the table"
    if kind == "direction_changed":
        return f"Play now goes {data['direction']}"
    if kind == "color_chosen":
        return f"{who} chose {paint.color_name(data['color'])}"
    if kind == "uno_caught":
        return f"{seat_name(seats, data['by'], me)} caught {who} without UNO!"
    if kind == "challenged":
        verdict = "guilty" if data["guilty"] else "innocent"
        return f"{seat_name(seats, data['by'], me)} challenged {who}'s Wild Draw Four: {verdict}"
    if kind == "hand_revealed" and "hand" in data:
        return f"{who} showed you: {paint.cards(data['hand'])}"
    if kind == "hands_shuffled":
        counts = ", ".join(f"{seat_name(seats, s, me)} {n}" for s, n in enumerate(data["counts"]))
        mine = f"; your new hand: {paint.cards(data['hand'])}" if "hand" in data else ""
        return f"{who} shuffled every hand and dealt them out ({counts}){mine}"
    if kind == "cards_discarded":
        return f"{who} discarded {paint.cards(data['cards'])}"
    if kind == "hands_swapped":
        if "with" in data:
            return f"{who} swapped hands with {seat_name(seats, data['with'], me)}"
        return f"Every hand moves {data['rotation']}"
    if kind == "round_started":
        return f"Round {event['round']} starts: {paint.card(data['top_card'])} on the pile"
    if kind == "round_ended":
        scores = ", ".join(f"{seat_name(seats, s, me)} {p}" for s, p in enumerate(data["scores"]))
        return f"{who} won round {event['round']} (+{data['points']} points). Scores: {scores}"
    if kind == "game_ended":
        return f"{who} won the game!" if event["seat"] != me else "You won the game!"
    if kind == "game_rated":
        return rating_line(data, seats, me)
    if kind == "game_abandoned":
        return f"The game was abandoned ({data.get('reason', '')})"
    return None


def rating_line(data: dict[str, Any], seats: list[dict[str, Any]], me: int | None) -> str:
    """The ratings a rated game moved: the reader's own first, each as the one
    number the web client shows (100 x the ordinal the leaderboard ranks by, mu - 3
    sigma, rounded) and its change."""
    entries = sorted(data.get("ratings") or [], key=lambda r: (r["seat"] != me, r["seat"]))
    parts = []
    for entry in entries:
        ordinal, change = entry["rating"]["ordinal"], entry["change"]["ordinal"]
        name = "your rating" if entry["seat"] == me else seat_name(seats, entry["seat"], me)
        parts.append(f"{name} {round(ordinal * 100)} ({round(change * 100):+d})")
    text = "; ".join(parts)
    return "Rated: " + text[0].upper() + text[1:] if me is not None else "Rated: " + text


def describe_move(
    move: dict[str, Any],
    hand: list[dict[str, Any]],
    seats: list[dict[str, Any]],
    me: int | None,
    paint: Painter,
) -> str:
    action = move["action"]
    if action == "play":
        card = next(
            (c for c in hand if c["id"] == move["card"]), {"code": str(move["card"]), "color": None}
        )
        text = f"play {paint.card(card)}"
        if "color" in move:
            text += f" as {paint.color_name(move['color'])}"
        if "target" in move:
            text += f" and swap with {seat_name(seats, move['target'], me)}"
        return text
    names = {
        "draw": "draw a card",
        "pass": "keep the card and pass",
        "call_uno": "say UNO!",
        "accept": "accept the Wild Draw Four",
        "challenge": "challenge the Wild Draw Four",
    }
    if action in names:
        return names[action]
    if action == "choose_color":
        return f"choose {paint.color_name(move['color'])}"
    if action == "catch_uno":
        return f"catch {seat_name(seats, move['target'], me)} without UNO"
    return action


def clock_time(moment: str | None) -> str:
    """An ISO-8601 moment as the local time of day (HH:MM:SS)."""
    if not moment:
        return "further notice"
    try:
        when = dt.datetime.fromisoformat(moment)
    except ValueError:
        return moment
    return when.astimezone().strftime("%H:%M:%S")


def seconds_until(moment: str | None, now: dt.datetime | None = None) -> int | None:
    """Whole seconds from `now` to an ISO-8601 moment (None: no moment)."""
    if not moment:
        return None
    try:
        when = dt.datetime.fromisoformat(moment)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    now = now or dt.datetime.now(dt.UTC)
    return max(math.ceil((when - now).total_seconds()), 0)


# Why a game between people moved no rating (the view's `unrated_reason`); games
# that never could (bots only, created unrated, abandoned) say nothing.
UNRATED_REASONS = {
    "same_network": "you and another player joined from one network",
    "repeat_opponents": "the same people have played rated games often lately",
    "annulled": "its ratings were annulled",
}


def unrated_line(view: dict[str, Any]) -> str | None:
    """What the end of a game says when it moved no rating for a reason a player can
    act on, or None."""
    reason = UNRATED_REASONS.get(view.get("unrated_reason") or "")
    return f"Not rated: {reason}." if reason and view.get("rated") is False else None


def final_scores(seats: list[dict[str, Any]], me: int | None) -> str:
    return ", ".join(f"{seat_name(seats, s['seat'], me)} {s['score']}" for s in seats)
