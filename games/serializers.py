"""Request bodies (validated here, shape only) and response bodies (declared here for
the OpenAPI schema; views build the dicts directly, which keeps the move path lean)."""

from __future__ import annotations

from typing import Any, get_args

from django.core.validators import RegexValidator
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter
from rest_framework import serializers

from games.engine import moves
from games.engine.cards import CODE_OF, DECK_SIZE, IS_WILD, NUMBER_OF
from games.engine.state import MAX_PLAYERS, MAX_TARGET_SCORE, MIN_PLAYERS, PendingType
from games.engine.vocabulary import VOCABULARY, Direction
from games.event_schema import EventSchemas
from games.invites import ALPHABET, CODE_LENGTH, MAX_TYPED_LENGTH, TYPED_PATTERN
from games.models import BotStrategy, GameStatus, Visibility
from games.services import DEFAULT_BOTS_AFTER, MAX_BOTS_AFTER, MIN_BOTS_AFTER
from unoservice.fields import (
    MAX_EXACT_INTEGER,
    QueryIntegerField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
)

COLORS = ["red", "yellow", "green", "blue"]
DIRECTIONS = list(get_args(Direction))
PENDING_TYPES = list(get_args(PendingType))
BOT_STRATEGIES = BotStrategy.values
VISIBILITIES = Visibility.values
INVITE_CODE_PATTERN = f"^[{ALPHABET}]{{{CODE_LENGTH}}}$"
GAME_STATUSES = GameStatus.values
ACTIONS = list(moves.ACTION_NAMES)
PLAIN_ACTIONS = list(moves.PLAIN_ACTIONS)  # nothing but `action`
CARD_CODE_PATTERN = r"^(?:[RYGB](?:[0-9]|S|R|\+2)|W|W\+4)$"
MIN_TURN_TIMEOUT, MAX_TURN_TIMEOUT = 5, 86_400
MAX_WAIT_SECONDS = 30  # the longest a long poll waits

# -- requests ------------------------------------------------------------------------

GAME_ID = OpenApiParameter(
    "game_id",
    OpenApiTypes.UUID,
    OpenApiParameter.PATH,
    description="the game's id (a malformed one is a game that does not exist: 404)",
)

INVITE_CODE = OpenApiParameter(
    "code",
    str,
    description="a private game's invite code, for a spectator who is not one of its "
    "players (read as `POST /games/join` reads it); without it, or with a wrong one, a "
    "private game is 404, and wrong codes are rate limited. Ignored for public games",
)


class RulesIn(StrictSerializer):
    stacking = StrictBooleanField(required=False)
    seven_o = StrictBooleanField(required=False)
    jump_in = StrictBooleanField(required=False)
    draw_until_playable = StrictBooleanField(required=False)
    force_play = StrictBooleanField(required=False)


class GameCreateIn(StrictSerializer):
    max_players = StrictIntegerField(min_value=MIN_PLAYERS, max_value=MAX_PLAYERS, default=4)
    target_score = StrictIntegerField(min_value=0, max_value=MAX_TARGET_SCORE, default=500)
    turn_timeout = StrictIntegerField(
        min_value=MIN_TURN_TIMEOUT, max_value=MAX_TURN_TIMEOUT, allow_null=True, default=None
    )
    rules = RulesIn(required=False)
    seed = StrictIntegerField(
        min_value=0,
        max_value=MAX_EXACT_INTEGER,
        required=False,
        help_text="fixes the shuffle of every round (staff only, unless the service "
        "runs with CLIENT_SEEDS on); left out, the service draws one",
    )
    visibility = serializers.ChoiceField(
        choices=VISIBILITIES,
        default=Visibility.PUBLIC,
        help_text="private: not listed in the lobby, seen only by its players and "
        "holders of its invite code",
    )
    rated = StrictBooleanField(default=True, help_text="whether the game counts for ratings")


class MatchmakingIn(StrictSerializer):
    max_players = StrictIntegerField(min_value=MIN_PLAYERS, max_value=MAX_PLAYERS, default=4)
    target_score = StrictIntegerField(min_value=0, max_value=MAX_TARGET_SCORE, default=500)
    rules = RulesIn(required=False)
    bots_after = StrictIntegerField(
        min_value=MIN_BOTS_AFTER,
        max_value=MAX_BOTS_AFTER,
        allow_null=True,
        default=DEFAULT_BOTS_AFTER,
        help_text="seconds after the game's first seat was taken before its empty seats "
        "go to greedy bots and it starts, when this request creates the game; null: never",
    )


MATCHMAKING_EXAMPLES = [
    OpenApiExample(
        "Four seats, 500 points, bots after 30 s",
        value={"max_players": 4, "target_score": 500, "rules": {}, "bots_after": 30},
        description="The defaults, spelt out: an empty body asks for the same.",
        request_only=True,
    ),
    OpenApiExample(
        "Two players, one round, stacking, humans only",
        value={
            "max_players": 2,
            "target_score": 0,
            "rules": {"stacking": True},
            "bots_after": None,
        },
        description="Waits for a second human however long it takes (until cancelled).",
        request_only=True,
    ),
]


class MatchCancelOut(serializers.Serializer[Any]):
    left = serializers.ListField(
        child=serializers.UUIDField(),
        help_text="the waiting quick-match games you left, oldest first",
    )


class JoinByCodeIn(StrictSerializer):
    code = StrictCharField(
        max_length=MAX_TYPED_LENGTH,
        trim_whitespace=False,
        validators=[
            RegexValidator(
                TYPED_PATTERN,
                f"an invite code is {CODE_LENGTH} characters of {ALPHABET} (in any case; "
                "spaces and hyphens are left out)",
            )
        ],
        help_text=f"the invite code: {CODE_LENGTH} characters of {ALPHABET}, in any case; "
        "spaces and hyphens are ignored",
    )


JOIN_BY_CODE_EXAMPLES = [
    OpenApiExample(
        "Join by invite code",
        value={"code": "K7MQ-X2RP"},
        description="The code as the game's host passed it on; case, spaces and hyphens "
        "do not matter.",
        request_only=True,
    )
]


class BotIn(StrictSerializer):
    strategy = serializers.ChoiceField(choices=BOT_STRATEGIES)


class MoveIn(serializers.Serializer[Any]):
    """Documents `/moves`; the engine's parser judges the shape of the move itself.
    The schema (`MoveInScheme`) spells out which fields go with which action."""

    version = StrictIntegerField(min_value=0)
    action = serializers.ChoiceField(choices=ACTIONS)
    card = StrictIntegerField(min_value=0, max_value=DECK_SIZE - 1, required=False)
    color = serializers.ChoiceField(choices=COLORS, required=False)
    uno = StrictBooleanField(required=False)
    target = StrictIntegerField(required=False)


def _component(auto_schema: Any, name: str, schema: dict[str, Any]) -> dict[str, str]:
    """Register `schema` as the component `name` and refer to it. (Named components keep
    drf-spectacular's enum naming from merging the different choice sets below.)"""
    component = ResolvedComponent(
        name=name, type=ResolvedComponent.SCHEMA, object=name, schema=schema
    )
    auto_schema.registry.register_on_missing(component)
    return dict(component.ref)


class MoveInScheme(OpenApiSerializerExtension):
    """`/moves` takes one of these bodies (the engine's `parse_move` rejects any other
    shape with a 400): which fields an action has, and for `play`, which cards take a
    `color` (wilds, required) or a `target` (7s, for seven_o)."""

    target_class = MoveIn

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        def enum(name: str, kind: str, values: list[Any], description: str) -> dict[str, str]:
            schema = {"type": kind, "enum": values, "description": description}
            return _component(auto_schema, name, schema)

        def cards(name: str, predicate: Any, description: str) -> dict[str, str]:
            ids = [c for c in range(DECK_SIZE) if predicate(c)]
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
            return _component(auto_schema, name, schema)

        is_seven = [NUMBER_OF[c] == 7 for c in range(DECK_SIZE)]
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
                    "play a wild card, naming the colour",
                    action=(play, True),
                    card=(cards("WildCardId", lambda c: IS_WILD[c], "a wild card"), True),
                    color=(color, True),
                    uno=(uno, False),
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


class EventsQuery(serializers.Serializer[Any]):
    after = QueryIntegerField(min_value=0, default=0, help_text="return the events after this seq")
    wait = QueryIntegerField(
        min_value=0,
        max_value=MAX_WAIT_SECONDS,
        default=0,
        help_text="long poll: seconds to wait for an event when there is none yet",
    )


# -- responses -----------------------------------------------------------------------


class PlayerRefOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    name = serializers.CharField(min_length=1)


class CardOut(serializers.Serializer[Any]):
    id = serializers.IntegerField(min_value=0, max_value=DECK_SIZE - 1)
    code = serializers.RegexField(CARD_CODE_PATTERN)
    color = serializers.ChoiceField(choices=COLORS, allow_null=True)
    kind = serializers.ChoiceField(
        choices=["number", "skip", "reverse", "draw_two", "wild", "wild_draw_four"]
    )
    number = serializers.IntegerField(min_value=0, max_value=9, allow_null=True)


class RulesOut(serializers.Serializer[Any]):
    stacking = serializers.BooleanField()
    seven_o = serializers.BooleanField()
    jump_in = serializers.BooleanField()
    draw_until_playable = serializers.BooleanField()
    force_play = serializers.BooleanField()


def _seat_field(**kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=0, max_value=MAX_PLAYERS - 1, **kwargs)


def _count_field(**kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=0, **kwargs)


class SeatOut(serializers.Serializer[Any]):
    seat = _seat_field()
    player = PlayerRefOut(allow_null=True)
    bot = serializers.ChoiceField(choices=BOT_STRATEGIES, allow_null=True)
    card_count = _count_field()
    score = _count_field()
    said_uno = serializers.BooleanField()
    timeouts = _count_field()
    online = serializers.BooleanField(
        help_text="the seat's player has a stream open (of any game) or made a request in "
        "the last 30 seconds; always true for a bot"
    )


class PendingOut(serializers.Serializer[Any]):
    type = serializers.ChoiceField(choices=PENDING_TYPES)
    seat = _seat_field()
    amount = _count_field(required=False, help_text="cards at stake (challenge, stack)")
    accused = _seat_field(
        required=False, help_text="seat that played the Wild Draw Four (challenge)"
    )
    card = CardOut(required=False, help_text="the card just drawn, shown to its seat only")


class YouOut(serializers.Serializer[Any]):
    seat = _seat_field()
    hand = CardOut(many=True)
    legal_moves = MoveIn(
        many=True,
        help_text="every move you may send now, each a whole `/moves` body with the "
        "game's current `version` (add `uno: true` to a play with your second-to-last card)",
    )


class GameViewOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=GameStatus.values)
    version = serializers.IntegerField(min_value=1)
    host = PlayerRefOut()
    max_players = serializers.IntegerField(min_value=MIN_PLAYERS, max_value=MAX_PLAYERS)
    target_score = serializers.IntegerField(min_value=0, max_value=MAX_TARGET_SCORE)
    turn_timeout = serializers.IntegerField(
        min_value=MIN_TURN_TIMEOUT, max_value=MAX_TURN_TIMEOUT, allow_null=True
    )
    rules = RulesOut()
    visibility = serializers.ChoiceField(choices=VISIBILITIES)
    rated = serializers.BooleanField()
    invite_code = serializers.RegexField(
        INVITE_CODE_PATTERN,
        allow_null=True,
        help_text="a private game's invite code, shown to its seated players only; null "
        "for anyone else and for public games",
    )
    created_at = serializers.DateTimeField()
    seats = SeatOut(many=True)
    spectators = _count_field(
        help_text="streams open on this game by viewers who hold no seat in it (as of the "
        "last change of the game, in a stream's view)"
    )
    round = serializers.IntegerField(min_value=1, allow_null=True)
    dealer = _seat_field(allow_null=True)
    current_seat = _seat_field(allow_null=True)
    direction = serializers.ChoiceField(choices=DIRECTIONS, allow_null=True)
    current_color = serializers.ChoiceField(choices=COLORS, allow_null=True)
    top_card = CardOut(allow_null=True)
    draw_pile_count = _count_field(allow_null=True)
    discard_pile_count = _count_field(allow_null=True)
    pending = PendingOut(allow_null=True)
    turn_deadline = serializers.DateTimeField(allow_null=True)
    paused_until = serializers.DateTimeField(
        allow_null=True,
        help_text="while no human sits at the table and a timed-out player may still "
        "resume: nobody moves until then, and the game is abandoned at this time",
    )
    winner = _seat_field(allow_null=True)
    rematch = serializers.UUIDField(
        allow_null=True,
        help_text="once the game is over and one of its players asked for the next game "
        "with the same settings: that game's id; otherwise null",
    )
    quick_match = serializers.BooleanField(
        help_text="whether the game was made by quick match (`POST /matchmaking`), which "
        "starts it by itself once full"
    )
    bots_at = serializers.DateTimeField(
        allow_null=True,
        help_text="while a quick-match game waits: when its empty seats go to greedy bots "
        "and it starts; null otherwise, or when it waits for humans only",
    )
    last_seq = _count_field()
    you = YouOut(allow_null=True)


class SummaryPlayerOut(serializers.Serializer[Any]):
    seat = _seat_field()
    player = PlayerRefOut(allow_null=True)
    bot = serializers.ChoiceField(choices=BOT_STRATEGIES, allow_null=True)


class GameSummaryOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=GameStatus.values)
    host = PlayerRefOut()
    players = SummaryPlayerOut(many=True)
    max_players = serializers.IntegerField(min_value=MIN_PLAYERS, max_value=MAX_PLAYERS)
    rules = RulesOut()
    visibility = serializers.ChoiceField(choices=VISIBILITIES)
    rated = serializers.BooleanField()
    created_at = serializers.DateTimeField()


EVENT_TYPES = list(VOCABULARY)


class EventOut(serializers.Serializer[Any]):
    seq = serializers.IntegerField(min_value=1)
    at = serializers.DateTimeField()
    round = serializers.IntegerField(min_value=1, allow_null=True)
    type = serializers.ChoiceField(choices=EVENT_TYPES)
    seat = _seat_field(allow_null=True)
    # A field named `data`, as the API names it: DRF's metaclass takes declared
    # fields off the class, so `Serializer.data` still works; the stubs cannot know.
    data = serializers.DictField()  # type: ignore[assignment]


class EventScheme(OpenApiSerializerExtension):
    """An event is one of a schema per type, generated from the engine's vocabulary,
    with `data` spelt out key by key."""

    target_class = EventOut

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        card = auto_schema.resolve_serializer(CardOut, direction).ref
        schemas = EventSchemas(card, BOT_STRATEGIES)
        return schemas.event(lambda name, schema: _component(auto_schema, name, schema))


class MoveResultOut(serializers.Serializer[Any]):
    game = GameViewOut()
    events = EventOut(many=True)


class EventsPageOut(serializers.Serializer[Any]):
    events = EventOut(many=True)
    last_seq = _count_field()


class LogOut(serializers.Serializer[Any]):
    game = GameSummaryOut()
    complete = serializers.BooleanField(
        help_text="true once the game is over (and always for staff): every card shown"
    )
    seed = serializers.IntegerField(
        allow_null=True,
        min_value=-MAX_EXACT_INTEGER,
        max_value=MAX_EXACT_INTEGER,
        help_text="the game's seed; null while the log is redacted, and for a game "
        "created before seeds were drawn below 2^53 whose seed is larger (see `seed_text`)",
    )
    seed_text = serializers.CharField(
        allow_null=True,
        help_text="the game's seed in decimal, exact in every language; null while the "
        "log is redacted",
    )
    seeds = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=MAX_EXACT_INTEGER),
        allow_null=True,
        help_text="each round's seed, round 1 first; null while the log is redacted, and "
        "for a game dealt before round seeds were drawn below 2^53 (see `seeds_text`)",
    )
    seeds_text = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="each round's seed in decimal, round 1 first, exact in every language; "
        "null while the log is redacted",
    )
    events = EventOut(many=True)


class ReplayQuery(serializers.Serializer[Any]):
    seq = QueryIntegerField(min_value=1, help_text="show the table after this event")


class ReplayOut(serializers.Serializer[Any]):
    seq = serializers.IntegerField(min_value=1)
    round = serializers.IntegerField(min_value=1, allow_null=True)
    dealer = _seat_field(required=False)
    hands = serializers.DictField(
        child=CardOut(many=True), help_text="every hand, by seat number (a string key)"
    )
    draw_pile = CardOut(many=True, help_text="the next card to draw first")
    discard_pile = CardOut(many=True, help_text="the top card last")
    top_card = CardOut(required=False, allow_null=True)
    current_seat = _seat_field(allow_null=True)
    current_color = serializers.ChoiceField(choices=COLORS, allow_null=True)
    direction = serializers.ChoiceField(choices=DIRECTIONS, allow_null=True)
    pending = PendingOut(allow_null=True)
    scores = serializers.ListField(child=serializers.IntegerField(min_value=0))


class StreamTicketOut(serializers.Serializer[Any]):
    ticket = serializers.CharField(help_text="send as `?ticket=` to open the stream, once")
    expires_at = serializers.DateTimeField(help_text="60 seconds from now")
