"""A game as its reader sees it (seats, the pending decision, their own hand and
legal moves), and the answer to a move: the new view and the events it caused."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games.engine.state import MAX_PLAYERS, MAX_TARGET_SCORE, MIN_PLAYERS
from games.models import GameStatus
from games.serializers.common import (
    BOT_STRATEGIES,
    COLORS,
    DECK_NAMES,
    DIRECTIONS,
    HEX_256_PATTERN,
    INVITE_CODE_PATTERN,
    MAX_TURN_TIMEOUT,
    MIN_TURN_TIMEOUT,
    MODES,
    PENDING_TYPES,
    SHUFFLE_HANDS_ENDS,
    VISIBILITIES,
    WILD_CUSTOMIZABLE_EFFECTS,
    CardOut,
    PlayerRefOut,
    RulesOut,
    count_field,
    deal_algorithm_field,
    seat_field,
    unrated_reason_field,
)
from games.serializers.events import EventOut
from games.serializers.moves import MoveIn


class SeatOut(serializers.Serializer[Any]):
    seat = seat_field()
    player = PlayerRefOut(allow_null=True)
    bot = serializers.ChoiceField(choices=BOT_STRATEGIES, allow_null=True)
    card_count = count_field()
    score = count_field()
    said_uno = serializers.BooleanField()
    timeouts = count_field()
    online = serializers.BooleanField(
        help_text="the seat's player has a stream open (of any game) or made a request in "
        "the last 30 seconds; always true for a bot"
    )
    team = serializers.IntegerField(
        min_value=0,
        max_value=1,
        allow_null=True,
        help_text="partners: team 0 (seats 0 and 2) or team 1 (seats 1 and 3); null in a "
        "classic game",
    )


class PendingOut(serializers.Serializer[Any]):
    type = serializers.ChoiceField(choices=PENDING_TYPES)
    seat = seat_field()
    amount = count_field(required=False, help_text="cards at stake (challenge, stack)")
    accused = seat_field(
        required=False, help_text="seat that played the Wild Draw Four (challenge)"
    )
    card = CardOut(required=False, help_text="the card just drawn, shown to its seat only")


class YouOut(serializers.Serializer[Any]):
    seat = seat_field()
    hand = CardOut(many=True)
    legal_moves = MoveIn(
        many=True,
        help_text="every move you may send now, each a whole `/moves` body with the "
        "game's current `version` (add `uno: true` to a play with your second-to-last card)",
    )
    partner_hand = CardOut(
        many=True,
        allow_null=True,
        help_text="partners with `partners_see_hands`, while the game runs: your partner's "
        "hand; null otherwise",
    )
    client_seed = serializers.CharField(
        allow_null=True,
        help_text="your seed for the deal, as sent or as made for you (see Fair deals); "
        "nobody else sees it before the game is over; null for a game dealt from a seed "
        "chosen by staff, or before deals took players' seeds",
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
    unrated_reason = unrated_reason_field()
    invite_code = serializers.RegexField(
        INVITE_CODE_PATTERN,
        allow_null=True,
        help_text="a private game's invite code, shown to its seated players only; null "
        "for anyone else and for public games",
    )
    created_at = serializers.DateTimeField()
    seats = SeatOut(many=True)
    spectators = count_field(
        help_text="streams open on this game by viewers who hold no seat in it (as of the "
        "last change of the game, in a stream's view)"
    )
    round = serializers.IntegerField(min_value=1, allow_null=True)
    dealer = seat_field(allow_null=True)
    current_seat = seat_field(allow_null=True)
    direction = serializers.ChoiceField(choices=DIRECTIONS, allow_null=True)
    current_color = serializers.ChoiceField(choices=COLORS, allow_null=True)
    top_card = CardOut(allow_null=True)
    draw_pile_count = count_field(allow_null=True)
    discard_pile_count = count_field(allow_null=True)
    pending = PendingOut(allow_null=True)
    turn_deadline = serializers.DateTimeField(allow_null=True)
    paused_until = serializers.DateTimeField(
        allow_null=True,
        help_text="while no human sits at the table and a timed-out player may still "
        "resume: nobody moves until then, and the game is abandoned at this time",
    )
    winner = seat_field(allow_null=True)
    rematch = serializers.UUIDField(
        allow_null=True,
        help_text="once the game is over and one of its players asked for the next game "
        "with the same settings: that game's id; otherwise null",
    )
    quick_match = serializers.BooleanField(
        help_text="whether the game was made by quick match (`POST /matchmaking`), which "
        "starts it by itself once full"
    )
    free_text = serializers.BooleanField(
        help_text="whether players may type free text at the table, beside the "
        "catalogue's phrases and emotes (the host's choice when creating the game; off in "
        "quick-match games)"
    )
    bots_at = serializers.DateTimeField(
        allow_null=True,
        help_text="while a quick-match game waits: when its empty seats go to greedy bots "
        "and it starts; null otherwise, or when it waits for humans only",
    )
    mode = serializers.ChoiceField(choices=MODES, help_text="classic, or partners (2 v 2)")
    partners_see_hands = serializers.BooleanField(
        help_text="partners: whether each player sees their partner's hand"
    )
    deck = serializers.ChoiceField(
        choices=DECK_NAMES, help_text="classic_108, or modern_112 (the 112-card deck)"
    )
    shuffle_hands_last_card = serializers.ChoiceField(
        choices=SHUFFLE_HANDS_ENDS,
        allow_null=True,
        help_text="modern_112: whether a last Wild Shuffle Hands is dealt out (redeal) or "
        "goes out (wins); null for the classic deck",
    )
    wild_customizable = serializers.ChoiceField(
        choices=WILD_CUSTOMIZABLE_EFFECTS,
        allow_null=True,
        help_text="modern_112: what the Wild Customizable cards do; null for the classic deck",
    )
    deal_algorithm = deal_algorithm_field()
    deal_commitment = serializers.RegexField(
        HEX_256_PATTERN,
        help_text="SHA-256 of the seed every round is dealt from, published from the "
        "game's creation and never changed: once the game is over its log reveals the "
        "seed (see Fair deals)",
    )
    last_seq = count_field()
    you = YouOut(allow_null=True)


class MoveResultOut(serializers.Serializer[Any]):
    game = GameViewOut()
    events = EventOut(many=True)
