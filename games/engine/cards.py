"""The 108-card deck: stable card ids 0..107 and their properties.

The engine works on plain int ids (fast to copy, hash and serialise); `Card` is the
value type handed to the outside world. Ids are laid out colour by colour:
``colour * 25 + k`` where k=0 is the 0, k=1..18 the numbers 1-9 twice, 19-20 Skip,
21-22 Reverse, 23-24 Draw Two; 100-103 are Wild and 104-107 Wild Draw Four.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

ColorName = Literal["red", "yellow", "green", "blue"]
KindName = Literal["number", "skip", "reverse", "draw_two", "wild", "wild_draw_four"]

RED: Final = 0
YELLOW: Final = 1
GREEN: Final = 2
BLUE: Final = 3
NO_COLOR: Final = -1
COLORS: Final = (RED, YELLOW, GREEN, BLUE)
COLOR_NAMES: Final[tuple[ColorName, ...]] = ("red", "yellow", "green", "blue")
COLOR_BY_NAME: Final[dict[str, int]] = {name: i for i, name in enumerate(COLOR_NAMES)}
_COLOR_LETTERS: Final = "RYGB"

NUMBER: Final = 0
SKIP: Final = 1
REVERSE: Final = 2
DRAW_TWO: Final = 3
WILD: Final = 4
WILD_DRAW_FOUR: Final = 5
KIND_NAMES: Final[tuple[KindName, ...]] = (
    "number",
    "skip",
    "reverse",
    "draw_two",
    "wild",
    "wild_draw_four",
)

DECK_SIZE: Final = 108
FIRST_WILD: Final = 100
FIRST_WILD_DRAW_FOUR: Final = 104


def _build_tables() -> tuple[
    tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[str, ...]
]:
    colors: list[int] = []
    kinds: list[int] = []
    numbers: list[int] = []
    faces: list[int] = []
    codes: list[str] = []
    for color in COLORS:
        letter = _COLOR_LETTERS[color]
        for k in range(25):
            if k == 0:
                kind, number = NUMBER, 0
            elif k <= 18:
                kind, number = NUMBER, (k - 1) % 9 + 1
            else:
                kind, number = (
                    (SKIP, SKIP, REVERSE, REVERSE, DRAW_TWO, DRAW_TWO)[k - 19],
                    -1,
                )
            colors.append(color)
            kinds.append(kind)
            numbers.append(number)
            # A face is what must be equal for a number/symbol match: numbers 0-9,
            # symbols 10+. Wilds get faces of their own and never match by face.
            faces.append(number if kind == NUMBER else 9 + kind)
            suffix = {NUMBER: str(number), SKIP: "S", REVERSE: "R", DRAW_TWO: "+2"}[kind]
            codes.append(letter + suffix)
    for kind, code in ((WILD, "W"), (WILD_DRAW_FOUR, "W+4")):
        for _ in range(4):
            colors.append(NO_COLOR)
            kinds.append(kind)
            numbers.append(-1)
            faces.append(9 + kind)
            codes.append(code)
    return tuple(colors), tuple(kinds), tuple(numbers), tuple(faces), tuple(codes)


COLOR_OF, KIND_OF, NUMBER_OF, FACE_OF, CODE_OF = _build_tables()
IS_WILD: Final = tuple(kind >= WILD for kind in KIND_OF)
POINTS_OF: Final = tuple(
    NUMBER_OF[c] if KIND_OF[c] == NUMBER else (50 if IS_WILD[c] else 20) for c in range(DECK_SIZE)
)


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card, as clients see it."""

    id: int
    code: str
    color: ColorName | None
    kind: KindName
    number: int | None

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "code": self.code,
            "color": self.color,
            "kind": self.kind,
            "number": self.number,
        }


CARDS: Final = tuple(
    Card(
        id=c,
        code=CODE_OF[c],
        color=COLOR_NAMES[COLOR_OF[c]] if COLOR_OF[c] != NO_COLOR else None,
        kind=KIND_NAMES[KIND_OF[c]],
        number=NUMBER_OF[c] if NUMBER_OF[c] >= 0 else None,
    )
    for c in range(DECK_SIZE)
)
CARD_JSON: Final = tuple(card.to_json() for card in CARDS)


def card_json(card_id: int) -> dict[str, object]:
    """A fresh JSON dict for a card (a copy, so callers may not corrupt the table)."""
    return dict(CARD_JSON[card_id])
