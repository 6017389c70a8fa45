"""Reading a game's past: a page of events (and the long poll's wait), the whole
log with its seeds, and the table after any event."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games.serializers.common import (
    COLORS,
    DIRECTIONS,
    HEX_256_PATTERN,
    MAX_WAIT_SECONDS,
    CardOut,
    count_field,
    deal_algorithm_field,
    seat_field,
)
from games.serializers.events import EventOut
from games.serializers.lobby import GameSummaryOut
from games.serializers.view import PendingOut
from unoservice.fields import (
    MAX_EXACT_INTEGER,
    QueryIntegerField,
)


class EventsQuery(serializers.Serializer[Any]):
    after = QueryIntegerField(min_value=0, default=0, help_text="return the events after this seq")
    wait = QueryIntegerField(
        min_value=0,
        max_value=MAX_WAIT_SECONDS,
        default=0,
        help_text="long poll: seconds to wait for an event when there is none yet",
    )


class EventsPageOut(serializers.Serializer[Any]):
    events = EventOut(many=True)
    last_seq = count_field()


class DealOut(serializers.Serializer[Any]):
    algorithm = deal_algorithm_field()
    commitment = serializers.RegexField(
        HEX_256_PATTERN, help_text="the view's `deal_commitment`: SHA-256 of the seed"
    )
    server_seed = serializers.CharField(
        allow_null=True,
        help_text="once the game is over: the seed the commitment hashes (64 hex digits "
        "for `uno-deal/1`, decimal digits before); null until then, for every reader",
    )
    client_seeds = serializers.ListField(
        child=serializers.CharField(allow_blank=True),
        allow_null=True,
        help_text="once the game is over: every seat's client seed, by seat (empty for a "
        "bot's seat; an empty list for a Mersenne Twister deal); null until then",
    )
    round_seeds = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="once the game is over: each round's seed, round 1 first (hex for "
        "`uno-deal/1`, decimal before); null until then",
    )


class LogOut(serializers.Serializer[Any]):
    game = GameSummaryOut()
    complete = serializers.BooleanField(
        help_text="true once the game is over (and always for staff): every card shown; "
        "the seeds are shown only once the game is over, to everyone"
    )
    seed = serializers.IntegerField(
        allow_null=True,
        min_value=-MAX_EXACT_INTEGER,
        max_value=MAX_EXACT_INTEGER,
        help_text="the integer seed of an `mt19937` deal; null until the game is over, for "
        "a `uno-deal/1` deal (see `deal`), and for a game created before seeds were drawn "
        "below 2^53 whose seed is larger (see `seed_text`)",
    )
    seed_text = serializers.CharField(
        allow_null=True,
        help_text="the integer seed in decimal, exact in every language; null until the "
        "game is over, and for a `uno-deal/1` deal",
    )
    seeds = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=MAX_EXACT_INTEGER),
        allow_null=True,
        help_text="each round's integer seed, round 1 first; null until the game is over, "
        "for a `uno-deal/1` deal, and for a game dealt before round seeds were drawn below "
        "2^53 (see `seeds_text`)",
    )
    seeds_text = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="each round's integer seed in decimal, round 1 first, exact in every "
        "language; null until the game is over, and for a `uno-deal/1` deal",
    )
    deal_commitment = serializers.RegexField(
        HEX_256_PATTERN, help_text="as in the game's view: SHA-256 of the seed"
    )
    deal = DealOut(help_text="how the game was dealt, and its seeds once it is over")
    events = EventOut(many=True)


class ReplayQuery(serializers.Serializer[Any]):
    seq = QueryIntegerField(min_value=1, help_text="show the table after this event")


class ReplayOut(serializers.Serializer[Any]):
    seq = serializers.IntegerField(min_value=1)
    round = serializers.IntegerField(min_value=1, allow_null=True)
    dealer = seat_field(required=False)
    hands = serializers.DictField(
        child=CardOut(many=True), help_text="every hand, by seat number (a string key)"
    )
    draw_pile = CardOut(many=True, help_text="the next card to draw first")
    discard_pile = CardOut(many=True, help_text="the top card last")
    top_card = CardOut(required=False, allow_null=True)
    current_seat = seat_field(allow_null=True)
    current_color = serializers.ChoiceField(choices=COLORS, allow_null=True)
    direction = serializers.ChoiceField(choices=DIRECTIONS, allow_null=True)
    pending = PendingOut(allow_null=True)
    scores = serializers.ListField(child=serializers.IntegerField(min_value=0))
