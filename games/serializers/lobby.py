"""The lobby's bodies: creating a game, quick match, joining by code, adding a bot,
a rematch and invites of friends, and a game's summary as the lobby lists it."""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.utils import OpenApiExample
from rest_framework import serializers

from games.engine.state import MAX_PLAYERS, MAX_TARGET_SCORE, MIN_PLAYERS
from games.models import GameStatus, Visibility
from games.serializers.common import (
    BOT_STRATEGIES,
    DECK_NAMES,
    MAX_TURN_TIMEOUT,
    MIN_TURN_TIMEOUT,
    MODES,
    SHUFFLE_HANDS_ENDS,
    VISIBILITIES,
    WILD_CUSTOMIZABLE_EFFECTS,
    PlayerRefOut,
    RulesOut,
    client_seed_field,
    seat_field,
    unrated_reason_field,
)
from games.services import (
    DEFAULT_BOTS_AFTER,
    MAX_BOTS_AFTER,
    MAX_INVITES_PER_GAME,
    MAX_REMATCH_INVITES,
    MIN_BOTS_AFTER,
)
from unoservice.codes import ALPHABET, CODE_LENGTH, MAX_TYPED_LENGTH, TYPED_PATTERN
from unoservice.fields import (
    MAX_EXACT_INTEGER,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
    StrictUUIDField,
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
    mode = serializers.ChoiceField(
        choices=MODES,
        default="classic",
        help_text="classic: every seat for itself; partners: four seats, 0 and 2 against 1 "
        "and 3, each team scoring together (max_players must be 4)",
    )
    partners_see_hands = StrictBooleanField(
        default=False,
        help_text="partners only: each player sees their partner's hand as well as their own",
    )
    deck = serializers.ChoiceField(
        choices=DECK_NAMES,
        default="classic_108",
        help_text="classic_108: the classic deck; modern_112: the deck in the box since "
        "2018, with one Wild Shuffle Hands and three Wild Customizable",
    )
    shuffle_hands_last_card = serializers.ChoiceField(
        choices=SHUFFLE_HANDS_ENDS,
        default="redeal",
        help_text="modern_112 only: a Wild Shuffle Hands played as the last card is still "
        "dealt out, so its player does not go out (redeal), or goes out (wins)",
    )
    wild_customizable = serializers.ChoiceField(
        choices=WILD_CUSTOMIZABLE_EFFECTS,
        default="wild",
        help_text="modern_112 only: what the three Wild Customizable do: wild (a plain "
        "Wild), everyone_draws_one, swap_hands (with a seat its player names), "
        "discard_color (every card of the colour named) or skip_everyone (its player "
        "plays again)",
    )
    free_text = StrictBooleanField(
        required=False,
        help_text="whether players may type free text at the table, beside the "
        "catalogue's phrases and emotes; left out: true for a private game, false for a "
        "public one",
    )


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
    client_seed = client_seed_field()
    mode = serializers.ChoiceField(
        choices=MODES,
        default="classic",
        help_text="partners: the partners queue, four seats, 0 and 2 against 1 and 3 "
        "(max_players must be 4)",
    )
    partner = StrictUUIDField(
        required=False,
        help_text="partners only: a friend's player id, to sit on one team with them; "
        "each of the two names the other. Left out: any partner the queue finds",
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


class InviteCodeIn(StrictSerializer):
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


class JoinByCodeIn(InviteCodeIn):
    client_seed = client_seed_field()


class SeatIn(StrictSerializer):
    """The optional body of a join or a start: the caller's seed for the deal."""

    client_seed = client_seed_field()


JOIN_BY_CODE_EXAMPLES = [
    OpenApiExample(
        "Join by invite code",
        value={"code": "K7MQ-X2RP"},
        description="The code as the game's host passed it on; case, spaces and hyphens "
        "do not matter.",
        request_only=True,
    )
]


class RematchIn(StrictSerializer):
    invite = serializers.ListField(
        child=StrictUUIDField(),
        required=False,
        max_length=MAX_REMATCH_INVITES,
        help_text=f"ids of friends to invite to the rematch (at most {MAX_REMATCH_INVITES}), "
        "as `POST /games/{id}/invites` does; those already seated there are left out",
    )


class InviteIn(StrictSerializer):
    player = StrictUUIDField(help_text="the id of the friend to invite")


class InviteOut(serializers.Serializer[Any]):
    game = serializers.UUIDField()
    player = PlayerRefOut(help_text="the friend invited")
    by = PlayerRefOut(help_text="who invited them (the last to send the invite)")
    created_at = serializers.DateTimeField(
        help_text="when the invite was last sent: again at most once a minute, of at most "
        f"{MAX_INVITES_PER_GAME} invites a game"
    )


INVITE_EXAMPLES = [
    OpenApiExample(
        "Invite a friend",
        value={"player": "9a4d0c3b-51e2-4b7a-8f6d-0e2c4a1b9d77"},
        description="A friend's id, as `GET /players/me/friends` lists it.",
        request_only=True,
    )
]

REMATCH_EXAMPLES = [
    OpenApiExample(
        "A rematch, with two friends invited",
        value={
            "invite": [
                "9a4d0c3b-51e2-4b7a-8f6d-0e2c4a1b9d77",
                "2e7b4c1d-83f0-4a96-b5d2-6c0e9f1a3b58",
            ]
        },
        description="The body may be left out: a rematch without invites.",
        request_only=True,
    )
]


class BotIn(StrictSerializer):
    strategy = serializers.ChoiceField(choices=BOT_STRATEGIES)


class SeatingIn(StrictSerializer):
    order = serializers.ListField(
        child=StrictIntegerField(min_value=0, max_value=MAX_PLAYERS - 1),
        min_length=1,
        max_length=MAX_PLAYERS,
        help_text="for each seat from 0 up, the seat whose holder moves there: each seat "
        "taken, once. In partners, seats 0 and 2 play against 1 and 3",
    )


class SummaryPlayerOut(serializers.Serializer[Any]):
    seat = seat_field()
    player = PlayerRefOut(allow_null=True)
    bot = serializers.ChoiceField(choices=BOT_STRATEGIES, allow_null=True)


class InvitationOut(serializers.Serializer[Any]):
    host = PlayerRefOut(help_text="whose game it is")
    seats_taken = serializers.IntegerField(min_value=1, max_value=MAX_PLAYERS)
    max_players = serializers.IntegerField(min_value=MIN_PLAYERS, max_value=MAX_PLAYERS)
    status = serializers.ChoiceField(choices=[GameStatus.WAITING, GameStatus.PLAYING])


class GameSummaryOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=GameStatus.values)
    host = PlayerRefOut()
    players = SummaryPlayerOut(many=True)
    max_players = serializers.IntegerField(min_value=MIN_PLAYERS, max_value=MAX_PLAYERS)
    target_score = serializers.IntegerField(min_value=0, max_value=MAX_TARGET_SCORE)
    mode = serializers.ChoiceField(choices=MODES)
    deck = serializers.ChoiceField(choices=DECK_NAMES)
    shuffle_hands_last_card = serializers.ChoiceField(choices=SHUFFLE_HANDS_ENDS, allow_null=True)
    wild_customizable = serializers.ChoiceField(choices=WILD_CUSTOMIZABLE_EFFECTS, allow_null=True)
    rules = RulesOut()
    visibility = serializers.ChoiceField(choices=VISIBILITIES)
    rated = serializers.BooleanField()
    unrated_reason = unrated_reason_field()
    created_at = serializers.DateTimeField()
    round = serializers.IntegerField(
        min_value=1,
        allow_null=True,
        help_text="the round being played or last played; null before the deal",
    )
    to_act = seat_field(
        allow_null=True,
        help_text="the seat whose turn or decision it is (the view's `current_seat`, or "
        "`pending.seat` while a decision waits); null unless the game is playing and not "
        "paused",
    )
    your_turn = serializers.BooleanField(
        help_text="whether that seat is yours: the game waits for your move"
    )
    turn_deadline = serializers.DateTimeField(
        allow_null=True,
        help_text="when the human to act times out, as in the view; null without a turn "
        "timer, with a bot to act, paused, or over",
    )


_ANN = {"id": "6f1c2b7e-0d3a-4c59-9b1e-2a7d5c3e8f10", "name": "Ann", "tag": "DWE2"}
_BOB = {"id": "9a4d0c3b-51e2-4b7a-8f6d-0e2c4a1b9d77", "name": "Bob", "tag": "K96G"}

GAME_LIST_EXAMPLES = [
    OpenApiExample(
        "A game over days, waiting for your move",
        value={
            "id": "c4e2a9d1-7b35-4f08-a6c3-91d0e5b27f44",
            "status": "playing",
            "host": _ANN,
            "players": [
                {"seat": 0, "player": _ANN, "bot": None},
                {"seat": 1, "player": _BOB, "bot": None},
            ],
            "max_players": 2,
            "target_score": 500,
            "mode": "classic",
            "deck": "classic_108",
            "shuffle_hands_last_card": None,
            "wild_customizable": None,
            "rules": {
                "stacking": False,
                "seven_o": False,
                "jump_in": False,
                "draw_until_playable": False,
                "force_play": False,
            },
            "visibility": "private",
            "rated": True,
            "unrated_reason": None,
            "created_at": "2026-05-11T19:02:44.310000+00:00",
            "round": 3,
            "to_act": 1,
            "your_turn": True,
            "turn_deadline": "2026-05-17T08:15:03.527000+00:00",
        },
        description="As Bob reads `GET /games?mine=true&your_turn=true`: Ann played, "
        "and Bob has until the deadline (turns of three days) to answer.",
        response_only=True,
    )
]
