"""Who a player keeps close and who they keep away: friend requests, friendships,
blocks, and the players whose table talk they mute. A friendship is two rows, one
from each side, so that a player's friends are one indexed read of their own rows."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class FriendRequest(models.Model):
    """`sender` asked `receiver` to be friends; gone once answered or cancelled."""

    id = models.BigAutoField(primary_key=True)
    sender = models.ForeignKey(
        "players.Player", on_delete=models.CASCADE, related_name="friend_requests_sent"
    )
    receiver = models.ForeignKey(
        "players.Player", on_delete=models.CASCADE, related_name="friend_requests_received"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["sender", "receiver"], name="friend_request_once"),
            models.CheckConstraint(
                condition=~models.Q(sender=models.F("receiver")), name="friend_request_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"friend request {self.sender_id} -> {self.receiver_id}"


class Friendship(models.Model):
    """`player` and `friend` are friends since `since` (the same row exists the other
    way round)."""

    id = models.BigAutoField(primary_key=True)
    player = models.ForeignKey(
        "players.Player", on_delete=models.CASCADE, related_name="friendships"
    )
    friend = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="+")
    since = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "friend"], name="friendship_once"),
            models.CheckConstraint(
                condition=~models.Q(player=models.F("friend")), name="friendship_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"friends {self.player_id} & {self.friend_id}"


class Block(models.Model):
    """`blocker` keeps `blocked` away: no request, invite, private join, quick match
    seat together or table talk from them reaches `blocker`."""

    id = models.BigAutoField(primary_key=True)
    blocker = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="blocks")
    blocked = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="block_once"),
            models.CheckConstraint(
                condition=~models.Q(blocker=models.F("blocked")), name="block_not_self"
            ),
        ]
        # Quick match asks which of a batch's players block one another, both ways.
        indexes = [models.Index(fields=["blocked", "blocker"], name="block_by_blocked")]

    def __str__(self) -> str:
        return f"{self.blocker_id} blocks {self.blocked_id}"


class TalkMute(models.Model):
    """`player` does not want to read `muted`'s table talk (a client's choice, lighter
    than a block: nothing else changes)."""

    id = models.BigAutoField(primary_key=True)
    player = models.ForeignKey(
        "players.Player", on_delete=models.CASCADE, related_name="talk_mutes"
    )
    muted = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "muted"], name="talk_mute_once"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} mutes {self.muted_id}"
