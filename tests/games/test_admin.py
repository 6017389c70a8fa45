"""The staff dashboard: games listed and searchable, a game with its seats and log,
the replay viewer, the overview, and actions that go through the services."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

import games.admin
from games.models import Event, Game, GameStatus
from tests.factories import seat_table

pytestmark = pytest.mark.django_db


def changelist(admin_client, **params: str) -> str:
    answer = admin_client.get(reverse("admin:games_game_changelist"), params)
    assert answer.status_code == 200
    return answer.content.decode()


def test_the_game_list_shows_status_players_round_and_version(admin_client, finished, running):
    page = changelist(admin_client)
    assert str(finished.pk)[:8] in page
    assert str(running.pk)[:8] in page
    assert "Host, bot (greedy), bot (random)" in page
    assert "Guest, bot (expert)" in page
    assert "column-version" in page
    assert "column-round" in page
    assert "column-idle_for" in page


def test_games_are_found_by_a_players_name_or_by_id(admin_client, finished, running):
    by_name = changelist(admin_client, q="Guest")
    assert str(running.pk)[:8] in by_name
    assert str(finished.pk)[:8] not in by_name
    by_id = changelist(admin_client, q=str(finished.pk))
    assert str(finished.pk)[:8] in by_id
    assert str(running.pk)[:8] not in by_id


def test_games_are_filtered_by_status(admin_client, finished, running):
    page = changelist(admin_client, status__exact="finished")
    assert str(finished.pk)[:8] in page
    assert str(running.pk)[:8] not in page


def test_a_game_page_shows_its_seats_and_a_page_of_its_log(admin_client, finished):
    url = reverse("admin:games_game_change", args=[finished.pk])
    page = admin_client.get(url).content.decode()
    assert "greedy" in page
    assert f"Event log ({finished.last_seq} events)" in page
    assert "page 1 of" in page
    assert "uno-card" in page  # cards drawn in colour
    last = admin_client.get(url, {"log_page": 999}).content.decode()
    assert "game_ended" in last


def test_the_admin_cannot_add_edit_or_delete_a_game(admin_client, finished):
    assert admin_client.get(reverse("admin:games_game_add")).status_code == 403
    answer = admin_client.post(
        reverse("admin:games_game_change", args=[finished.pk]), {"status": "waiting"}
    )
    assert answer.status_code == 403
    assert Game.objects.get(pk=finished.pk).status == GameStatus.FINISHED
    assert (
        admin_client.get(reverse("admin:games_game_delete", args=[finished.pk])).status_code == 403
    )


def test_the_replay_viewer_shows_every_hand_after_the_chosen_event(admin_client, finished):
    started = Event.objects.filter(game=finished, type="round_started").first()
    assert started is not None
    url = reverse("admin:games_game_replay", args=[finished.pk])
    page = admin_client.get(url, {"seq": started.seq}).content.decode()
    rows = re.findall(r'data-seat="(\d)".*?<td class="hand">(.*?)</td>', page, re.S)
    assert len(rows) == 3
    for seat, hand in rows:
        shown = [int(card) for card in re.findall(r'title="card (\d+)"', hand)]
        assert shown == started.data["hands"][int(seat)]
    assert f'href="?seq={started.seq + 1}"' in page  # next
    assert 'id="slider"' in page


def test_the_replay_viewer_clamps_a_seq_out_of_range(admin_client, finished):
    url = reverse("admin:games_game_replay", args=[finished.pk])
    page = admin_client.get(url, {"seq": "99999"}).content.decode()
    assert f"Event {finished.last_seq}" in page
    assert "game_ended" in page
    assert admin_client.get(url, {"seq": "x"}).status_code == 200


def test_the_replay_viewer_is_for_staff_only(client, finished):
    url = reverse("admin:games_game_replay", args=[finished.pk])
    answer = client.get(url, {"seq": 1})
    assert answer.status_code == 302
    assert "/admin/login/" in answer["Location"]


def test_the_overview_counts_games_and_compares_bots_with_humans(admin_client, finished, running):
    page = admin_client.get(reverse("admin:games_game_overview")).content.decode()
    assert "Games by status (2 in all)" in page
    assert "bot seats won" in page
    assert "human seats won" in page
    assert "mean length in moves" in page


def test_abandoning_from_the_admin_goes_through_the_service(admin_client, running):
    answer = abandon(admin_client, running)
    assert "1 game abandoned." in answer.content.decode()
    game = Game.objects.get(pk=running.pk)
    assert game.status == GameStatus.ABANDONED
    assert game.version == running.version + 1
    last = Event.objects.get(game=game, seq=game.last_seq)
    assert last.type == "game_abandoned"


def test_the_verify_action_reports_a_tampered_log(admin_client, finished):
    drawn = Event.objects.filter(game=finished, type="cards_drawn").order_by("seq").first()
    assert drawn is not None
    Event.objects.filter(pk=drawn.pk).update(data={**drawn.data, "count": 77})
    answer = admin_client.post(
        reverse("admin:games_game_changelist"),
        {"action": "verify_replays", "_selected_action": [str(finished.pk)]},
        follow=True,
    )
    assert f"differs at seq {drawn.seq}" in answer.content.decode()


def test_the_players_list_shows_their_statistics(admin_client, finished):
    page = admin_client.get(reverse("admin:players_player_changelist")).content.decode()
    assert "Host" in page
    assert "column-games_played" in page


# -- who may abandon -----------------------------------------------------------------


def staff_client(client, django_user_model, username: str, *codenames: str):
    user = django_user_model.objects.create_user(username, is_staff=True)  # no password
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label="games", codename__in=codenames)
    )
    client.force_login(user)
    return client


def abandon(client, *games: Game, reason: str = "a test table"):
    """The abandon action, confirmed on its page with `reason`."""
    return client.post(
        reverse("admin:games_game_changelist"),
        {
            "action": "abandon_games",
            "_selected_action": [str(g.pk) for g in games],
            "reason": reason,
            "apply": "Abandon",
        },
        follow=True,
    )


def test_a_staff_member_who_may_only_view_games_cannot_abandon_them(
    client, django_user_model, host, running
):
    waiting = seat_table(host, seed=33)
    viewer = staff_client(client, django_user_model, "viewer", "view_game")
    page = changelist(viewer)
    assert 'value="verify_replays"' in page  # the actions menu is there,
    assert 'value="abandon_games"' not in page  # without abandoning
    answer = abandon(viewer, running, waiting)
    assert answer.status_code == 200
    assert "abandoned." not in answer.content.decode()
    assert Game.objects.get(pk=running.pk).status == GameStatus.PLAYING
    assert Game.objects.get(pk=running.pk).version == running.version
    assert Game.objects.get(pk=waiting.pk).status == GameStatus.WAITING
    assert not Event.objects.filter(type="game_abandoned").exists()


def test_a_staff_member_who_may_change_games_can_abandon_them(client, django_user_model, running):
    changer = staff_client(client, django_user_model, "changer", "view_game", "change_game")
    assert 'value="abandon_games"' in changelist(changer)
    answer = abandon(changer, running)
    assert "1 game abandoned." in answer.content.decode()
    assert Game.objects.get(pk=running.pk).status == GameStatus.ABANDONED


def test_the_game_list_shows_and_filters_visibility(admin_client, host, running):
    private = seat_table(host, visibility="private")
    page = changelist(admin_client)
    assert "column-visibility" in page
    only_private = changelist(admin_client, visibility__exact="private")
    assert str(private.pk)[:8] in only_private
    assert str(running.pk)[:8] not in only_private


def test_a_private_games_page_shows_its_invite_code_to_staff(admin_client, host):
    private = seat_table(host, visibility="private")
    page = admin_client.get(reverse("admin:games_game_change", args=[private.pk]))
    assert page.status_code == 200
    assert private.invite_code in page.content.decode()


def test_a_games_page_shows_who_is_online_and_how_many_watch(admin_client, host, guest):
    game = seat_table(host, guest, "greedy")
    host.get(f"/games/{game.pk}")  # the host was seen just now; the guest was not
    page = admin_client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    assert "Host online; Guest offline; 0 spectators" in page


# What would make the admin build a query of its own rather than read through selectors.
QUERY_BUILDING = {"objects", "filter", "exclude", "values_list", "annotate", "get_or_create"}
QUERY_BUILDING |= {"aggregate", "select_related", "prefetch_related", "order_by", "raw"}


def test_the_admin_builds_no_query_of_its_own_and_reads_through_selectors():
    admin_package = Path(games.admin.__file__).parent
    built = [
        f"{path.name}:{node.lineno} .{node.attr}"
        for path in sorted(admin_package.glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and node.attr in QUERY_BUILDING
    ]
    assert built == []
