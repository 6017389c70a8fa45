"""The stored first answers to requests sent with an ``Idempotency-Key``."""

from __future__ import annotations

from django.db import models

from players.models import Player


class IdempotencyRecord(models.Model):
    """The first answer to a request sent with an `Idempotency-Key`, kept 24 hours."""

    # None for requests made without a token (creating a player).
    player = models.ForeignKey(Player, null=True, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["player", "key"],
                condition=models.Q(player__isnull=False),
                name="unique_idempotency_key",
            ),
            models.UniqueConstraint(
                fields=["key"],
                condition=models.Q(player__isnull=True),
                name="unique_anonymous_idempotency_key",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.status_code})"
