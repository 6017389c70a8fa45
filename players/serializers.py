"""What the players' endpoints take and answer, and the page parameter of their lists."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema_field
from rest_framework import serializers

from players import services, sessions, standings
from players.models import TAG_ALPHABET, TAG_LENGTH, IdentityKind, Player
from players.push.serializers import NotificationSettingsOut
from unoservice.fields import StrictCharField, StrictSerializer
from unoservice.schema import optional_trimmed_text_pattern, trimmed_text_pattern


@extend_schema_field(
    {
        "type": "string",
        "format": "printable",
        "maxLength": 200,
        "pattern": trimmed_text_pattern(services.MAX_NAME_LENGTH),
        "description": f"1-{services.MAX_NAME_LENGTH} printable characters (as Python's "
        "str.isprintable: no control, format, private-use, unassigned or separator "
        "characters but the plain space) once the whitespace around them is trimmed off, "
        "not mixing scripts whose letters look alike (Unicode TR39 confusables: a Cyrillic "
        "\u0410 among Latin letters is refused; digits, punctuation and emoji go with any script)",
    }
)
class PlayerNameField(StrictCharField):
    pass


@extend_schema_field(
    {
        "type": "string",
        "format": "printable",
        "maxLength": 200,
        "pattern": optional_trimmed_text_pattern(sessions.MAX_SESSION_NAME_LENGTH),
        "description": "what the session list calls this device: nothing, or 1-"
        f"{sessions.MAX_SESSION_NAME_LENGTH} printable characters (as for a player's name) "
        "once the whitespace around them is trimmed off",
    }
)
class DeviceNameField(StrictCharField):
    pass


class PlayerCreateIn(StrictSerializer):
    name = PlayerNameField(max_length=200, trim_whitespace=False)
    device = DeviceNameField(
        max_length=200, required=False, allow_blank=True, trim_whitespace=False
    )


class PlayerChangeIn(StrictSerializer):
    """What a player may change of themselves; what is left out stays."""

    name = PlayerNameField(max_length=200, trim_whitespace=False, required=False)


def tag_field(**options: Any) -> serializers.RegexField:
    """A player's tag (`players.models.player_tag`), wherever others read their name."""
    return serializers.RegexField(
        rf"^[{TAG_ALPHABET}]{{{TAG_LENGTH}}}$",
        help_text=f"{TAG_LENGTH} characters from the player's id, shown after their name "
        "(Ann#K7MQ) so that players of one name can be told apart; null for a bot, "
        "absent from the seats of games from before tags were shown",
        **options,
    )


class PlayerNameOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    name = serializers.CharField()
    tag = tag_field(required=False)


class PlayerCreatedOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    name = serializers.CharField(min_length=1, max_length=services.MAX_NAME_LENGTH)
    token = serializers.CharField(help_text="send as 'Authorization: Bearer <token>'")
    session = serializers.UUIDField(help_text="the id of this device's session")


class SessionOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    device = serializers.CharField(
        allow_blank=True, help_text="what the device was called when it signed in"
    )
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField()
    network = serializers.CharField(
        allow_blank=True,
        help_text="where it was last used from: an IPv4 address, or an IPv6 /64",
    )
    current = serializers.BooleanField(help_text="the session of the request's token")


class IdentityOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    kind = serializers.ChoiceField(choices=IdentityKind.values)
    email = serializers.CharField(
        allow_blank=True,
        help_text="the address; for Google or Apple, the account's verified address if "
        "its ID token carried one",
    )
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True, help_text="the last sign-in with it")


def stats_json(player: Player) -> dict[str, int]:
    return {
        "games_played": player.games_played,
        "games_won": player.games_won,
        "rounds_won": player.rounds_won,
        "points": player.points,
        "partners_games_played": player.partners_games_played,
        "partners_games_won": player.partners_games_won,
    }


class StatsOut(serializers.Serializer[Any]):
    games_played = serializers.IntegerField(min_value=0)
    games_won = serializers.IntegerField(min_value=0)
    rounds_won = serializers.IntegerField(min_value=0)
    points = serializers.IntegerField(min_value=0)
    partners_games_played = serializers.IntegerField(
        min_value=0, help_text="partners (2 v 2) games finished, counted apart from games_played"
    )
    partners_games_won = serializers.IntegerField(
        min_value=0, help_text="partners games the player's team won"
    )


class RatingOut(serializers.Serializer[Any]):
    mu = serializers.FloatField(help_text="the estimate of the skill")
    sigma = serializers.FloatField(help_text="its uncertainty")
    ordinal = serializers.FloatField(help_text="mu - 3 sigma: what the leaderboard ranks by")
    games = serializers.IntegerField(min_value=0, help_text="rated games played")


class RatingChangeOut(serializers.Serializer[Any]):
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField()


RANK_HELP = (
    "on the leaderboard; null while the rating is provisional, or when an operator hid "
    "the player from the leaderboard"
)
PROVISIONAL_HELP = (
    f"true until the record the leaderboard asks for: {standings.MIN_GAMES_TO_RANK} rated "
    f"games, against {standings.MIN_OPPONENTS_TO_RANK} different human opponents"
)
OPPONENTS_HELP = (
    f"different human opponents met in rated games, counted up to {standings.MIN_OPPONENTS_TO_RANK}"
)


class PlayerMeOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    name = serializers.CharField(min_length=1, max_length=services.MAX_NAME_LENGTH)
    stats = StatsOut()
    rating = RatingOut()
    rank = serializers.IntegerField(min_value=1, allow_null=True, help_text=RANK_HELP)
    provisional = serializers.BooleanField(help_text=PROVISIONAL_HELP)
    opponents = serializers.IntegerField(
        min_value=0, max_value=standings.MIN_OPPONENTS_TO_RANK, help_text=OPPONENTS_HELP
    )
    notifications = NotificationSettingsOut(
        help_text="what the player is notified of while away (PATCH /players/me/notifications)"
    )
    recoverable = serializers.BooleanField(
        help_text="whether the account can sign in again on a new device: false for a "
        "guest with nothing linked, whose account is lost with its devices"
    )
    identities = IdentityOut(many=True, help_text="the email addresses and accounts linked")
    password_set = serializers.BooleanField(
        help_text="whether a password signs in with the linked email address"
    )


class RatedRefOut(serializers.Serializer[Any]):
    id = serializers.CharField(help_text="a player's id, or bot:<strategy>")
    name = serializers.CharField()
    tag = tag_field(allow_null=True)
    bot = serializers.CharField(allow_null=True, help_text="the strategy, for a bot")


class LeaderboardEntryOut(serializers.Serializer[Any]):
    rank = serializers.IntegerField(min_value=1, help_text="equal ordinals share a rank")
    player = RatedRefOut()
    rating = RatingOut()


PAGE_PARAMETER = OpenApiParameter(
    "page",
    {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "string", "enum": ["last", ""]}]},
    description="a page number (50 a page), or 'last'",
)
