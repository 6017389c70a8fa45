"""What the list of friends answers."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from players.social.serializers import FriendCodeOut, PlayerAtOut, SocialPlayerOut

OFFLINE, ONLINE, IN_GAME = "offline", "online", "in_game"


class PresenceOut(serializers.Serializer[Any]):
    status = serializers.ChoiceField(
        choices=[OFFLINE, ONLINE, IN_GAME],
        help_text="in_game: seated in a waiting or running game; online: seen in the last "
        "half minute; else offline",
    )
    game = serializers.UUIDField(
        allow_null=True,
        help_text="the game they sit in, when it is public, you play in it, or they "
        "invited you to it; else null",
    )


class FriendOut(serializers.Serializer[Any]):
    player = SocialPlayerOut()
    since = serializers.DateTimeField(help_text="when you became friends")
    presence = PresenceOut()


class FriendCapsOut(serializers.Serializer[Any]):
    friends = serializers.IntegerField(help_text="friends one player may have")
    outgoing = serializers.IntegerField(help_text="requests one may have waiting for an answer")


class FriendsOut(FriendCodeOut):
    friends = FriendOut(
        many=True, help_text="in a game first, then online, then offline; by name within each"
    )
    incoming = PlayerAtOut(many=True, help_text="requests waiting for your answer, oldest first")
    outgoing = PlayerAtOut(many=True, help_text="your requests waiting for theirs, oldest first")
    caps = FriendCapsOut()
