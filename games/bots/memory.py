"""What the table has shown about each hand: card counting beyond the discard pile.

A seat that draws on its turn holds nothing that fits (players draw when they must:
every bot here does, and most people): no card of the colour in play, none of the
face on top, no wild. That stays true of the cards it then keeps until it is given
cards it did not choose (a penalty) or draws again. A Wild Draw Four found innocent
shows its player held none of the colour before it; a challenge shows the accused's
whole hand to the challenger.

`read` folds one seat's view of the round's events into a `Knowledge` per seat,
which the expert deals its sampled worlds from.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from games.engine.cards import COLOR_BY_NAME, COLOR_OF, FACE_OF, IS_WILD
from games.engine.events import Event
from games.engine.views import PlayerView

WILD_BIT: Final = 1 << 4


@dataclass(slots=True)
class Knowledge:
    """What one seat's hand is known to hold or lack.

    `known` are cards seen in it (a hand shown in a challenge) and not played since;
    of the rest, all but `fresh` (cards received since, which may be anything) hold
    no card of the colours in `colors` (bit 4: wilds) nor of the faces in `faces`.
    """

    colors: int = 0
    faces: int = 0
    fresh: int = 0
    known: list[int] = field(default_factory=list)

    def excludes(self, card: int) -> bool:
        color = COLOR_OF[card]
        if IS_WILD[card]:
            if self.colors & WILD_BIT:
                return True
        elif self.colors >> color & 1:
            return True
        return bool(self.faces >> FACE_OF[card] & 1)

    @property
    def constrained(self) -> bool:
        return bool(self.colors or self.faces)


def _color_bit(name: object) -> int:
    color = COLOR_BY_NAME.get(name) if isinstance(name, str) else None
    return 0 if color is None else 1 << color


def read(
    history: Iterable[Event], viewer: int, players: int, *, draw_until_playable: bool = False
) -> list[Knowledge]:
    """Each seat's `Knowledge` after `history`, the events of the current round as
    `viewer` saw them (its own entry stays empty: it sees its hand)."""
    seats = [Knowledge() for _ in range(players)]
    color_bit = 0
    face = -1
    previous_color_bit = 0
    just_drew = -1  # the seat whose next play may be the card it just drew
    for event in history:
        kind = event.type
        seat = event.seat
        data = event.data
        if kind == "round_started":
            seats = [Knowledge() for _ in range(players)]
            color_bit = _color_bit(data.get("current_color"))
            face = FACE_OF[data["top_card"]]
            just_drew = -1
            continue
        if seat is None or not 0 <= seat < players:
            continue
        memory = seats[seat]
        if kind == "card_played":
            card = data["card"]
            previous_color_bit = color_bit
            color_bit = _color_bit(data.get("color"))
            face = FACE_OF[card]
            if seat != viewer:
                if card in memory.known:
                    memory.known.remove(card)
                elif seat == just_drew:
                    memory.fresh = max(memory.fresh - (1 if draw_until_playable else 0), 0)
                elif memory.excludes(card):
                    if memory.fresh > 0:
                        memory.fresh -= 1
                    else:  # it drew while holding a card that fitted: forget the rule
                        memory.colors = memory.faces = 0
            just_drew = -1
        elif kind == "color_chosen":
            color_bit = _color_bit(data.get("color"))
        elif kind == "cards_drawn":
            count = int(data.get("count", 0))
            if data.get("reason") == "draw":
                # Nothing fitted, and a drawn card kept does not fit either (only the
                # last one drawn until playable may).
                memory.colors = color_bit | WILD_BIT
                memory.faces = 1 << face if face >= 0 else 0
                memory.fresh = 1 if draw_until_playable and count else 0
                just_drew = seat
                continue
            memory.fresh += count
        elif kind == "challenged":
            accused = seats[seat]
            if data.get("guilty") is False and previous_color_bit:
                # Innocent: the hand it played from held none of the colour before.
                if accused.fresh == 0:
                    accused.colors |= previous_color_bit
                else:
                    accused.colors, accused.faces, accused.fresh = previous_color_bit, 0, 0
        elif kind == "hand_revealed":
            if data.get("to") == viewer and "hand" in data:
                seats[seat] = Knowledge(known=list(data["hand"]))
        elif kind == "hands_swapped":
            if "with" in data:
                other = data["with"]
                seats[seat], seats[other] = seats[other], seats[seat]
                # The viewer's own old hand is not tracked here: forget it.
                for swapped in (seat, other):
                    if swapped != viewer and viewer in (seat, other):
                        seats[swapped] = Knowledge()
            else:
                step = 1 if data.get("rotation") == "clockwise" else -1
                seats = [seats[(s - step) % players] for s in range(players)]
                seats[(viewer + step) % players] = Knowledge()
            seats[viewer] = Knowledge()
        if seat != just_drew:
            just_drew = -1
    if 0 <= viewer < players:
        seats[viewer] = Knowledge()
    return seats


def of_view(view: PlayerView) -> list[Knowledge]:
    """`read` for the seat and round `view` shows."""
    return read(
        view.history,
        view.seat,
        view.players,
        draw_until_playable=view.rules.draw_until_playable,
    )
