"""Operators hide a player from the leaderboard and show them again, from the players'
admin list, saying why; the API's leaderboard and the admin's follow, and the player's
rating still moves. A disabled player is off the leaderboard too."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from players import services
from players.models import LeaderboardHiding, Player, Rating
from tests.factories import Persona
from unoservice.errors import InvalidRequest, NotFound

pytestmark = pytest.mark.django_db

PLAYERS = "/admin/players/player/"
LEADERBOARD = "/admin/players/rating/"


@pytest.fixture
def staff_user(db: None) -> Any:
    return get_user_model().objects.create_superuser("ops", "ops@example.com", "pw")


def listed(persona: Persona, mu: float) -> Rating:
    """A rating with the record: seven rated games against three people."""
    return Rating.objects.create(
        key=str(persona.player.pk),
        player=persona.player,
        mu=mu,
        sigma=2.0,
        ordinal=mu - 6.0,
        games=7,
        opponents="a b c",
        opponents_met=3,
    )


def board(persona: Persona) -> list[str]:
    return [e["player"]["id"] for e in persona.get("/leaderboard").json()["results"]]


def act(client: Any, action: str, player: Player, **extra: str) -> Any:
    body = {"action": action, "_selected_action": [str(player.pk)], **extra}
    return client.post(PLAYERS, body)


def test_a_hidden_player_leaves_the_leaderboard_and_comes_back_when_shown(
    client, staff_user, host, guest
):
    listed(host, 40.0)
    listed(guest, 30.0)
    client.force_login(staff_user)
    asked = act(client, "hide_from_leaderboard", host.player)
    assert asked.status_code == 200
    assert 'name="reason"' in asked.content.decode()
    assert board(guest) == [str(host.player.pk), str(guest.player.pk)]  # not yet

    done = act(
        client, "hide_from_leaderboard", host.player, apply="Hide", reason="farmed with alts"
    )
    assert done.status_code == 302
    assert board(guest) == [str(guest.player.pk)]
    assert guest.get("/players/me").json()["rank"] == 1
    mine = host.get("/players/me").json()
    assert (mine["rank"], mine["provisional"]) == (None, False)
    assert str(host.player.pk) not in client.get(LEADERBOARD).content.decode()
    record = LeaderboardHiding.objects.get()
    assert (record.player, record.hidden, record.by, record.reason) == (
        host.player,
        True,
        staff_user,
        "farmed with alts",
    )
    page = client.get(f"{PLAYERS}{host.player.pk}/change/").content.decode()
    assert "farmed with alts" in page
    assert "hidden from the leaderboard" in page

    act(client, "show_on_leaderboard", host.player, apply="Show", reason="appeal upheld")
    assert board(guest) == [str(host.player.pk), str(guest.player.pk)]
    assert host.get("/players/me").json()["rank"] == 1
    assert [h.hidden for h in LeaderboardHiding.objects.order_by("at", "id")] == [True, False]


def test_hiding_asks_for_a_reason_and_changes_nothing_without_one(client, staff_user, host):
    listed(host, 40.0)
    client.force_login(staff_user)
    answer = act(client, "hide_from_leaderboard", host.player, apply="Hide", reason="  ")
    assert answer.status_code == 200
    assert "This field is required." in answer.content.decode()
    assert not Player.objects.get(pk=host.player.pk).leaderboard_hidden
    assert not LeaderboardHiding.objects.exists()
    with pytest.raises(InvalidRequest):
        services.leaderboard_hide(player_id=host.player.pk, hidden=True, by=staff_user, reason="")


def test_hiding_an_unknown_player_is_not_found(staff_user):
    with pytest.raises(NotFound):
        services.leaderboard_hide(
            player_id="6f1c2b7e-0d3a-4c59-9b1e-2a7d5c3e8f10", hidden=True, by=staff_user, reason="r"
        )


def test_a_staff_member_who_may_only_view_players_cannot_hide_them(client, host):
    viewer = get_user_model().objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_player"))
    client.force_login(viewer)
    act(client, "hide_from_leaderboard", host.player, apply="Hide", reason="r")
    assert not Player.objects.get(pk=host.player.pk).leaderboard_hidden


def test_a_disabled_player_leaves_the_leaderboard_and_has_no_rank_until_enabled(
    client, staff_user, host, guest
):
    listed(host, 40.0)
    listed(guest, 30.0)
    services.player_disable(player_id=host.player.pk, by="ops", reason="cheating")
    assert board(guest) == [str(guest.player.pk)]
    assert guest.get("/players/me").json()["rank"] == 1
    profile = guest.get(f"/players/{host.player.pk}").json()
    assert (profile["rank"], profile["provisional"]) == (None, False)
    client.force_login(staff_user)
    assert f"rating-{host.player.pk}" not in client.get(LEADERBOARD).content.decode()
    assert f"rating-{guest.player.pk}" in client.get(LEADERBOARD).content.decode()
    page = client.get(f"{PLAYERS}{host.player.pk}/change/").content.decode()
    assert "disabled: off the leaderboard" in page

    services.player_enable(player_id=host.player.pk, by="ops")
    assert board(guest) == [str(host.player.pk), str(guest.player.pk)]
    assert guest.get(f"/players/{host.player.pk}").json()["rank"] == 1
