"""Request bodies (validated here, shape only) and response bodies (declared here for
the OpenAPI schema; views build the dicts directly, which keeps the move path lean)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games.engine.state import MAX_PLAYERS, MAX_TARGET_SCORE, MIN_PLAYERS
from games.models import BotStrategy, GameStatus
from unoservice.fields import (
    StrictBooleanField,
    StrictIntegerField,
    StrictSerializer,
)

COLORS = ["red", "yellow", "green", "blue"]
ACTIONS = ["play", "draw", "pass", "choose_color", "call_uno", "catch_uno", "challenge", "accept"]
MIN_TURN_TIMEOUT, MAX_TURN_TIMEOUT = 5, 86_400
INT64 = 2**63

# -- requests ------------------------------------------------------------------------


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
    seed = StrictIntegerField(min_value=-INT64, max_value=INT64 - 1, required=False)


class BotIn(StrictSerializer):
    strategy = serializers.ChoiceField(choices=BotStrategy.values)


class MoveIn(serializers.Serializer[Any]):
    """Documents `/moves`; the engine's parser judges the shape of the move itself."""

    version = StrictIntegerField(min_value=0)
    action = serializers.ChoiceField(choices=ACTIONS)
    card = StrictIntegerField(min_value=0, max_value=107, required=False)
    color = serializers.ChoiceField(choices=COLORS, required=False)
    uno = StrictBooleanField(required=False)
    target = StrictIntegerField(min_value=0, max_value=MAX_PLAYERS - 1, required=False)


class VersionIn(serializers.Serializer[Any]):
    version = StrictIntegerField(min_value=0)


class ChallengeIn(StrictSerializer):
    version = StrictIntegerField(min_value=0)
    challenge = StrictBooleanField()


class GameListQuery(serializers.Serializer[Any]):
    status = serializers.ChoiceField(choices=GameStatus.values, required=False)
    mine = serializers.BooleanField(required=False)


class EventsQuery(serializers.Serializer[Any]):
    after = serializers.IntegerField(min_value=0, default=0)
    wait = serializers.IntegerField(min_value=0, max_value=30, default=0)


# -- responses -----------------------------------------------------------------------


class PlayerRefOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    name = serializers.CharField()


class CardOut(serializers.Serializer[Any]):
    id = serializers.IntegerField(min_value=0, max_value=107)
    code = serializers.CharField()
    color = serializers.ChoiceField(choices=COLORS, allow_null=True)
    kind = serializers.ChoiceField(
        choices=["number", "skip", "reverse", "draw_two", "wild", "wild_draw_four"]
    )
    number = serializers.IntegerField(min_value=0, max_value=9, allow_null=True)


class MoveOut(serializers.Serializer[Any]):
    action = serializers.ChoiceField(choices=ACTIONS)
    card = serializers.IntegerField(required=False)
    color = serializers.ChoiceField(choices=COLORS, required=False)
    target = serializers.IntegerField(required=False)


class RulesOut(serializers.Serializer[Any]):
    stacking = serializers.BooleanField()
    seven_o = serializers.BooleanField()
    jump_in = serializers.BooleanField()
    draw_until_playable = serializers.BooleanField()
    force_play = serializers.BooleanField()


class SeatOut(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    player = PlayerRefOut(allow_null=True)
    bot = serializers.ChoiceField(choices=BotStrategy.values, allow_null=True)
    card_count = serializers.IntegerField()
    score = serializers.IntegerField()
    said_uno = serializers.BooleanField()
    timeouts = serializers.IntegerField()


class PendingOut(serializers.Serializer[Any]):
    type = serializers.ChoiceField(choices=["challenge", "choose_color", "drawn_card", "stack"])
    seat = serializers.IntegerField()
    amount = serializers.IntegerField(required=False, help_text="cards at stake (challenge, stack)")
    accused = serializers.IntegerField(
        required=False, help_text="seat that played the Wild Draw Four (challenge)"
    )
    card = CardOut(required=False, help_text="the card just drawn, shown to its seat only")


class YouOut(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    hand = CardOut(many=True)
    legal_moves = MoveOut(many=True)


class GameViewOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=GameStatus.values)
    version = serializers.IntegerField()
    host = PlayerRefOut()
    max_players = serializers.IntegerField()
    target_score = serializers.IntegerField()
    turn_timeout = serializers.IntegerField(allow_null=True)
    rules = RulesOut()
    created_at = serializers.DateTimeField()
    seats = SeatOut(many=True)
    round = serializers.IntegerField(allow_null=True)
    dealer = serializers.IntegerField(allow_null=True)
    current_seat = serializers.IntegerField(allow_null=True)
    direction = serializers.ChoiceField(choices=["clockwise", "counterclockwise"], allow_null=True)
    current_color = serializers.ChoiceField(choices=COLORS, allow_null=True)
    top_card = CardOut(allow_null=True)
    draw_pile_count = serializers.IntegerField(allow_null=True)
    discard_pile_count = serializers.IntegerField(allow_null=True)
    pending = PendingOut(allow_null=True)
    turn_deadline = serializers.DateTimeField(allow_null=True)
    winner = serializers.IntegerField(allow_null=True)
    last_seq = serializers.IntegerField()
    you = YouOut(allow_null=True)


class SummaryPlayerOut(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    player = PlayerRefOut(allow_null=True)
    bot = serializers.ChoiceField(choices=BotStrategy.values, allow_null=True)


class GameSummaryOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=GameStatus.values)
    host = PlayerRefOut()
    players = SummaryPlayerOut(many=True)
    max_players = serializers.IntegerField()
    rules = RulesOut()
    created_at = serializers.DateTimeField()


class EventOut(serializers.Serializer[Any]):
    seq = serializers.IntegerField(min_value=1)
    at = serializers.DateTimeField()
    round = serializers.IntegerField(allow_null=True)
    type = serializers.CharField()
    seat = serializers.IntegerField(allow_null=True)
    data = serializers.DictField(help_text="depends on type; see the API contract")


class MoveResultOut(serializers.Serializer[Any]):
    game = GameViewOut()
    events = EventOut(many=True)


class EventsPageOut(serializers.Serializer[Any]):
    events = EventOut(many=True)
    last_seq = serializers.IntegerField()
