"""What staff do with a report (the admin's actions call these, and nothing else
changes a report or a player's table talk): warn the reported player, mute their
table talk for a while, disable their account, or dismiss the report. Each marks
the report handled, by whom and when."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from django.db import transaction
from django.utils import timezone

from games.talk import selectors
from games.talk.models import Report, ReportStatus
from players.models import Player
from players.services import player_disable
from unoservice.notices import note

log = logging.getLogger(__name__)

# The lobby-stream event a warned player receives.
WARNING_EVENT = "talk_warning"
# How long staff may mute a player's table talk from the admin.
MUTE_PERIODS: dict[str, dt.timedelta] = {
    "1 hour": dt.timedelta(hours=1),
    "1 day": dt.timedelta(days=1),
    "7 days": dt.timedelta(days=7),
}
MAX_MUTE_REASON_LENGTH = 200


def player_talk_mute(*, player_id: Any, until: dt.datetime, reason: str) -> Player:
    """Staff mute `player_id`'s table talk until `until` (`talk_muted` to every
    message before then), saying why. A longer mute already set stays. Locks the
    player row."""
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_id)
        current = player.talk_muted_until
        if current is None or current < until:
            player.talk_muted_until = until
        player.talk_muted_reason = reason.strip()[:MAX_MUTE_REASON_LENGTH]
        player.save(update_fields=["talk_muted_until", "talk_muted_reason"])
    log.info("table talk of player %s muted until %s", player.pk, player.talk_muted_until)
    return player


def _handled(report: Report, status: str, by: Any) -> Report:
    """Mark the locked `report` handled by the staff user `by` (caller's lock)."""
    report.status = status
    report.handled_by_id = getattr(by, "pk", None)
    report.handled_at = timezone.now()
    report.save(update_fields=["status", "handled_by", "handled_at"])
    return report


def _reason_of(report: Report) -> str:
    return f"reported for {report.get_reason_display().lower()}"


def report_warn(*, report_id: int, by: Any) -> Report:
    """Warn the reported player: their lobby streams receive `talk_warning` with the
    report's reason once this commits. Locks the report row."""
    with transaction.atomic():
        report = selectors.report_locked(report_id)
        note(report.reported_id, WARNING_EVENT, {"reason": report.reason})
        return _handled(report, ReportStatus.WARNED, by)


def report_mute(*, report_id: int, period: dt.timedelta, by: Any) -> Report:
    """Mute the reported player's table talk for `period` from now. Locks the report
    row, then the player's."""
    with transaction.atomic():
        report = selectors.report_locked(report_id)
        player_talk_mute(
            player_id=report.reported_id, until=timezone.now() + period, reason=_reason_of(report)
        )
        return _handled(report, ReportStatus.MUTED, by)


def report_disable(*, report_id: int, by: Any) -> Report:
    """Disable the reported player's account (`players.services.player_disable`: every
    token refused, streams ended). Locks the report row, then the player's."""
    with transaction.atomic():
        report = selectors.report_locked(report_id)
        username = by.get_username() if hasattr(by, "get_username") else str(by)
        player_disable(
            player_id=report.reported_id,
            by=username,
            reason=f"report {report.pk}: {_reason_of(report)}",
        )
        return _handled(report, ReportStatus.DISABLED, by)


def report_dismiss(*, report_id: int, by: Any) -> Report:
    """Close the report without acting on the player. Locks the report row."""
    with transaction.atomic():
        report = selectors.report_locked(report_id)
        return _handled(report, ReportStatus.DISMISSED, by)
