"""A move's body, its schema (one shape per action) and its examples, and the
challenge's."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import OpenApiExample
from rest_framework import serializers

from games.engine.cards import CARD_COUNT, CODE_OF, IS_WILD, KIND_OF, NUMBER_OF, WILD_CUSTOMIZABLE
from games.serializers.common import (
    ACTIONS,
    COLORS,
    PLAIN_ACTIONS,
    component,
)
from unoservice.fields import (
    StrictBooleanField,
    StrictIntegerField,
    StrictSerializer,
)


class MoveIn(serializers.Serializer[Any]):
    """Documents `/moves`; the engine's parser judges the shape of the move itself.
    The schema (`MoveInScheme`) spells out which fields go with which action."""

    version = StrictIntegerField(min_value=0)
    action = serializers.ChoiceField(choices=ACTIONS)
    card = StrictIntegerField(min_value=0, max_value=CARD_COUNT - 1, required=False)
    color = serializers.ChoiceField(choices=COLORS, required=False)
    uno = StrictBooleanField(required=False)
    target = StrictIntegerField(required=False)


class MoveInScheme(OpenApiSerializerExtension):
    """`/moves` takes one of these bodies (the engine's `parse_move` rejects any other
    shape with a 400): which fields an action has, and for `play`, which cards take a
    `color` (wilds, required) or a `target` (7s, for seven_o; Wild Customizable, for
    swap_hands)."""

    target_class = MoveIn

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        def enum(name: str, kind: str, values: list[Any], description: str) -> dict[str, str]:
            schema = {"type": kind, "enum": values, "description": description}
            return component(auto_schema, name, schema)

        def cards(name: str, predicate: Any, description: str) -> dict[str, str]:
            ids = [c for c in range(CARD_COUNT) if predicate(c)]
            return enum(name, "integer", ids, description)

        def body(name: str, description: str, **fields: Any) -> dict[str, str]:
            required = ["version", *(field for field, (_, must) in fields.items() if must)]
            schema = {
                "type": "object",
                "description": description,
                "properties": {
                    "version": {"type": "integer", "minimum": 0},
                    **{field: schema for field, (schema, _) in fields.items()},
                },
                "required": required,
                "additionalProperties": False,
            }
            return component(auto_schema, name, schema)

        is_seven = [NUMBER_OF[c] == 7 for c in range(CARD_COUNT)]
        customizable = [KIND_OF[c] == WILD_CUSTOMIZABLE for c in range(CARD_COUNT)]
        color = enum("ColorName", "string", COLORS, "a colour")
        uno = {"type": "boolean", "description": "say UNO with the second-to-last card"}
        seat = {"type": "integer", "description": "a seat"}
        play = enum("PlayAction", "string", ["play"], "play a card")
        return {
            "type": "object",
            "description": "a move: one of the bodies below, plus the game's `version`",
            "properties": {
                "version": {"type": "integer", "minimum": 0},
                "action": {"type": "string", "enum": ACTIONS},
            },
            "required": ["version", "action"],
            "oneOf": [
                body(
                    "PlainMoveIn",
                    "an action without arguments",
                    action=(enum("PlainAction", "string", PLAIN_ACTIONS, "an action"), True),
                ),
                body(
                    "ChooseColorMoveIn",
                    "choose the colour after a Wild turned up first",
                    action=(
                        enum("ChooseColorAction", "string", ["choose_color"], "name a colour"),
                        True,
                    ),
                    color=(color, True),
                ),
                body(
                    "CatchUnoMoveIn",
                    "catch a seat that did not say UNO",
                    action=(
                        enum("CatchUnoAction", "string", ["catch_uno"], "catch a forgotten UNO"),
                        True,
                    ),
                    target=(seat, True),
                ),
                body(
                    "PlayCardMoveIn",
                    "play a coloured card other than a 7",
                    action=(play, True),
                    card=(
                        cards(
                            "ColoredCardId",
                            lambda c: not IS_WILD[c] and not is_seven[c],
                            "a coloured card other than a 7",
                        ),
                        True,
                    ),
                    uno=(uno, False),
                ),
                body(
                    "PlaySevenMoveIn",
                    "play a 7 (with seven_o, `target` is the seat to swap hands with)",
                    action=(play, True),
                    card=(cards("SevenCardId", lambda c: is_seven[c], "a 7"), True),
                    uno=(uno, False),
                    target=(seat, False),
                ),
                body(
                    "PlayWildMoveIn",
                    "play a wild card other than a Wild Customizable, naming the colour",
                    action=(play, True),
                    card=(
                        cards(
                            "WildCardId",
                            lambda c: IS_WILD[c] and not customizable[c],
                            "a Wild, Wild Draw Four or Wild Shuffle Hands",
                        ),
                        True,
                    ),
                    color=(color, True),
                    uno=(uno, False),
                ),
                body(
                    "PlayCustomizableMoveIn",
                    "play a Wild Customizable (modern_112), naming the colour (with "
                    "wild_customizable discard_color, also the colour discarded) and, with "
                    "swap_hands, the seat to swap hands with (`target`)",
                    action=(play, True),
                    card=(
                        cards(
                            "CustomizableCardId",
                            lambda c: customizable[c],
                            "a Wild Customizable",
                        ),
                        True,
                    ),
                    color=(color, True),
                    uno=(uno, False),
                    target=(seat, False),
                ),
            ],
        }


def _example(summary: str, description: str, **body: Any) -> OpenApiExample:
    return OpenApiExample(
        summary, value={"version": 14, **body}, description=description, request_only=True
    )


MOVE_EXAMPLES = [
    _example(
        "Play a number card",
        "Card 55 is a green 5: it goes on a green card or another 5.",
        action="play",
        card=CODE_OF.index("G5"),
    ),
    _example(
        "Play a Wild, name the colour, say UNO",
        "A wild card names the colour to play on; `uno: true` says UNO with the "
        "second-to-last card.",
        action="play",
        card=CODE_OF.index("W"),
        color="red",
        uno=True,
    ),
    _example(
        "Play a 7 and swap hands (seven_o)",
        "Under the seven_o house rule a 7 names the seat to swap hands with.",
        action="play",
        card=CODE_OF.index("R7"),
        target=2,
    ),
    _example("Draw", "Draw a card, or the stacked sum when facing a stack.", action="draw"),
    _example(
        "Pass",
        "Keep the card just drawn, or end the turn when nothing can be drawn.",
        action="pass",
    ),
    _example(
        "Call UNO",
        "Say UNO after playing the second-to-last card without `uno: true`, before anyone "
        "catches you.",
        action="call_uno",
    ),
    _example(
        "Catch a forgotten UNO",
        "Seat 1 holds one card and has not said UNO: it draws two.",
        action="catch_uno",
        target=1,
    ),
    _example("Challenge a Wild Draw Four", "Challenge the one played on you.", action="challenge"),
    _example(
        "Accept a Wild Draw Four", "Draw the cards at stake and lose the turn.", action="accept"
    ),
    _example(
        "Choose the colour of a first Wild",
        "When the round's first card is a Wild, the seat after the dealer names its colour.",
        action="choose_color",
        color="blue",
    ),
]


class ChallengeIn(StrictSerializer):
    version = StrictIntegerField(min_value=0, help_text="the game's version")
    challenge = StrictBooleanField(help_text="true challenges the Wild Draw Four, false accepts it")


CHALLENGE_EXAMPLES = [
    _example("Challenge", "Challenge the Wild Draw Four played on you.", challenge=True),
    _example("Accept", "Accept it: draw the cards at stake and lose the turn.", challenge=False),
]
