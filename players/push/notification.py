"""What is sent to a player's devices: one `Notification`, made by the game side,
carried through Celery as JSON, and its payload, the JSON a device receives."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import asdict, dataclass, field
from typing import Any

# What a player can be told, each one switched on or off in their settings.
KINDS = (
    "your_turn",
    "match_found",
    "rematch_offered",
    "game_finished",
    "seat_taken_over",
    "game_invite",
)
# Web Push services take 4 KB of payload; a notification is kept well under it.
MAX_PAYLOAD_BYTES = 3072


def moment(text: str) -> dt.datetime:
    """An ISO 8601 time; one without an offset is UTC, as every time of the service."""
    when = dt.datetime.fromisoformat(text)
    return when if when.tzinfo is not None else when.replace(tzinfo=dt.UTC)


@dataclass(frozen=True)
class Notification:
    kind: str
    player_id: str
    game_id: str
    text: str
    seat: int | None = None
    # ISO 8601: the turn's deadline, when there is one.
    deadline: str | None = None
    # Where a client opens it, e.g. "/play/games/<id>".
    path: str = ""
    # ISO 8601: the push services keep it until then (None: PUSH_DEFAULT_TTL).
    expires_at: str | None = None
    # ISO 8601: when the change that caused it committed (the delivery metric's start).
    changed_at: str | None = None
    # Fields of the kind merged into the payload, e.g. {"resume": ...}, {"reminder": true}.
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown notification kind {self.kind!r}")

    def payload(self) -> dict[str, Any]:
        """The JSON a device receives."""
        return {
            "kind": self.kind,
            "game": self.game_id,
            "seat": self.seat,
            "deadline": self.deadline,
            "text": self.text,
            "path": self.path,
            **self.extra,
        }

    def payload_bytes(self) -> bytes:
        return json.dumps(self.payload(), separators=(",", ":")).encode()

    @property
    def topic(self) -> str:
        """One notification per game at a time on a device: a newer one replaces
        the older (Web Push Topic, FCM collapse key). The game's uuid as 32 hex
        digits, within Web Push's 32 base64url characters."""
        return self.game_id.replace("-", "")

    def ttl(self, *, now: dt.datetime, default: int) -> int:
        """Seconds the push services keep it for a device that is offline."""
        if self.expires_at is None:
            return default
        return max(int((moment(self.expires_at) - now).total_seconds()), 0)

    def expired(self, now: dt.datetime) -> bool:
        return self.expires_at is not None and moment(self.expires_at) <= now

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Notification:
        return cls(**data)
