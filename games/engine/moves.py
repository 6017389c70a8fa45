"""Moves: the value type, its JSON shape (the body of ``POST /moves`` without
``version``) and strict parsing of that shape."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal, cast, get_args

from .cards import (
    CARD_COUNT,
    COLOR_BY_NAME,
    COLOR_NAMES,
    IS_WILD,
    KIND_OF,
    NUMBER_OF,
    WILD_CUSTOMIZABLE,
)
from .errors import MalformedMove

Action = Literal[
    "play",
    "draw",
    "pass",
    "choose_color",
    "call_uno",
    "catch_uno",
    "challenge",
    "accept",
]
# The action names in the order `Action` lists them (the API's schema shows them so).
ACTION_NAMES: Final[tuple[Action, ...]] = get_args(Action)
ACTIONS: Final[frozenset[str]] = frozenset(ACTION_NAMES)
# Which body fields each action takes; anything else is a client bug worth reporting.
_FIELDS: Final[dict[str, frozenset[str]]] = {
    "play": frozenset(("card", "color", "uno", "target")),
    "choose_color": frozenset(("color",)),
    "catch_uno": frozenset(("target",)),
}
# The actions whose body holds nothing but `action`.
PLAIN_ACTIONS: Final[tuple[Action, ...]] = tuple(a for a in ACTION_NAMES if a not in _FIELDS)
_NO_FIELDS: Final[frozenset[str]] = frozenset()
MAX_SEATS: Final = 10


@dataclass(frozen=True, slots=True)
class Move:
    """One action a seat can take. `color` is a colour index (0-3), `target` a seat (the
    one a seven_o 7 or a Wild Customizable that swaps hands swaps with, or the seat
    caught without UNO)."""

    action: Action
    card: int | None = None
    color: int | None = None
    target: int | None = None
    uno: bool = False

    def to_json(self) -> dict[str, object]:
        body: dict[str, object] = {"action": self.action}
        if self.card is not None:
            body["card"] = self.card
        if self.color is not None:
            body["color"] = COLOR_NAMES[self.color]
        if self.target is not None:
            body["target"] = self.target
        if self.uno:
            body["uno"] = True
        return body

    def without_uno(self) -> Move:
        if not self.uno:
            return self
        return Move(self.action, card=self.card, color=self.color, target=self.target)

    @staticmethod
    def from_json(body: object) -> Move:
        return parse_move(body)


def _make_play_table(uno: bool = False) -> tuple[tuple[Move, ...], ...]:
    table: list[tuple[Move, ...]] = []
    for c in range(CARD_COUNT):
        if IS_WILD[c]:
            table.append(tuple(Move("play", card=c, color=color, uno=uno) for color in range(4)))
        else:
            table.append((Move("play", card=c, uno=uno),))
    return tuple(table)


# Interned move objects: legal-move generation hands these out instead of building
# new ones, which is most of what keeps it fast.
PLAY_MOVES: Final = _make_play_table()
# The same plays announcing UNO, as a client sends its next-to-last card.
PLAY_UNO_MOVES: Final = _make_play_table(uno=True)
DRAW: Final = Move("draw")
PASS: Final = Move("pass")
CALL_UNO: Final = Move("call_uno")
CHALLENGE: Final = Move("challenge")
ACCEPT: Final = Move("accept")
CHOOSE_COLOR: Final = tuple(Move("choose_color", color=color) for color in range(4))
CATCH_UNO: Final = tuple(Move("catch_uno", target=seat) for seat in range(MAX_SEATS))
_TARGETED: dict[tuple[int, int, int | None], Move] = {}


def play_targeted(card: int, target: int, color: int | None = None) -> Move:
    """A seven_o 7, or a Wild Customizable that swaps hands (naming `color` too), aimed
    at a seat (cached: bots and legal moves ask for these often)."""
    key = (card, target, color)
    move = _TARGETED.get(key)
    if move is None:
        move = _TARGETED[key] = Move("play", card=card, color=color, target=target)
    return move


def takes_target(card: int) -> bool:
    """Whether a play of `card` may name a seat at all: a 7 (under seven_o) or a Wild
    Customizable (when it swaps hands). The table's settings say whether it must."""
    return NUMBER_OF[card] == 7 or KIND_OF[card] == WILD_CUSTOMIZABLE


_UNKNOWN_COLOR: Final = "'color' must be one of red, yellow, green, blue"
_BARE: Final[dict[str, Move]] = {
    "draw": DRAW,
    "pass": PASS,
    "call_uno": CALL_UNO,
    "challenge": CHALLENGE,
    "accept": ACCEPT,
}


def malformed_reason(move: Move, named: Iterable[str] = ()) -> str | None:
    """Why `move` could fit no game, or None when its shape is sound.

    The one statement of the shape rules, for a directly built move and for a parsed
    body alike. `named` lists what a body named that the move cannot show: a key
    that is no field at all, or ``"uno": false``.
    """
    action = move.action
    if action not in ACTIONS:
        return f"unknown action {action!r}"
    card, color, target = move.card, move.color, move.target
    fields = (("card", card), ("color", color), ("target", target), ("uno", move.uno or None))
    carried = [name for name, value in fields if value is not None]
    allowed = _FIELDS.get(action, _NO_FIELDS)
    for name in (*carried, *named):
        if name not in allowed:
            return f"'{name}' is not a field of the '{action}' action"
    if color is not None and (type(color) is not int or not 0 <= color < 4):
        return _UNKNOWN_COLOR
    if target is not None and type(target) is not int:
        return "'target' must be an integer"
    if action == "play":
        if card is None:
            return "'card' is required to play"
        if type(card) is not int or not 0 <= card < CARD_COUNT:
            return f"unknown card id {card!r}"
        if IS_WILD[card] and color is None:
            return "'color' is required to play a wild card"
        if not IS_WILD[card] and color is not None:
            return "'color' is only for wild cards"
        if target is not None and not takes_target(card):
            return "'target' is only for a 7 (seven_o) or a Wild Customizable (swap_hands)"
    elif action == "choose_color" and color is None:
        return "'color' is required to choose a colour"
    elif action == "catch_uno" and target is None:
        return "'target' is required to catch"
    return None


def shared_move(
    action: str, card: int | None, color: int | None, target: int | None, uno: bool
) -> Move | None:
    """The shared move object with exactly these fields, if there is one: every play
    without a target, every colour choice and catch, every bare action. Each is
    sound (a test checks every one against `malformed_reason`), so parsing need not
    judge it again."""
    if action == "play":
        if target is None and card is not None and 0 <= card < CARD_COUNT:
            plays = PLAY_UNO_MOVES[card] if uno else PLAY_MOVES[card]
            if IS_WILD[card]:
                return None if color is None else plays[color]
            return plays[0] if color is None else None
    elif card is None and not uno:
        if action == "choose_color":
            if color is not None and target is None:
                return CHOOSE_COLOR[color]
        elif action == "catch_uno":
            if color is None and target is not None and 0 <= target < MAX_SEATS:
                return CATCH_UNO[target]
        elif color is None and target is None:
            return _BARE.get(action)
    return None


def parse_move(body: object, *, ignore: frozenset[str] = frozenset(("version",))) -> Move:
    """Parse a move body, raising `MalformedMove` with a reason for any bad shape.

    Only the JSON types are checked here: an object, a known action, integer `card`
    and `target` (JSON's true is no integer), a colour by name, a boolean `uno`.
    Which fields go with which action, and what they may hold, is
    `malformed_reason`'s; whether the move fits the game is the rules'.
    """
    if not isinstance(body, dict):
        raise MalformedMove("the move must be a JSON object")
    fields: dict[str, object] = body
    action = fields.get("action")
    if not isinstance(action, str) or action not in ACTIONS:
        raise MalformedMove("'action' must be one of " + ", ".join(sorted(ACTIONS)))
    card: int | None = None
    color: int | None = None
    target: int | None = None
    uno = False
    named: list[str] = []  # what the move built below cannot show
    for key, value in fields.items():
        if key == "card":
            if type(value) is not int:
                raise MalformedMove("'card' must be an integer")
            card = value
        elif key == "color":
            if not isinstance(value, str) or value not in COLOR_BY_NAME:
                raise MalformedMove(_UNKNOWN_COLOR)
            color = COLOR_BY_NAME[value]
        elif key == "target":
            if type(value) is not int:
                raise MalformedMove("'target' must be an integer")
            target = value
        elif key == "uno":
            if type(value) is not bool:
                raise MalformedMove("'uno' must be true or false")
            uno = value
            if not uno:
                named.append(key)
        elif key != "action" and key not in ignore:
            named.append(key)
    move = shared_move(action, card, color, target, uno)
    if move is None or named:
        if move is None:
            move = Move(cast(Action, action), card=card, color=color, target=target, uno=uno)
        reason = malformed_reason(move, named)
        if reason is not None:
            raise MalformedMove(reason)
    return move
