"""Signing out everywhere (``POST /players/me/token``) and disabled players
(docs/api.md, "Players" and "Errors"): the old token, a disabled player's token and
the tickets they issued stop working at once."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from rest_framework.test import APIClient

from players import services
from players.models import Player
from tests.factories import Persona, assert_error, start_game

pytestmark = pytest.mark.django_db

API = "/api/v1"


def bearer(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def new_token(persona: Persona, **headers: str) -> str:
    answer = persona.post("/players/me/token", **headers)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert set(body) == {"id", "name", "token", "session"}
    assert body["id"] == str(persona.player.pk)
    assert body["name"] == persona.player.name
    return str(body["token"])


def test_a_new_token_works_and_the_old_one_is_refused_at_once(host: Persona) -> None:
    token = new_token(host)
    assert token != host.token
    assert bearer(token).get(f"{API}/players/me").json()["id"] == str(host.player.pk)
    assert_error(bearer(host.token).get(f"{API}/players/me"), 401, "not_authenticated")
    assert_error(host.post("/players/me/token"), 401, "not_authenticated")


def test_each_new_token_replaces_the_last(host: Persona) -> None:
    first = new_token(host)
    host.client.credentials(HTTP_AUTHORIZATION=f"Bearer {first}")
    second = new_token(host)
    assert_error(bearer(first).get(f"{API}/players/me"), 401, "not_authenticated")
    assert bearer(second).get(f"{API}/players/me").status_code == 200


def test_a_new_token_with_an_idempotency_key_is_never_replayed(host: Persona) -> None:
    token = new_token(host, **{"Idempotency-Key": "sign-out-1"})
    # The retry comes with the old token: refused, the new token untouched.
    assert_error(host.post("/players/me/token", **{"Idempotency-Key": "sign-out-1"}), 401, None)
    assert bearer(token).get(f"{API}/players/me").status_code == 200


def test_a_new_token_needs_a_token(anonymous: APIClient) -> None:
    assert_error(anonymous.post(f"{API}/players/me/token"), 401, "not_authenticated")


def test_the_old_tokens_unused_tickets_are_refused(host: Persona, guest: Persona) -> None:
    game = start_game(host, guest, seed=21)
    game_ticket = host.post(f"/games/{game.pk}/stream-ticket").json()["ticket"]
    lobby_ticket = host.post("/players/me/stream-ticket").json()["ticket"]
    new_token(host)
    stream = APIClient().get(f"{API}/games/{game.pk}/stream", {"ticket": game_ticket})
    assert_error(stream, 401, "not_authenticated")
    lobby = APIClient().get(f"{API}/players/me/stream", {"ticket": lobby_ticket})
    assert_error(lobby, 401, "not_authenticated")


def test_a_disabled_players_every_request_is_a_401_player_disabled(
    host: Persona, guest: Persona
) -> None:
    game = start_game(host, guest, seed=21)
    ticket = host.post(f"/games/{game.pk}/stream-ticket").json()["ticket"]
    services.player_disable(player_id=host.player.pk, by="operator", reason="cheating")

    for answer in (
        host.get("/players/me"),
        host.get(f"/games/{game.pk}"),
        host.get("/games"),
        host.post("/games", {}),
        host.post("/players/me/token"),
        host.post("/players/me/stream-ticket"),
        host.get(f"/games/{game.pk}/events", wait=0),
    ):
        error = assert_error(answer, 401, "player_disabled")
        assert answer["WWW-Authenticate"].startswith("Bearer")
        assert error["message"] == "this player is disabled"
    stream = APIClient().get(f"{API}/games/{game.pk}/stream", {"ticket": ticket})
    assert_error(stream, 401, "not_authenticated")
    # Their stream with the token, under the plain WSGI fallback.
    assert_error(host.get(f"/games/{game.pk}/stream"), 401, "player_disabled")
    # Others play on.
    assert guest.get(f"/games/{game.pk}").status_code == 200


def test_a_disabled_player_enabled_again_is_let_in_with_the_same_token(host: Persona) -> None:
    services.player_disable(player_id=host.player.pk, by="operator", reason="mistake")
    services.player_enable(player_id=host.player.pk, by="operator")
    assert host.get("/players/me").status_code == 200


def test_disabling_keeps_who_did_it_when_and_why(host: Persona) -> None:
    services.player_disable(player_id=host.player.pk, by="operator", reason="  spam names ")
    player = Player.objects.get(pk=host.player.pk)
    assert player.disabled_at is not None
    assert (player.disabled_by, player.disabled_reason) == ("operator", "spam names")
    services.player_disable(player_id=host.player.pk, by="someone else", reason="again")
    assert Player.objects.get(pk=host.player.pk).disabled_by == "operator"


# -- the admin ---------------------------------------------------------------------------


def disable_from_the_list(client, *players: Persona, reason: str = "", apply: bool = True):
    body = {"action": "disable_players", "_selected_action": [str(p.player.pk) for p in players]}
    if apply:
        body |= {"reason": reason, "apply": "Disable"}
    return client.post(reverse("admin:players_player_changelist"), body, follow=True)


def test_the_admin_asks_why_before_disabling(admin_client, host: Persona) -> None:
    asked = disable_from_the_list(admin_client, host, apply=False)
    assert asked.status_code == 200
    assert 'id="reason-form"' in asked.content.decode()
    disable_from_the_list(admin_client, host, reason="   ")
    assert Player.objects.get(pk=host.player.pk).disabled_at is None


def test_the_admin_disables_and_enables_a_player_recording_the_staff_member(
    admin_client, admin_user, host: Persona, guest: Persona
) -> None:
    answer = disable_from_the_list(admin_client, host, reason="abusive chat")
    assert "Done for 1 of 1." in answer.content.decode()
    player = Player.objects.get(pk=host.player.pk)
    assert (player.disabled_by, player.disabled_reason) == (admin_user.username, "abusive chat")
    assert_error(host.get("/players/me"), 401, "player_disabled")
    assert guest.get("/players/me").status_code == 200
    page = admin_client.get(reverse("admin:players_player_change", args=[host.player.pk]))
    assert "abusive chat" in page.content.decode()

    body = {"action": "enable_players", "_selected_action": [str(host.player.pk)]}
    enabled = admin_client.post(reverse("admin:players_player_changelist"), body, follow=True)
    assert "1 player enabled again." in enabled.content.decode()
    assert host.get("/players/me").status_code == 200


def test_staff_who_may_only_view_players_cannot_disable_them(client, host: Persona) -> None:
    from django.contrib.auth.models import Permission

    viewer = get_user_model().objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_player"))
    client.force_login(viewer)
    disable_from_the_list(client, host, reason="no right")
    assert Player.objects.get(pk=host.player.pk).disabled_at is None
