"""Who held each seat of a game as of an event of its log, read from the log itself
(joins, bots added, leaves, bots taking seats over, resumes), so that a past event is
named after whoever held the seat then, not whoever holds it now.

An entry has the shape of `Game.seating`'s: `{"player": {"id", "name"} | None, "bot":
str | None}`. A seat the log says nothing of (a game written without its events)
reads as it does now.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from games.models import Event, Game, SeatingEntry

Entry = SeatingEntry
# The events that change who sits where, and the start, after which a player who
# leaves keeps their seat (a bot plays it for them) instead of freeing it.
SEAT_EVENTS = (
    "player_joined",
    "bot_added",
    "player_left",
    "seat_taken_by_bot",
    "seat_resumed",
    "game_started",
)
# Named after who held the seat just before: the one who leaves it or loses it.
NAMED_BEFORE = ("player_left", "seat_taken_by_bot")


def seatings_at(
    game: Game, seqs: Collection[int], *, after: bool = False
) -> dict[int, list[Entry]]:
    """For each seq of `seqs`, the seating its event is named by: who held each seat
    right after it, or right before it for a seat left or taken over (unless `after`:
    the table as the event left it). One query."""
    wanted = sorted(set(seqs))
    if not wanted:
        return {}
    changes = list(
        Event.objects.filter(game=game, type__in=SEAT_EVENTS, seq__lte=wanted[-1])
        .order_by("seq")
        .values_list("seq", "type", "seat", "data")
    )
    table = _Table()
    shown: dict[int, list[Entry]] = {}
    at = 0
    for seq in wanted:
        while at < len(changes) and changes[at][0] < seq:
            table.apply(*changes[at][1:])
            at += 1
        change = changes[at] if at < len(changes) and changes[at][0] == seq else None
        if change is not None and change[1] in NAMED_BEFORE and not after:
            shown[seq] = table.as_now(game.seating)
        if change is not None:
            table.apply(*change[1:])
            at += 1
        shown.setdefault(seq, table.as_now(game.seating))
    return shown


class _Table:
    def __init__(self) -> None:
        self.seats: list[Entry | None] = []
        self.started = False

    def apply(self, kind: str, seat: int | None, data: dict[str, Any]) -> None:
        if kind == "game_started":
            self.started = True
        elif seat is None:
            return
        elif kind == "player_joined":
            self._put(seat, {"player": data.get("player"), "bot": None})
        elif kind == "bot_added":
            self._put(seat, {"player": None, "bot": data.get("strategy")})
        elif kind == "player_left":
            # Before the start the seat is freed and the later ones move up; after it
            # the player keeps it and `seat_taken_by_bot` says who plays it.
            if not self.started and seat < len(self.seats):
                del self.seats[seat]
        elif kind == "seat_taken_by_bot":
            held = self._at(seat)
            player = None if held is None else held["player"]
            self._put(seat, {"player": player, "bot": data.get("strategy")})
        elif kind == "seat_resumed":
            held = self._at(seat)
            player = data.get("player") or (None if held is None else held["player"])
            self._put(seat, {"player": player, "bot": None})

    def _at(self, seat: int) -> Entry | None:
        return self.seats[seat] if seat < len(self.seats) else None

    def _put(self, seat: int, entry: Entry) -> None:
        self.seats.extend([None] * (seat + 1 - len(self.seats)))
        self.seats[seat] = entry

    def as_now(self, now: Sequence[Entry]) -> list[Entry]:
        """The seating so far; a seat the log has not filled, as it is `now`."""
        seating: list[Entry] = []
        for number in range(max(len(self.seats), len(now))):
            entry = self._at(number)
            if entry is None:
                entry = now[number] if number < len(now) else {"player": None, "bot": None}
            seating.append({"player": entry["player"], "bot": entry["bot"]})
        return seating
