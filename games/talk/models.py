"""Table talk and what it brings: the messages of a game's table (kept
`talk.KEPT_DAYS` for reports, then deleted), players' reports of messages or
players for staff, and invites of friends to a game."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class MessageKind(models.TextChoices):
    PHRASE = "phrase"
    EMOTE = "emote"
    TEXT = "text"


class TableMessage(models.Model):
    """One message said at a game's table. Not an event of the game: it has its own
    ids (increasing, so they order a game's messages and resume a stream), and
    changes neither the game's version nor its log."""

    id = models.BigAutoField(primary_key=True)
    game = models.ForeignKey(
        "games.Game", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    sender = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="+")
    # The sender's seat when they sent it; None for a spectator.
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    kind = models.CharField(max_length=8, choices=MessageKind.choices)
    # The catalogue's key of a phrase or an emote; "" for free text.
    code = models.CharField(max_length=32, blank=True, default="")
    # What readers see: a phrase's words, an emote's symbol, or the free text masked.
    text = models.CharField(max_length=200)
    # Free text as it was typed, before masking: for staff reading a report only.
    typed = models.CharField(max_length=200, blank=True, default="")
    at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        indexes = [models.Index(fields=["game", "id"], name="table_message_by_game")]

    def __str__(self) -> str:
        return f"message {self.pk} in {self.game_id}"


class ReportReason(models.TextChoices):
    ABUSE = "abuse"
    SPAM = "spam"
    CHEATING = "cheating"
    NAME = "name"
    OTHER = "other"


class ReportStatus(models.TextChoices):
    OPEN = "open"
    WARNED = "warned"
    MUTED = "muted"
    DISABLED = "disabled"
    DISMISSED = "dismissed"


class Report(models.Model):
    """A player reported a message, or a player, of a game, for staff to judge. What
    was said is copied in (the message and those around it), since messages are
    deleted after `KEPT_DAYS` and the report may be read later."""

    id = models.BigAutoField(primary_key=True)
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    reporter = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="+")
    reported = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="+")
    message = models.ForeignKey(
        TableMessage, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.CharField(max_length=16, choices=ReportReason.choices)
    note = models.CharField(max_length=500, blank=True, default="")
    # The reported message and the ones around it, as staff read them:
    # [{"id", "at", "seat", "name", "text", "typed", "reported"}].
    context = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    status = models.CharField(
        max_length=16, choices=ReportStatus.choices, default=ReportStatus.OPEN, db_index=True
    )
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    handled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # One report of a message by a reader, however often they press the button.
            models.UniqueConstraint(
                fields=["reporter", "message"],
                condition=models.Q(message__isnull=False),
                name="report_message_once",
            ),
        ]

    def __str__(self) -> str:
        return f"report {self.pk} of {self.reported_id}"


class GameInvite(models.Model):
    """`by` invited their friend `player` to `game`: the invite shows on the
    friend's lobby stream and phone, and lets them join it though it is private."""

    id = models.BigAutoField(primary_key=True)
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="+")
    by = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="invite_once_per_game"),
        ]
        indexes = [models.Index(fields=["player", "game"], name="invite_by_player")]

    def __str__(self) -> str:
        return f"{self.by_id} invites {self.player_id} to {self.game_id}"
