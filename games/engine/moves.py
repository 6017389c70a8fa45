"""Moves: the value type, its JSON shape (the body of ``POST /moves`` without
``version``) and strict parsing of that shape."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, cast

from .cards import COLOR_BY_NAME, COLOR_NAMES, DECK_SIZE, IS_WILD, NUMBER_OF
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
ACTIONS: Final[frozenset[str]] = frozenset(
    (
        "play",
        "draw",
        "pass",
        "choose_color",
        "call_uno",
        "catch_uno",
        "challenge",
        "accept",
    )
)
# Which body fields each action takes; anything else is a client bug worth reporting.
_FIELDS: Final[dict[str, frozenset[str]]] = {
    "play": frozenset(("card", "color", "uno", "target")),
    "choose_color": frozenset(("color",)),
    "catch_uno": frozenset(("target",)),
}
_NO_FIELDS: Final[frozenset[str]] = frozenset()
MAX_SEATS: Final = 10


@dataclass(frozen=True, slots=True)
class Move:
    """One action a seat can take. `color` is a colour index (0-3), `target` a seat."""

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


def _make_play_table() -> tuple[tuple[Move, ...], ...]:
    table: list[tuple[Move, ...]] = []
    for c in range(DECK_SIZE):
        if IS_WILD[c]:
            table.append(tuple(Move("play", card=c, color=color) for color in range(4)))
        else:
            table.append((Move("play", card=c),))
    return tuple(table)


# Interned move objects: legal-move generation hands these out instead of building
# new ones, which is most of what keeps it fast.
PLAY_MOVES: Final = _make_play_table()
DRAW: Final = Move("draw")
PASS: Final = Move("pass")
CALL_UNO: Final = Move("call_uno")
CHALLENGE: Final = Move("challenge")
ACCEPT: Final = Move("accept")
CHOOSE_COLOR: Final = tuple(Move("choose_color", color=color) for color in range(4))
CATCH_UNO: Final = tuple(Move("catch_uno", target=seat) for seat in range(MAX_SEATS))
_TARGETED: dict[tuple[int, int], Move] = {}


def play(card: int, color: int | None = None, target: int | None = None, uno: bool = False) -> Move:
    if target is None and not uno:
        if color is None:
            return PLAY_MOVES[card][0]
        if IS_WILD[card] and 0 <= color < 4:
            return PLAY_MOVES[card][color]
    return Move("play", card=card, color=color, target=target, uno=uno)


def play_targeted(card: int, target: int) -> Move:
    """A seven_o 7 naming a seat (cached: bots and legal moves ask for these often)."""
    key = (card, target)
    move = _TARGETED.get(key)
    if move is None:
        move = _TARGETED[key] = Move("play", card=card, target=target)
    return move


def malformed_reason(move: Move) -> str | None:
    """Why a directly built `Move` could fit no game, or None when its shape is sound."""
    action = move.action
    if action not in ACTIONS:
        return f"unknown action {action!r}"
    allowed = _FIELDS.get(action, _NO_FIELDS)
    for name in ("card", "color", "target"):
        if getattr(move, name) is not None and name not in allowed:
            return f"'{name}' is not a field of the '{action}' action"
    if move.uno and action != "play":
        return f"'uno' is not a field of the '{action}' action"
    card, color = move.card, move.color
    if color is not None and (type(color) is not int or not 0 <= color < 4):
        return "'color' must be one of red, yellow, green, blue"
    if move.target is not None and type(move.target) is not int:
        return "'target' must be an integer"
    if action == "play":
        if type(card) is not int or not 0 <= card < DECK_SIZE:
            return f"unknown card id {card!r}"
        if IS_WILD[card] and color is None:
            return "'color' is required to play a wild card"
        if not IS_WILD[card] and color is not None:
            return "'color' is only for wild cards"
        if move.target is not None and NUMBER_OF[card] != 7:
            return "'target' is only for a 7 (seven_o)"
    elif action == "choose_color" and color is None:
        return "'color' is required to choose a colour"
    elif action == "catch_uno" and move.target is None:
        return "'target' is required to catch"
    return None


def _int_field(body: dict[str, object], name: str) -> int:
    value = body[name]
    if type(value) is not int:
        raise MalformedMove(f"'{name}' must be an integer")
    return value


def _color_field(body: dict[str, object]) -> int:
    value = body["color"]
    if not isinstance(value, str) or value not in COLOR_BY_NAME:
        raise MalformedMove("'color' must be one of red, yellow, green, blue")
    return COLOR_BY_NAME[value]


def parse_move(body: object, *, ignore: frozenset[str] = frozenset(("version",))) -> Move:
    """Parse a move body, raising `MalformedMove` with a reason for any bad shape.

    Only the shape is judged here; whether the move fits the game is the rules' job.
    """
    if not isinstance(body, dict):
        raise MalformedMove("the move must be a JSON object")
    fields = cast(dict[str, object], body)
    action = fields.get("action")
    if not isinstance(action, str) or action not in ACTIONS:
        raise MalformedMove("'action' must be one of " + ", ".join(sorted(ACTIONS)))
    allowed = _FIELDS.get(action, _NO_FIELDS)
    for key in fields:
        if key != "action" and key not in allowed and key not in ignore:
            raise MalformedMove(f"'{key}' is not a field of the '{action}' action")
    if action == "play":
        if "card" not in fields:
            raise MalformedMove("'card' is required to play")
        card = _int_field(fields, "card")
        if not 0 <= card < DECK_SIZE:
            raise MalformedMove(f"unknown card id {card}")
        color: int | None = None
        if IS_WILD[card]:
            if "color" not in fields:
                raise MalformedMove("'color' is required to play a wild card")
            color = _color_field(fields)
        elif "color" in fields:
            raise MalformedMove("'color' is only for wild cards")
        target: int | None = None
        if "target" in fields:
            if NUMBER_OF[card] != 7:
                raise MalformedMove("'target' is only for a 7 (seven_o)")
            target = _int_field(fields, "target")
        uno = fields.get("uno", False)
        if type(uno) is not bool:
            raise MalformedMove("'uno' must be true or false")
        return play(card, color, target, uno)
    if action == "choose_color":
        if "color" not in fields:
            raise MalformedMove("'color' is required to choose a colour")
        return CHOOSE_COLOR[_color_field(fields)]
    if action == "catch_uno":
        if "target" not in fields:
            raise MalformedMove("'target' is required to catch")
        target = _int_field(fields, "target")
        if 0 <= target < MAX_SEATS:
            return CATCH_UNO[target]
        return Move("catch_uno", target=target)
    return {
        "draw": DRAW,
        "pass": PASS,
        "call_uno": CALL_UNO,
        "challenge": CHALLENGE,
        "accept": ACCEPT,
    }[action]
