"""Reports (docs/api.md, "Table talk"): a reader reports a message or a player of a
game to staff; what was said around it is copied in."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
import time_machine

from games.talk.models import Report, TableMessage
from tests.factories import TableMessageFactory, assert_error, seat_table, start_game

pytestmark = pytest.mark.django_db


def report(persona, game, **body):
    return persona.post(f"/games/{game.pk}/reports", body)


def test_a_message_is_reported_with_the_ten_around_it(host, guest, table):
    said = [
        TableMessageFactory(
            game=table, sender=(guest if n % 2 else host).player, seat=n % 2, text=f"m{n}"
        )
        for n in range(30)
    ]
    reported = said[15]
    assert reported.sender_id == guest.player.pk
    answer = report(host, table, message=reported.pk, reason="abuse", note="  rude  ")
    assert answer.status_code == 201, answer.content
    assert answer.json()["status"] == "open"
    filed = Report.objects.get(pk=answer.json()["id"])
    assert (filed.reporter, filed.reported, filed.message) == (
        host.player,
        guest.player,
        reported,
    )
    assert (filed.reason, filed.note) == ("abuse", "rude")
    assert [entry["id"] for entry in filed.context] == [m.pk for m in said[10:21]]
    assert [entry["reported"] for entry in filed.context] == [n == 15 for n in range(10, 21)]
    assert filed.context[5]["name"] == "Guest"
    assert filed.context[5]["text"] == "m15"


def test_the_context_takes_more_from_one_side_when_the_other_is_short(host, guest, table):
    said = [TableMessageFactory(game=table, sender=guest.player, seat=1) for _ in range(15)]
    filed_id = report(host, table, message=said[1].pk, reason="spam").json()["id"]
    context = Report.objects.get(pk=filed_id).context
    assert [entry["id"] for entry in context] == [m.pk for m in said[:11]]


def test_the_context_keeps_the_words_as_typed_for_staff(host, guest, chatty):
    said = guest.post(f"/games/{chatty.pk}/messages", {"text": "you shit"}).json()
    filed_id = report(host, chatty, message=said["id"], reason="abuse").json()["id"]
    (entry,) = Report.objects.get(pk=filed_id).context
    assert (entry["text"], entry["typed"], entry["reported"]) == ("you ***", "you shit", True)


def test_the_context_outlives_the_messages(host, guest, table):
    message = TableMessageFactory(game=table, sender=guest.player, text="Bye!")
    filed_id = report(host, table, message=message.pk, reason="spam").json()["id"]
    TableMessage.objects.all().delete()
    filed = Report.objects.get(pk=filed_id)
    assert filed.message is None
    assert filed.context[0]["text"] == "Bye!"


def test_the_same_message_reported_again_is_the_same_report(host, guest, table):
    message = TableMessageFactory(game=table, sender=guest.player)
    first = report(host, table, message=message.pk, reason="abuse")
    again = report(host, table, message=message.pk, reason="spam")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert Report.objects.count() == 1


def test_a_player_is_reported_with_the_tables_last_messages(host, guest, table):
    for n in range(14):
        TableMessageFactory(game=table, sender=(guest if n % 2 else host).player, text=f"m{n}")
    answer = report(host, table, player=str(guest.player.pk), reason="cheating")
    assert answer.status_code == 201, answer.content
    filed = Report.objects.get(pk=answer.json()["id"])
    assert (filed.reported, filed.message) == (guest.player, None)
    assert [entry["text"] for entry in filed.context] == [f"m{n}" for n in range(3, 14)]
    assert [entry["reported"] for entry in filed.context] == [n % 2 == 1 for n in range(3, 14)]
    again = report(host, table, player=str(guest.player.pk), reason="name")
    assert (again.status_code, again.json()) == (200, answer.json())


def test_a_spectator_who_spoke_may_be_reported(host, outsider, table):
    TableMessageFactory(game=table, sender=outsider.player, seat=None, kind="emote")
    assert report(host, table, player=str(outsider.player.pk), reason="spam").status_code == 201


def test_a_spectator_may_report(host, outsider, table):
    message = TableMessageFactory(game=table, sender=host.player)
    assert report(outsider, table, message=message.pk, reason="spam").status_code == 201


def test_a_message_of_another_game_is_404(host, guest, outsider, table):
    elsewhere = start_game(guest, outsider, seed=5)
    message = TableMessageFactory(game=elsewhere, sender=outsider.player)
    assert_error(report(host, table, message=message.pk, reason="abuse"), 404, "not_found")
    assert_error(report(host, table, message=10**12, reason="abuse"), 404, "not_found")


def test_a_player_who_was_never_at_the_table_is_404(host, outsider, table):
    assert_error(
        report(host, table, player=str(outsider.player.pk), reason="name"), 404, "not_found"
    )
    assert_error(report(host, table, player=str(uuid.uuid4()), reason="name"), 404, "not_found")


def test_nobody_reports_themselves(host, table):
    mine = TableMessageFactory(game=table, sender=host.player)
    assert_error(report(host, table, message=mine.pk, reason="other"), 400, "invalid_request")
    assert_error(
        report(host, table, player=str(host.player.pk), reason="other"), 400, "invalid_request"
    )
    assert not Report.objects.exists()


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"reason": "abuse"},
        {"message": 1},
        {"message": 1, "player": "6f1c2b7e-0d3a-4c59-9b1e-2a7d5c3e8f10", "reason": "abuse"},
        {"message": "one", "reason": "abuse"},
        {"message": 0, "reason": "abuse"},
        {"message": 10**30, "reason": "abuse"},
        {"player": "nobody", "reason": "abuse"},
        {"player": 7, "reason": "abuse"},
        {"message": 1, "reason": "boring"},
        {"message": 1, "reason": "abuse", "note": "x" * 501},
        {"message": 1, "reason": "abuse", "note": "a\nb"},
        {"message": 1, "reason": "abuse", "note": 5},
        {"message": 1, "reason": "abuse", "extra": True},
        [],
        "abuse",
    ],
)
def test_a_malformed_report_is_400(host, table, body):
    answer = host.client.post(f"/api/v1/games/{table.pk}/reports", body, format="json")
    assert_error(answer, 400, "invalid_request")


def test_a_private_game_is_404_to_an_outsider_reporting_without_its_code(host, guest, outsider):
    private = seat_table(host, guest, visibility="private")
    message = TableMessageFactory(game=private, sender=guest.player)
    assert_error(report(outsider, private, message=message.pk, reason="spam"), 404, "not_found")
    with_code = f"/games/{private.pk}/reports?code={private.invite_code}"
    answer = outsider.post(with_code, {"message": message.pk, "reason": "spam"})
    assert answer.status_code == 201


def test_reports_are_rate_limited_per_player_every_attempt_counted(host, guest, table):
    said = [TableMessageFactory(game=table, sender=guest.player) for _ in range(21)]
    now = dt.datetime.now(dt.UTC).timestamp()
    hour = dt.datetime.fromtimestamp((now // 3600 + 1) * 3600 + 1, dt.UTC)
    with time_machine.travel(hour, tick=False):
        answers = [report(host, table, message=m.pk, reason="spam") for m in said]
    assert [a.status_code for a in answers[:20]] == [201] * 20
    assert_error(answers[20], 429, "rate_limited")
    assert int(answers[20]["Retry-After"]) == 3599
    assert Report.objects.count() == 20
