"""Deleting an account erases the player's personal data at once, keeps every game
they played whole and replayable under a placeholder name, and ends every token;
the export gives back what the service held about them."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from games import replay
from games.models import Event, Game
from players.models import Device, Identity, Player, PlayerSession, Rating
from tests.factories import DeviceFactory, Persona, assert_error, play_out, start_game
from tests.players.accounts.conftest import Mailbox, ask_code

pytestmark = pytest.mark.django_db

API = "/api/v1"
ANN = "ann@example.com"


def link_email(persona: Persona, mailbox: Mailbox, email: str = ANN) -> None:
    ask_code(persona.client, email)
    code = mailbox.last_code_to(email)
    assert persona.post("/players/me/identities", {"email": email, "code": code}).status_code == 201


def delete(persona: Persona, **proof: Any) -> Any:
    return persona.client.delete(f"{API}/players/me", proof or None, format="json")


def test_a_guest_with_nothing_linked_deletes_with_the_token_alone(host: Persona):
    answer = delete(host)

    assert answer.status_code == 204, answer.content
    assert_error(host.get("/players/me"), 401, "not_authenticated")
    player = Player.objects.get(pk=host.player.pk)
    assert player.name == "Deleted player"
    assert player.deleted_at is not None
    assert not PlayerSession.objects.filter(player=player).exists()


def test_an_account_with_an_identity_needs_a_fresh_proof(host: Persona, mailbox: Mailbox):
    link_email(host, mailbox)

    without = delete(host)
    wrong = delete(host, email=ANN, code="000000")

    assert (
        assert_error(without, 403, "credentials_refused")["details"]["reason"] == "proof_required"
    )
    assert_error(wrong, 403, "credentials_refused")
    assert host.get("/players/me").status_code == 200
    ask_code(host.client, ANN)
    assert delete(host, email=ANN, code=mailbox.last_code_to(ANN)).status_code == 204


def test_another_accounts_proof_does_not_delete(host: Persona, guest: Persona, mailbox: Mailbox):
    link_email(host, mailbox)
    link_email(guest, mailbox, "bob@example.com")
    ask_code(guest.client, "bob@example.com")

    answer = delete(host, email="bob@example.com", code=mailbox.last_code_to("bob@example.com"))

    assert assert_error(answer, 403, "credentials_refused")["details"]["reason"] == "not_linked"
    assert Player.objects.get(pk=host.player.pk).deleted_at is None


def played(host: Persona, guest: Persona) -> Game:
    game = start_game(host, guest, seed=7)
    return play_out(game, {0: host, 1: guest})


def test_a_deleted_player_is_gone_from_every_endpoint_and_their_games_still_replay(
    host: Persona, guest: Persona, mailbox: Mailbox, admin_client: Any
):
    game = played(host, guest)
    link_email(host, mailbox)
    DeviceFactory(player=host.player)
    # A staff action on the player, in the admin's history under their name then.
    disable = {"action": "enable_players", "_selected_action": [str(host.player.pk)]}
    Player.objects.filter(pk=host.player.pk).update(disabled_at="2026-12-01T00:00:00Z")
    admin_client.post("/admin/players/player/", disable)
    assert (
        "Host"
        in admin_client.get(f"/admin/players/player/{host.player.pk}/history/").content.decode()
    )
    # A record that ranks: rated games enough, against opponents enough.
    Rating.objects.filter(key=str(host.player.pk)).update(games=50, opponents_met=9)
    assert any(
        row["player"]["id"] == str(host.player.pk)
        for row in guest.get("/leaderboard").json()["results"]
    )
    ask_code(host.client, ANN)

    assert delete(host, email=ANN, code=mailbox.last_code_to(ANN)).status_code == 204

    pk = str(host.player.pk)
    # The old token is refused; nothing personal is left in the database.
    assert_error(host.get("/players/me"), 401, "not_authenticated")
    assert not Identity.objects.filter(player_id=pk).exists()
    assert not Device.objects.filter(player_id=pk).exists()
    # Others read the placeholder: the profile, the game, its log; never the old name.
    assert guest.get(f"/players/{pk}").json()["name"] == "Deleted player"
    view = guest.get(f"/games/{game.pk}").json()
    assert "Host" not in str(view)
    assert "Deleted player" in str(view)
    log = guest.get(f"/games/{game.pk}/events").json()
    assert "Host" not in str(log)
    named = Event.objects.filter(game=game, type="player_joined", seat=0).get()
    assert named.data["player"] == {"id": pk, "name": "Deleted player"}
    # The leaderboard no longer lists them.
    ids = [row["player"]["id"] for row in guest.get("/leaderboard").json()["results"]]
    assert pk not in ids
    # Every replay is exact.
    replay.verify(Game.objects.get(pk=game.pk))
    out = StringIO()
    call_command("verify_games", stdout=out)
    assert "0 failed" in out.getvalue()
    # The admin shows neither the name nor the address.
    for path in (f"/admin/players/player/{pk}/change/", "/admin/"):
        page = admin_client.get(path).content.decode()
        assert ANN not in page
        assert "Host" not in page


def test_a_running_game_treats_the_deleted_seat_as_left(host: Persona, guest: Persona):
    game = start_game(host, guest, seed=7)

    assert delete(host).status_code == 204

    game = Game.objects.get(pk=game.pk)
    assert game.seating[0]["bot"] is not None
    assert game.seating[0]["player"]["name"] == "Deleted player"
    assert Event.objects.filter(game=game, type="player_left").exists()
    assert guest.get(f"/games/{game.pk}").status_code == 200


def test_a_waiting_game_frees_the_deleted_players_seat(host: Persona, guest: Persona):
    game = guest.post("/games", {"max_players": 3}).json()
    assert host.post(f"/games/{game['id']}/join").status_code == 200

    assert delete(host).status_code == 204

    seats = guest.get(f"/games/{game['id']}").json()["seats"]
    assert [seat["player"]["id"] for seat in seats if seat["player"]] == [str(guest.player.pk)]


def test_the_export_holds_what_the_service_keeps_about_the_player_and_no_secret(
    host: Persona, guest: Persona, mailbox: Mailbox
):
    game = played(host, guest)
    link_email(host, mailbox)
    DeviceFactory(player=host.player, label="Ann's browser")

    export = host.get("/players/me/export").json()

    assert export["player"]["id"] == str(host.player.pk)
    assert export["player"]["name"] == "Host"
    assert [(i["kind"], i["email"]) for i in export["identities"]] == [("email", ANN)]
    assert [d["label"] for d in export["devices"]] == ["Ann's browser"]
    assert len(export["sessions"]) == 1
    assert [g["id"] for g in export["games"]] == [str(game.pk)]
    text = str(export)
    assert host.token not in text
    for secret in PlayerSession.objects.filter(player=host.player).values_list(
        "token_hash", flat=True
    ):
        assert secret not in text
    device = Device.objects.get(player=host.player)
    assert device.p256dh not in text or not device.p256dh
