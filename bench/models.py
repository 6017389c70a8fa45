"""Tables of the load benchmark's floor (bench/floor.py), shaped like the two a move
writes: `BenchRow` stands for the locked and updated Game row, `BenchLog` for the
appended Event row (a foreign key and a unique (row, seq) index, like Event's).

Only present when the BENCH_FLOOR setting is on; production never has them.
"""

from __future__ import annotations

from django.db import models


class BenchRow(models.Model):
    # One row per benchmark player (its id), so concurrent clients do not contend,
    # just as each client of the move phase locks its own game.
    owner = models.UUIDField(unique=True)
    counter = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"bench row {self.owner} ({self.counter})"


class BenchLog(models.Model):
    row = models.ForeignKey(BenchRow, on_delete=models.CASCADE, related_name="log")
    seq = models.PositiveIntegerField()
    data = models.JSONField(default=dict)
    at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["row", "seq"], name="unique_seq_per_bench_row"),
        ]

    def __str__(self) -> str:
        return f"{self.row_id} #{self.seq}"
