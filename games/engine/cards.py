"""The decks: stable card ids 0..111 and their properties.

The engine works on plain int ids (fast to copy, hash and serialise); `Card` is the
value type handed to the outside world. Ids are laid out colour by colour:
``colour * 25 + k`` where k=0 is the 0, k=1..18 the numbers 1-9 twice, 19-20 Skip,
21-22 Reverse, 23-24 Draw Two; 100-103 are Wild and 104-107 Wild Draw Four. The
classic deck is those 108; the modern deck (docs/rules.md, "The 112-card deck") adds
108, the Wild Shuffle Hands, and 109-111, the Wild Customizable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, get_args

ColorName = Literal["red", "yellow", "green", "blue"]
KindName = Literal[
    "number",
    "skip",
    "reverse",
    "draw_two",
    "wild",
    "wild_draw_four",
    "wild_shuffle_hands",
    "wild_customizable",
]
Deck = Literal["classic_108", "modern_112"]

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
WILD_SHUFFLE_HANDS: Final = 6
WILD_CUSTOMIZABLE: Final = 7
KIND_NAMES: Final[tuple[KindName, ...]] = get_args(KindName)

DECK_SIZE: Final = 108  # the classic deck
CARD_COUNT: Final = 112  # every id of any deck: the modern deck's size
DECKS: Final[tuple[Deck, ...]] = get_args(Deck)
DECK_SIZES: Final[dict[Deck, int]] = {"classic_108": DECK_SIZE, "modern_112": CARD_COUNT}
FIRST_WILD: Final = 100
FIRST_WILD_DRAW_FOUR: Final = 104
SHUFFLE_HANDS: Final = 108  # the one Wild Shuffle Hands
FIRST_CUSTOMIZABLE: Final = 109


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
    for kind, code, copies in (
        (WILD, "W", 4),
        (WILD_DRAW_FOUR, "W+4", 4),
        (WILD_SHUFFLE_HANDS, "WSH", 1),
        (WILD_CUSTOMIZABLE, "WC", 3),
    ):
        for _ in range(copies):
            colors.append(NO_COLOR)
            kinds.append(kind)
            numbers.append(-1)
            faces.append(9 + kind)
            codes.append(code)
    return tuple(colors), tuple(kinds), tuple(numbers), tuple(faces), tuple(codes)


COLOR_OF, KIND_OF, NUMBER_OF, FACE_OF, CODE_OF = _build_tables()
IS_WILD: Final = tuple(kind >= WILD for kind in KIND_OF)
# Numbers at face value, Skip/Reverse/Draw Two 20, Wild and Wild Draw Four 50, the
# modern deck's Wild Shuffle Hands and Wild Customizable 40 (docs/rules.md, "Scoring").
_SYMBOL_POINTS: Final = {
    SKIP: 20,
    REVERSE: 20,
    DRAW_TWO: 20,
    WILD: 50,
    WILD_DRAW_FOUR: 50,
    WILD_SHUFFLE_HANDS: 40,
    WILD_CUSTOMIZABLE: 40,
}
POINTS_OF: Final = tuple(
    NUMBER_OF[c] if KIND_OF[c] == NUMBER else _SYMBOL_POINTS[KIND_OF[c]] for c in range(CARD_COUNT)
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
    for c in range(CARD_COUNT)
)
CARD_JSON: Final = tuple(card.to_json() for card in CARDS)


def card_json(card_id: int) -> dict[str, object]:
    """A fresh JSON dict for a card (a copy, so callers may not corrupt the table)."""
    return dict(CARD_JSON[card_id])
