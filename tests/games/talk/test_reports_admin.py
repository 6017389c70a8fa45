"""The staff's queue of reports (docs/operations.md, "Table talk"): open reports
first, a report's page with what was said, and the actions, through the services."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from games.talk import moderation
from games.talk.models import Report, ReportStatus
from players.models import Player
from tests.factories import TableMessageFactory, assert_error

pytestmark = pytest.mark.django_db


@pytest.fixture
def filed(host, guest, chatty) -> Report:
    """The host reported the guest's rude message, said between two others."""
    TableMessageFactory(game=chatty, sender=host.player, text="Hello!")
    rude = guest.post(f"/games/{chatty.pk}/messages", {"text": "you shit"}).json()
    TableMessageFactory(game=chatty, sender=host.player, seat=0, text="Oops")
    answer = host.post(f"/games/{chatty.pk}/reports", {"message": rude["id"], "reason": "abuse"})
    return Report.objects.get(pk=answer.json()["id"])


def act(admin_client, action: str, *reports: Report):
    return admin_client.post(
        reverse("admin:games_report_changelist"),
        {"action": action, "_selected_action": [str(r.pk) for r in reports]},
        follow=True,
    )


def test_the_queue_lists_open_reports_first(admin_client, host, guest, table):
    said = [TableMessageFactory(game=table, sender=guest.player, seat=1) for _ in range(3)]
    ids = [
        host.post(f"/games/{table.pk}/reports", {"message": m.pk, "reason": "spam"}).json()["id"]
        for m in said
    ]
    moderation.report_dismiss(report_id=ids[2], by=None)  # the newest, handled
    page = admin_client.get(reverse("admin:games_report_changelist")).content.decode()
    rows = [page.index(f'value="{report_id}"') for report_id in ids]
    assert rows[1] < rows[0] < rows[2]
    assert "Guest#" in page
    assert "column-reason" in page


def test_the_queue_is_filtered_by_status_and_reason(admin_client, filed):
    url = reverse("admin:games_report_changelist")
    assert (
        f'value="{filed.pk}"' in admin_client.get(url, {"status__exact": "open"}).content.decode()
    )
    dismissed = admin_client.get(url, {"status__exact": "dismissed"}).content.decode()
    assert f'value="{filed.pk}"' not in dismissed
    spam = admin_client.get(url, {"reason__exact": "spam"}).content.decode()
    assert f'value="{filed.pk}"' not in spam


def test_a_reports_page_shows_what_was_said_with_the_reported_message_marked(admin_client, filed):
    page = admin_client.get(reverse("admin:games_report_change", args=[filed.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Hello!" in html
    assert "Oops" in html
    assert "you shit" in html  # as typed, for staff
    assert html.count("▶ reported") == 1
    assert 'class="reported"' in html
    assert reverse("admin:games_report_moderate", args=[filed.pk, "warn"]) in html


def test_the_queue_is_for_staff_only(client, filed):
    answer = client.get(reverse("admin:games_report_changelist"))
    assert answer.status_code == 302
    assert "/admin/login/" in answer["Location"]
    url = reverse("admin:games_report_moderate", args=[filed.pk, "disable"])
    assert client.post(url).status_code == 302
    assert Player.objects.get(pk=filed.reported_id).disabled_at is None


def test_reports_cannot_be_added_edited_or_deleted_in_the_admin(admin_client, filed):
    assert admin_client.get(reverse("admin:games_report_add")).status_code == 403
    url = reverse("admin:games_report_change", args=[filed.pk])
    assert admin_client.post(url, {"status": "dismissed"}).status_code == 403
    assert Report.objects.get(pk=filed.pk).status == ReportStatus.OPEN


def test_warning_sends_the_player_a_note_and_marks_the_report(
    admin_client, admin_user, filed, monkeypatch
):
    noted = []
    monkeypatch.setattr(moderation, "note", lambda *args: noted.append(args))
    answer = act(admin_client, "warn_players", filed)
    assert "done for 1 report" in answer.content.decode()
    assert noted == [(filed.reported_id, "talk_warning", {"reason": "abuse"})]
    handled = Report.objects.get(pk=filed.pk)
    assert handled.status == ReportStatus.WARNED
    assert handled.handled_by == admin_user
    assert handled.handled_at is not None


@pytest.mark.parametrize(
    ("action", "hours"),
    [("mute_players_hour", 1), ("mute_players_day", 24), ("mute_players_week", 168)],
)
def test_muting_makes_the_next_message_403_talk_muted_until_then(
    admin_client, guest, chatty, filed, action, hours
):
    act(admin_client, action, filed)
    assert Report.objects.get(pk=filed.pk).status == ReportStatus.MUTED
    until = Player.objects.get(pk=guest.player.pk).talk_muted_until
    assert until is not None
    expected = timezone.now() + dt.timedelta(hours=hours)
    assert abs((until - expected).total_seconds()) < 60
    error = assert_error(
        guest.post(f"/games/{chatty.pk}/messages", {"phrase": "sorry"}), 403, "talk_muted"
    )
    assert dt.datetime.fromisoformat(error["details"]["until"]) == until
    assert error["details"]["reason"] == "reported for abuse"


def test_a_shorter_mute_does_not_shorten_a_longer_one(admin_client, guest, filed):
    act(admin_client, "mute_players_week", filed)
    week = Player.objects.get(pk=guest.player.pk).talk_muted_until
    act(admin_client, "mute_players_hour", filed)
    assert Player.objects.get(pk=guest.player.pk).talk_muted_until == week


def test_disabling_refuses_every_request_of_the_player(admin_client, guest, chatty, filed):
    act(admin_client, "disable_players", filed)
    assert Report.objects.get(pk=filed.pk).status == ReportStatus.DISABLED
    player = Player.objects.get(pk=guest.player.pk)
    assert player.disabled_at is not None
    assert player.disabled_by == "admin"
    answer = guest.post(f"/games/{chatty.pk}/messages", {"phrase": "sorry"})
    assert_error(answer, 401, "player_disabled")


def test_dismissing_closes_the_report_and_leaves_the_player_alone(admin_client, guest, filed):
    act(admin_client, "dismiss_reports", filed)
    assert Report.objects.get(pk=filed.pk).status == ReportStatus.DISMISSED
    player = Player.objects.get(pk=guest.player.pk)
    assert (player.talk_muted_until, player.disabled_at) == (None, None)


def test_the_buttons_of_a_reports_page_act_on_it(admin_client, guest, filed):
    url = reverse("admin:games_report_moderate", args=[filed.pk, "mute_day"])
    answer = admin_client.post(url)
    assert answer.status_code == 302
    assert answer["Location"] == reverse("admin:games_report_change", args=[filed.pk])
    assert Report.objects.get(pk=filed.pk).status == ReportStatus.MUTED
    assert Player.objects.get(pk=guest.player.pk).talk_muted_until is not None
    assert admin_client.get(url).status_code == 404  # only by POST
    unknown = reverse("admin:games_report_moderate", args=[filed.pk, "ban_forever"])
    assert admin_client.post(unknown).status_code == 404
    missing = reverse("admin:games_report_moderate", args=[10**9, "warn"])
    assert admin_client.post(missing).status_code == 404


def test_a_staff_member_who_may_only_view_reports_cannot_act(client, django_user_model, filed):
    from django.contrib.auth.models import Permission

    viewer = django_user_model.objects.create_user("viewer", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename="view_report"))
    client.force_login(viewer)
    page = client.get(reverse("admin:games_report_changelist")).content.decode()
    assert 'value="warn_players"' not in page
    url = reverse("admin:games_report_moderate", args=[filed.pk, "dismiss"])
    assert client.post(url).status_code == 403
    assert Report.objects.get(pk=filed.pk).status == ReportStatus.OPEN
