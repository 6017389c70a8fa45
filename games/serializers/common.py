"""What the request and response bodies share: the choices and patterns they
validate against, the path and query parameters of a game, the small shapes
(a player, a card, the house rules) and the named schema components."""

from __future__ import annotations

from typing import Any, get_args

from django.core.validators import RegexValidator
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from games.engine import LEGACY_SEED_BITS, SEED_BITS, fair, moves
from games.engine.cards import CARD_COUNT, DECKS, KIND_NAMES
from games.engine.state import CUSTOM_EFFECTS, MAX_PLAYERS, SHUFFLE_HANDS_LAST_CARD, PendingType
from games.engine.vocabulary import Direction
from games.models import BotStrategy, GameMode, GameStatus, Visibility
from games.ratings.rules import VIEW_UNRATED_REASONS
from players.serializers import tag_field
from unoservice.codes import ALPHABET, CODE_LENGTH
from unoservice.fields import StrictCharField

COLORS = ["red", "yellow", "green", "blue"]
DIRECTIONS = list(get_args(Direction))
PENDING_TYPES = list(get_args(PendingType))
BOT_STRATEGIES = BotStrategy.values
VISIBILITIES = Visibility.values
MODES = GameMode.values
DECK_NAMES = list(DECKS)
SHUFFLE_HANDS_ENDS = list(SHUFFLE_HANDS_LAST_CARD)
WILD_CUSTOMIZABLE_EFFECTS = list(CUSTOM_EFFECTS)
INVITE_CODE_PATTERN = f"^[{ALPHABET}]{{{CODE_LENGTH}}}$"
GAME_STATUSES = GameStatus.values
ACTIONS = list(moves.ACTION_NAMES)
PLAIN_ACTIONS = list(moves.PLAIN_ACTIONS)  # nothing but `action`
CARD_CODE_PATTERN = r"^(?:[RYGB](?:[0-9]|S|R|\+2)|W|W\+4|WSH|WC)$"
# A turn may last up to a week: games among friends are played over days.
MIN_TURN_TIMEOUT, MAX_TURN_TIMEOUT = 5, 604_800
MAX_WAIT_SECONDS = 30  # the longest a long poll waits
HEX_256_PATTERN = r"^[0-9a-f]{64}$"
# Hex (fairness.md): every language hashes the same bytes, and the log that shows
# every seed to everyone once the game is over carries no words.
CLIENT_SEED_PATTERN = r"^[0-9a-f]{1,64}$"


def client_seed_field() -> serializers.CharField:
    """A player's own seed for the deal (docs/fairness.md), on requests that seat them."""
    return StrictCharField(
        required=False,
        max_length=64,
        trim_whitespace=False,
        validators=[RegexValidator(CLIENT_SEED_PATTERN, "1 to 64 lowercase hex digits (0-9, a-f)")],
        help_text="your own randomness for the deal: 1 to 64 lowercase hex digits, "
        "best drawn by the client (left out: the service makes one and shows it back as "
        "`you.client_seed`); see Fair deals",
    )


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


def component(auto_schema: Any, name: str, schema: dict[str, Any]) -> dict[str, str]:
    """Register `schema` as the component `name` and refer to it. (Named components keep
    drf-spectacular's enum naming from merging the different choice sets below.)"""
    component = ResolvedComponent(
        name=name, type=ResolvedComponent.SCHEMA, object=name, schema=schema
    )
    auto_schema.registry.register_on_missing(component)
    return dict(component.ref)


class PlayerRefOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    name = serializers.CharField(min_length=1)
    tag = tag_field(required=False)


class CardOut(serializers.Serializer[Any]):
    id = serializers.IntegerField(
        min_value=0,
        max_value=CARD_COUNT - 1,
        help_text="0-107 in either deck; 108 (Wild Shuffle Hands) and 109-111 (Wild "
        "Customizable) only in the modern_112 deck",
    )
    code = serializers.RegexField(CARD_CODE_PATTERN)
    color = serializers.ChoiceField(choices=COLORS, allow_null=True)
    kind = serializers.ChoiceField(choices=list(KIND_NAMES))
    number = serializers.IntegerField(min_value=0, max_value=9, allow_null=True)


class RulesOut(serializers.Serializer[Any]):
    stacking = serializers.BooleanField()
    seven_o = serializers.BooleanField()
    jump_in = serializers.BooleanField()
    draw_until_playable = serializers.BooleanField()
    force_play = serializers.BooleanField()


def seat_field(**kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=0, max_value=MAX_PLAYERS - 1, **kwargs)


def unrated_reason_field() -> serializers.ChoiceField:
    """A game's `unrated_reason` in its view and its lobby row (`rules.unrated_now`)."""
    return serializers.ChoiceField(
        choices=VIEW_UNRATED_REASONS,
        allow_null=True,
        help_text="why the game does not count for ratings, as far as can be told now "
        "(null while it does); once the game is finished, what its players' histories say",
    )


def count_field(**kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=0, **kwargs)


DEAL_ALGORITHMS = [fair.ALGORITHM, f"mt19937/{SEED_BITS}", f"mt19937/{LEGACY_SEED_BITS}"]


def deal_algorithm_field() -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=DEAL_ALGORITHMS,
        help_text="how the game is dealt (see Fair deals): `uno-deal/1` from a server "
        "seed and the players' seeds; `mt19937/53` from an integer seed (chosen by staff, "
        "or a game dealt before); `mt19937/63`, games dealt before seeds were below 2^53",
    )
