"""What a push service's answer means for a device, whatever the channel."""

from __future__ import annotations

import datetime as dt
import email.utils
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

# sent: accepted; gone: the device no longer exists (delete it); retry: try again
# later (429, 5xx, no answer); failed: refused for good.
Outcome = Literal["sent", "gone", "retry", "failed"]


@dataclass(frozen=True)
class Answer:
    outcome: Outcome
    # None: no answer came (a network error, a timeout).
    status: int | None
    # Seconds the push service asked to wait before trying again.
    retry_after: float | None = None
    detail: str = ""


def by_status(status: int, headers: Mapping[str, str], *, gone: bool, detail: str = "") -> Answer:
    """The answer of an HTTP status: 2xx sent; `gone` (the channel knows the device
    no longer exists: 404, 410, ...) deleted; 429 and 5xx retried after Retry-After;
    any other refusal failed."""
    if 200 <= status < 300:
        return Answer("sent", status)
    if gone:
        return Answer("gone", status, detail=detail)
    if status == 429 or status >= 500:
        return Answer("retry", status, retry_after_seconds(headers.get("Retry-After")), detail)
    return Answer("failed", status, detail=detail)


def no_answer(error: Exception) -> Answer:
    return Answer("retry", None, detail=f"{type(error).__name__}: {error}")


def retry_after_seconds(value: str | None, now: dt.datetime | None = None) -> float | None:
    """Retry-After as seconds: a number of seconds, or an HTTP date (RFC 9110);
    None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    now = now or dt.datetime.now(dt.UTC)
    return max((when - now).total_seconds(), 0.0)
