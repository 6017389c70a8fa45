"""Table talk is kept `TALK_KEPT_DAYS` for reports, then deleted by the task beat
runs hourly (`games.table_talk_purge`)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings
from django.utils import timezone

from games import tasks
from games.talk.models import Report, TableMessage
from tests.factories import TableMessageFactory

pytestmark = pytest.mark.django_db


def test_beat_runs_the_purge_hourly():
    entry = settings.CELERY_BEAT_SCHEDULE["purge-table-talk"]
    assert entry["task"] == tasks.purge_table_talk.name == "games.table_talk_purge"
    assert entry["schedule"] == 3600.0


def test_the_purge_deletes_only_messages_older_than_the_days_kept(host, guest, table):
    now = timezone.now()
    kept = dt.timedelta(days=settings.TALK_KEPT_DAYS)
    old = TableMessageFactory(
        game=table, sender=guest.player, at=now - kept - dt.timedelta(hours=1)
    )
    recent = TableMessageFactory(
        game=table, sender=guest.player, at=now - kept + dt.timedelta(hours=1)
    )
    answer = host.post(f"/games/{table.pk}/reports", {"message": old.pk, "reason": "spam"})
    assert answer.status_code == 201
    assert tasks.purge_table_talk.apply().get() == 1
    assert list(TableMessage.objects.values_list("pk", flat=True)) == [recent.pk]
    report = Report.objects.get()
    assert report.message is None
    assert report.context[0]["id"] == old.pk  # the report keeps its copy
    assert tasks.purge_table_talk.apply().get() == 0


def test_the_days_kept_follow_the_settings(guest, table, settings):
    settings.TALK_KEPT_DAYS = 1
    TableMessageFactory(game=table, sender=guest.player, at=timezone.now() - dt.timedelta(days=2))
    assert tasks.purge_table_talk.apply().get() == 1
