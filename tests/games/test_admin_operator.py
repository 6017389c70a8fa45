"""The admin as an operator uses it: a site named for the service, the overview a
click from home with the health of the service and charts of play, a game list that
says who won, how long games last and which sit idle, seats and rules in words, and
abandoning that asks why and records who did it (which players never read)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import fields

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import charts, overview, services
from games.admin import OFFICIAL_RULES, RULE_NAMES, rules_in_words, seat_name
from games.engine.state import Rules
from games.models import Event, Game, GameStatus
from tests.factories import play_out, seat_table, start_game
from unoservice import health

pytestmark = pytest.mark.django_db

PONG = [{"celery@test": {"ok": "pong"}}]


@pytest.fixture
def worker_answers(monkeypatch) -> None:
    """A worker that answers the health check's ping at once."""
    monkeypatch.setattr(health.celery_app.control, "ping", lambda **_: PONG)


def page_of(client, url: str, **params: str) -> str:
    answer = client.get(url, params)
    assert answer.status_code == 200
    return answer.content.decode()


def abandon_from_the_list(client, *games: Game, reason: str = "", apply: bool = True):
    body = {"action": "abandon_games", "_selected_action": [str(g.pk) for g in games]}
    if apply:
        body |= {"reason": reason, "apply": "Abandon"}
    return client.post(reverse("admin:games_game_changelist"), body, follow=True)


# -- the site ----------------------------------------------------------------------------


def test_the_admin_is_named_for_the_service_not_for_django(admin_client):
    home = page_of(admin_client, reverse("admin:index"))
    assert "UNO service administration" in home
    assert "<title>Games, players and the service | UNO service admin</title>" in home
    assert "Django administration" not in home


def test_the_admin_home_page_links_to_the_overview(admin_client):
    home = page_of(admin_client, reverse("admin:index"))
    overview_url = reverse("admin:games_game_overview")
    assert f'href="{overview_url}" id="overview-link">Overview</a>' in home
    assert 'id="content-main"' in home  # the apps are still listed under it
    assert reverse("admin:games_game_changelist") in home


def test_view_site_in_the_header_leads_to_the_api_docs(admin_client):
    home = page_of(admin_client, reverse("admin:index"))
    assert '<a href="/api/v1/docs/">View site</a>' in home


# -- the game list -----------------------------------------------------------------------


def test_the_game_list_names_the_winner_and_says_how_long_games_took(admin_client, finished):
    # Its length fixed: played out by the test, it took however long the machine did.
    assert finished.started_at is not None
    Game.objects.filter(pk=finished.pk).update(
        finished_at=finished.started_at + dt.timedelta(minutes=12, seconds=40)
    )
    page = page_of(admin_client, reverse("admin:games_game_changelist"))
    row = re.search(rf"<tr>.*?{str(finished.pk)[:8]}.*?</tr>", page, re.S)
    assert row is not None
    winner = seat_name(finished.seating[finished.winner])
    assert f'<td class="field-winner_name">{winner}</td>' in row.group(0)
    assert '<td class="field-duration">12 min</td>' in row.group(0)
    assert '<td class="field-idle_for">—</td>' in row.group(0)  # over: not idle


def test_the_game_list_says_how_long_a_running_game_has_sat_idle(admin_client, running):
    with time_machine.travel(running.updated_at + dt.timedelta(minutes=75, seconds=3)):
        page = page_of(admin_client, reverse("admin:games_game_changelist"))
    row = re.search(rf"<tr>.*?{str(running.pk)[:8]}.*?</tr>", page, re.S)
    assert row is not None
    assert '<td class="field-idle_for">1 h 15 min</td>' in row.group(0)
    assert '<td class="field-winner_name">—</td>' in row.group(0)


def test_the_game_list_costs_as_many_queries_for_many_games_as_for_one(admin_client, host):
    url = reverse("admin:games_game_changelist")

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            admin_client.get(url)
        return len(captured)

    start_game(host, "expert", seed=1)
    one = queries()
    for seed in range(2, 8):
        start_game(host, "greedy", "random", seed=seed)
    assert queries() == one


# -- seats, events and rules in words ----------------------------------------------------


def test_a_seat_is_named_as_people_say_it():
    alice = {"id": "1", "name": "alice"}
    assert seat_name({"player": alice, "bot": None}) == "alice"
    assert seat_name({"player": None, "bot": "expert"}) == "bot (expert)"
    assert seat_name({"player": alice, "bot": "greedy"}) == "bot (greedy) for alice"


def test_a_game_page_names_its_seats_and_players_without_stored_dicts(admin_client, host, guest):
    game = seat_table(host, guest, "expert")
    services.game_leave(game_id=game.pk, player=guest.player)
    page = page_of(admin_client, reverse("admin:games_game_change", args=[game.pk]))
    assert "{&#x27;" not in page
    assert "{'" not in page
    assert "<strong>player_joined</strong> seat 0 (Host) player: Host" in page
    # Each event names the seat as it was held then: the expert bot, added at seat 2,
    # moved up to seat 1 only when the guest left it.
    assert "<strong>player_joined</strong> seat 1 (Guest) player: Guest" in page
    assert "<strong>bot_added</strong> seat 2 (bot (expert))" in page
    assert "player_left</strong> seat 1 (Guest) player: Guest" in page
    assert "bot (expert)" in page


def test_a_finished_games_log_names_the_winner_and_the_scores_by_seat(admin_client, finished):
    url = reverse("admin:games_game_change", args=[finished.pk])
    last = page_of(admin_client, url, log_page="last")
    winner = seat_name(finished.seating[finished.winner])
    assert f"winner: seat {finished.winner} ({winner})" in last
    assert "scores: Host " in last
    assert "{&#x27;" not in last
    page = page_of(admin_client, url)
    assert f"won by {winner}" in page


def test_every_house_rule_has_a_name_in_words():
    assert set(RULE_NAMES) == {f.name for f in fields(Rules)}


def test_the_rules_read_as_words_and_none_as_the_official_rules(admin_client, host, guest):
    assert rules_in_words({}) == OFFICIAL_RULES == "Official rules"
    assert rules_in_words({"stacking": False}) == "Official rules"
    house = seat_table(host, guest, rules={"stacking": True, "seven_o": True})
    page = page_of(admin_client, reverse("admin:games_game_change", args=[house.pk]))
    assert "Stacking of Draw Twos and Wild Draw Fours, Seven-O" in page
    assert "&#x27;stacking&#x27;" not in page
    plain = seat_table(guest, "random")
    page = page_of(admin_client, reverse("admin:games_game_change", args=[plain.pk]))
    assert '<div class="readonly">Official rules</div>' in page


# -- abandoning --------------------------------------------------------------------------


def test_abandoning_asks_for_a_reason_before_anything_changes(admin_client, running):
    asked = abandon_from_the_list(admin_client, running, apply=False)
    page = asked.content.decode()
    assert "Abandon this game?" in page
    assert 'name="reason"' in page
    assert 'name="apply"' in page
    assert str(running.pk) in page  # the choice goes back with the answer
    blank = abandon_from_the_list(admin_client, running, reason="  ")
    assert "This field is required." in blank.content.decode()
    assert Game.objects.get(pk=running.pk).status == GameStatus.PLAYING
    assert not Event.objects.filter(type="game_abandoned").exists()


def test_abandoning_records_the_staff_member_and_the_reason(admin_client, admin_user, running):
    answer = abandon_from_the_list(admin_client, running, reason="spam table")
    assert "1 game abandoned." in answer.content.decode()
    game = Game.objects.get(pk=running.pk)
    assert game.status == GameStatus.ABANDONED
    last = Event.objects.get(game=game, seq=game.last_seq)
    assert last.type == "game_abandoned"
    assert last.data == {"reason": "spam table", "by": admin_user.username}
    page = page_of(admin_client, reverse("admin:games_game_change", args=[game.pk]))
    assert f"abandoned by {admin_user.username}: spam table" in page


def test_abandoning_says_which_games_could_not_be_being_over_already(
    admin_client, finished, running
):
    asked = abandon_from_the_list(admin_client, finished, running, apply=False).content.decode()
    assert "Abandon games?" in asked
    assert "already over: left as it is" in asked
    assert "Abandon 1 game" in asked
    answer = abandon_from_the_list(admin_client, finished, running, reason="cleanup")
    page = answer.content.decode()
    assert "1 game abandoned." in page
    refused = f"Not abandoned, being over already: {str(finished.pk)[:8]} (the game is finished)."
    assert refused in page
    assert Game.objects.get(pk=finished.pk).status == GameStatus.FINISHED


def test_a_games_own_abandon_button_asks_for_a_reason_then_abandons(admin_client, running):
    change_url = reverse("admin:games_game_change", args=[running.pk])
    url = reverse("admin:games_game_abandon", args=[running.pk])
    assert f'href="{url}" id="abandon-button"' in page_of(admin_client, change_url)
    assert 'name="reason"' in page_of(admin_client, url)
    answer = admin_client.post(url, {"reason": "stuck", "apply": "Abandon"})
    assert answer.status_code == 302
    assert answer["Location"] == change_url
    page = page_of(admin_client, change_url)
    assert "1 game abandoned." in page
    assert "abandoned by admin: stuck" in page
    assert 'id="abandon-button"' not in page  # over: nothing left to abandon


def test_a_staff_member_who_may_only_view_games_has_no_abandon_button(
    client, django_user_model, running
):
    from django.contrib.auth.models import Permission

    viewer = django_user_model.objects.create_user("viewer", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename="view_game"))
    client.force_login(viewer)
    change_url = reverse("admin:games_game_change", args=[running.pk])
    assert 'id="abandon-button"' not in page_of(client, change_url)
    url = reverse("admin:games_game_abandon", args=[running.pk])
    assert client.post(url, {"reason": "x", "apply": "Abandon"}).status_code == 403
    assert Game.objects.get(pk=running.pk).status == GameStatus.PLAYING


def test_players_never_read_which_staff_member_abandoned_a_game(host, guest, staff):
    game = start_game(host, guest, seed=7)
    services.game_abandon(game_id=game.pk, reason="spam table", by="operator")
    events = host.get(f"/games/{game.pk}/events", after=0).json()["events"]
    log = guest.get(f"/games/{game.pk}/log").json()["events"]
    for seen in (events, log):
        assert seen[-1]["type"] == "game_abandoned"
        assert seen[-1]["data"] == {"reason": "spam table"}
    staff_log = staff.get(f"/games/{game.pk}/log").json()["events"]
    assert staff_log[-1]["data"] == {"reason": "spam table", "by": "operator"}


# -- the overview ------------------------------------------------------------------------


def test_the_overview_shows_each_part_of_the_service_in_words(admin_client, worker_answers):
    page = page_of(admin_client, reverse("admin:games_game_overview"))
    states = dict(re.findall(r'data-check="([^"]+)" data-state="([^"]+)"', page))
    assert list(states) == ["database", "broker", "worker", "beat", "open streams"]
    assert states["database"] == "ok"
    assert states["worker"] == "ok"
    assert states["beat"] == "down"  # no sweep ever ran in the test database
    assert "no sweep of overdue turns yet" in page
    assert 'class="state uno-health-down"' in page
    assert re.search(r"\d+ game, \d+ lobby, in every server process", page)


def test_the_overview_still_renders_when_a_check_raises(admin_client, monkeypatch):
    def broken() -> None:
        raise RuntimeError("no")

    monkeypatch.setattr(overview.health, "health", broken)
    from unoservice import metrics

    monkeypatch.setattr(metrics, "open_streams", broken)
    page = page_of(admin_client, reverse("admin:games_game_overview"))
    states = dict(re.findall(r'data-check="([^"]+)" data-state="([^"]+)"', page))
    assert set(states.values()) == {"error"}
    assert len(states) == 5
    assert "Games by status" in page


def chart(page: str, css_id: str) -> tuple[str, list[tuple[str, str]]]:
    """A chart's SVG and the rows of its numbers table."""
    found = re.search(rf'id="{css_id}">(.*?)</details>', page, re.S)
    assert found is not None, css_id
    svg = re.search(r"<svg.*?</svg>", found.group(1), re.S)
    assert svg is not None
    rows = re.findall(r'<th scope="row">(.*?)</th><td>(.*?)</td>', found.group(1))
    return svg.group(0), rows


def test_the_overview_charts_games_per_day_moves_per_hour_and_win_rates(
    admin_client, worker_answers, finished, running
):
    page = page_of(admin_client, reverse("admin:games_game_overview"))
    days, day_rows = chart(page, "games-per-day")
    assert days.count('<rect class="bar"') == overview.DAYS == len(day_rows)
    assert day_rows[-1][1] == "1"  # the game finished today
    assert 'aria-label="Games finished per day, the last 14 days"' in days

    hours, hour_rows = chart(page, "moves-per-hour")
    assert hours.count('<rect class="bar"') == overview.HOURS == len(hour_rows)
    assert int(hour_rows[-1][1]) == finished.moves + running.moves

    rates, rate_rows = chart(page, "win-rates")
    assert rates.count('<rect class="bar"') == 2
    figures = overview.figures()
    assert [label for label, _ in rate_rows] == [
        f"bots ({figures['bots'].wins} of {figures['bots'].seats} seats)",
        f"humans ({figures['humans'].wins} of {figures['humans'].seats} seats)",
    ]
    assert rate_rows[1][1] == f"{figures['humans'].percent:g}%"
    for svg in (days, hours, rates):
        assert "<title>" in svg
        assert 'class="x-label"' in svg
        assert 'class="y-label"' in svg
    assert "<script" not in page.split('id="overview"')[1]


def test_moves_per_hour_counts_each_move_once_in_the_hour_it_was_made(host, guest):
    played = play_out(start_game(host, guest, "greedy", seed=41), {0: host, 1: guest})
    later = timezone.now() + dt.timedelta(hours=2)
    per_hour = overview.moves_per_hour(later)
    assert len(per_hour) == overview.HOURS
    assert sum(n for _, n in per_hour) == played.moves > 0
    assert per_hour[-3][1] == played.moves
    assert overview.moves_per_hour(later + dt.timedelta(days=1))[-1][1] == 0


# -- the charts module -------------------------------------------------------------------


def test_a_bar_chart_names_itself_and_its_axes_and_escapes_its_text():
    bars = [charts.Bar("<a>", 3, "3", "three & more"), charts.Bar("b", 1, "1", "one")]
    svg = charts.bar_chart(bars, title="T <x>", x_label="day & night", y_label="count")
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    assert 'aria-label="T &lt;x&gt;"' in svg
    assert "<title>T &lt;x&gt;</title>" in svg
    assert svg.count('<rect class="bar"') == 2
    assert "<title>three &amp; more</title>" in svg
    assert "&lt;a&gt;" in svg
    assert "<a>" not in svg
    assert ">day &amp; night<" in svg
    assert ">count<" in svg
    heights = [float(h) for h in re.findall(r'height="([\d.]+)" style', svg)]
    assert heights[0] == pytest.approx(3 * heights[1], rel=0.01)


def test_a_bar_chart_of_nothing_says_so():
    svg = charts.bar_chart([], title="T", x_label="x", y_label="y")
    assert charts.NO_DATA in svg
    zeros = charts.bar_chart([charts.Bar("a", 0, "0", "none")], title="T", x_label="x", y_label="y")
    assert charts.NO_DATA in zeros
    assert 'height="0.0"' in zeros
