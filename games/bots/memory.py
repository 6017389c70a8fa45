"""What the table has shown about each hand: card counting beyond the discard pile.

A seat that draws on its turn holds nothing that fits (players draw when they must:
every bot here does, and most people): no card of the colour in play, none of the
face on top, no wild. That stays true of the cards it then keeps, and of the card it
drew and kept (it did not fit either); cards it is given without choosing them (a
penalty) may be anything. When it draws again, the cards it held through both draws
lack what fitted either time, all but the newer ones (the penalties since the earlier
draw, the card kept now). A Wild Draw Four found innocent shows its player held
none of the colour before it; a challenge shows the accused's whole hand to the
challenger.

`read` folds one seat's view of the round's events into a `Knowledge` per seat,
which the expert deals its sampled worlds from.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from games.engine.cards import COLOR_BY_NAME, COLOR_OF, DECK_SIZE, FACE_OF, IS_WILD
from games.engine.events import Event
from games.engine.rules import HAND_SIZE
from games.engine.views import PlayerView

WILD_BIT: Final = 1 << 4


@dataclass(slots=True)
class Knowledge:
    """What one seat's hand is known to hold or lack.

    `known` are cards seen in it (a hand shown in a challenge) and not played since;
    of the rest, all but `fresh` (cards received since, which may be anything) hold
    no card of the colours in `colors` (bit 4: wilds) nor of the faces in `faces`;
    and of those, all but `recent` also none of `older_colors` nor `older_faces`
    (what fitted at an earlier draw).
    """

    colors: int = 0
    faces: int = 0
    fresh: int = 0
    known: list[int] = field(default_factory=list)
    older_colors: int = 0
    older_faces: int = 0
    recent: int = 0

    def excludes(self, card: int) -> bool:
        return _excluded(card, self.colors, self.faces)

    def excludes_older(self, card: int) -> bool:
        """Whether the cards held through the earlier draws lack `card`."""
        return _excluded(card, self.colors | self.older_colors, self.faces | self.older_faces)

    @property
    def constrained(self) -> bool:
        return bool(self.colors or self.faces)

    @property
    def layered(self) -> bool:
        return bool(self.older_colors or self.older_faces)

    def forget_older(self) -> None:
        self.older_colors = self.older_faces = self.recent = 0


def _excluded(card: int, colors: int, faces: int) -> bool:
    if IS_WILD[card]:
        if colors & WILD_BIT:
            return True
    elif colors >> COLOR_OF[card] & 1:
        return True
    return bool(faces >> FACE_OF[card] & 1)


def _color_bit(name: object) -> int:
    color = COLOR_BY_NAME.get(name) if isinstance(name, str) else None
    return 0 if color is None else 1 << color


def read(
    history: Iterable[Event], viewer: int, players: int, *, draw_until_playable: bool = False
) -> list[Knowledge]:
    """Each seat's `Knowledge` after `history`, the events of the current round as
    `viewer` saw them (its own entry stays empty: it sees its hand)."""
    seats = [Knowledge() for _ in range(players)]
    # Cards in each hand, counted from the deal (below zero: the deal was not seen,
    # so the older layer is not kept).
    counts = [-DECK_SIZE] * players
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
            counts = [HAND_SIZE] * players
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
                _played(memory, card, counts[seat], seat == just_drew, draw_until_playable)
            counts[seat] -= 1
            just_drew = -1
        elif kind == "color_chosen":
            color_bit = _color_bit(data.get("color"))
        elif kind == "cards_drawn":
            count = int(data.get("count", 0))
            held = counts[seat]
            counts[seat] += count
            if data.get("reason") == "draw":
                # Nothing fitted, and a drawn card kept does not fit either (only the
                # last one drawn until playable may).
                _drew(memory, held, count, color_bit | WILD_BIT, face, draw_until_playable)
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
                    accused.forget_older()
        elif kind == "hand_revealed":
            if data.get("to") == viewer and "hand" in data:
                seats[seat] = Knowledge(known=list(data["hand"]))
        elif kind == "hands_shuffled":
            # Every hand is new: what the table showed of the old ones says nothing.
            seats = [Knowledge() for _ in range(players)]
            counts = list(data["counts"])
        elif kind == "cards_discarded":
            # Every card of one colour left the hand: now it holds none of it.
            shed = data["cards"]
            counts[seat] -= len(shed)
            known = [c for c in memory.known if c not in shed]
            seats[seat] = Knowledge(colors=1 << COLOR_OF[shed[0]], known=known)
        elif kind == "hands_swapped":
            if "with" in data:
                other = data["with"]
                seats[seat], seats[other] = seats[other], seats[seat]
                counts[seat], counts[other] = counts[other], counts[seat]
                # The viewer's own old hand is not tracked here: forget it.
                for swapped in (seat, other):
                    if swapped != viewer and viewer in (seat, other):
                        seats[swapped] = Knowledge()
            else:
                step = 1 if data.get("rotation") == "clockwise" else -1
                seats = [seats[(s - step) % players] for s in range(players)]
                counts = [counts[(s - step) % players] for s in range(players)]
                seats[(viewer + step) % players] = Knowledge()
            seats[viewer] = Knowledge()
        if seat != just_drew:
            just_drew = -1
    if 0 <= viewer < players:
        seats[viewer] = Knowledge()
    return seats


def _drew(
    memory: Knowledge, held: int, drawn: int, colors: int, face: int, until_playable: bool
) -> None:
    """`memory`'s seat held `held` cards, none of `colors` nor `face`, and drew `drawn`."""
    faces = 1 << face if face >= 0 else 0
    # The last card drawn until playable may fit; otherwise the card kept does not.
    fresh = 1 if until_playable and drawn else 0
    older = held - len(memory.known) - memory.fresh - memory.recent
    if memory.constrained and held >= 0 and older > 0 and not until_playable:
        # The cards held since the earlier draw lack what fitted then too; the newer
        # ones (and the card kept now) only what fits now.
        memory.older_colors |= memory.colors
        memory.older_faces |= memory.faces
        memory.recent += memory.fresh + drawn
    else:
        memory.forget_older()
    memory.colors = colors
    memory.faces = faces
    memory.fresh = fresh


def _played(
    memory: Knowledge, card: int, held: int, just_drawn: bool, until_playable: bool
) -> None:
    """`memory`'s seat, holding `held` cards, played `card` (`just_drawn`: the card it
    had just drawn)."""
    if card in memory.known:
        memory.known.remove(card)
        return
    if just_drawn:
        if until_playable:
            memory.fresh = max(memory.fresh - 1, 0)
        elif memory.recent > 0:
            memory.recent -= 1  # the card kept from the draw was counted as recent
        return
    if memory.excludes(card):
        if memory.fresh > 0:
            memory.fresh -= 1
        else:  # it drew while holding a card that fitted: forget the rule
            memory.colors = memory.faces = 0
            memory.forget_older()
        return
    if not memory.layered:
        return
    older = held - len(memory.known) - memory.fresh - memory.recent
    if memory.excludes_older(card) or older <= 0:
        # Not one of the cards held through the earlier draws.
        if memory.recent > 0:
            memory.recent -= 1
        elif memory.fresh > 0:
            memory.fresh -= 1
        else:
            memory.forget_older()


def of_view(view: PlayerView) -> list[Knowledge]:
    """`read` for the seat and round `view` shows."""
    return read(
        view.history,
        view.seat,
        view.players,
        draw_until_playable=view.rules.draw_until_playable,
    )
