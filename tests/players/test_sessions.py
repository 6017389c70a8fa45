"""Each device signs in with a token of its own (`players.sessions`): the player
lists their devices, signs one out without the others, and signing out everywhere
ends them all; a session unused for SESSION_IDLE_DAYS is refused; past 20 sessions
the one used longest ago ends."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from games.models import StreamTicket
from players import sessions
from players.models import Player, PlayerSession
from tests.factories import Persona, assert_error, start_game

pytestmark = pytest.mark.django_db


def second_device(persona: Persona, name: str = "tablet") -> Persona:
    """The same player, signed in on another device with a token of its own."""
    with transaction.atomic():
        _, token = sessions.session_open(player=persona.player, name=name, network="")
    client = APIClient(REMOTE_ADDR="198.18.254.1")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return Persona(persona.player, token, client)


def listed(persona: Persona) -> list[dict[str, Any]]:
    answer = persona.get("/players/me/sessions")
    assert answer.status_code == 200, answer.json()
    found: list[dict[str, Any]] = answer.json()
    return found


def test_a_new_player_has_one_session_named_as_the_device_it_signed_up_on(anonymous: Any):
    answer = anonymous.post(
        "/api/v1/players", {"name": "Ann", "device": "  Ann's phone "}, format="json"
    )
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {body['token']}")

    (only,) = client.get("/api/v1/players/me/sessions").json()

    assert only["id"] == body["session"]
    assert only["device"] == "Ann's phone"
    assert only["current"] is True
    assert only["network"] == "127.0.0.1"


@pytest.mark.parametrize("device", ["x" * 65, "line\nbreak", 7])
def test_a_bad_device_name_is_refused_and_signs_nobody_up(anonymous: Any, device: object):
    answer = anonymous.post("/api/v1/players", {"name": "Ann", "device": device}, format="json")

    assert_error(answer, 400, "invalid_request")
    assert "device" in answer.json()["error"]["details"]["fields"]
    assert not Player.objects.filter(name="Ann").exists()


def test_the_player_sees_every_device_with_the_callers_marked(host: Persona):
    tablet = second_device(host)

    from_phone, from_tablet = listed(host), listed(tablet)

    assert {s["id"] for s in from_phone} == {s["id"] for s in from_tablet}
    assert len(from_phone) == 2
    assert [s["device"] for s in from_tablet if s["current"]] == ["tablet"]
    assert [s["device"] for s in from_phone if s["current"]] == [""]


def test_nobody_else_sees_or_ends_a_players_sessions(host: Persona, outsider: Persona):
    (mine,) = listed(host)

    assert [s["id"] for s in listed(outsider)] != [mine["id"]]
    assert_error(outsider.delete(f"/players/me/sessions/{mine['id']}"), 404, "not_found")
    assert host.get("/players/me").status_code == 200


def test_a_malformed_session_id_is_not_found(host: Persona):
    assert_error(host.delete("/players/me/sessions/not-a-uuid"), 404, "not_found")


def test_signing_one_device_out_stops_its_token_and_tickets_and_keeps_the_others(
    host: Persona, guest: Persona
):
    game = start_game(host, guest, seed=21)
    tablet = second_device(host)
    tablet_ticket = tablet.post(f"/games/{game.pk}/stream-ticket")
    assert tablet_ticket.status_code == 201, tablet_ticket.json()
    phone_ticket = host.post(f"/games/{game.pk}/stream-ticket")
    tablet_id = next(s["id"] for s in listed(host) if s["device"] == "tablet")

    answer = host.delete(f"/players/me/sessions/{tablet_id}")

    assert answer.status_code == 204
    assert_error(tablet.get("/players/me"), 401, "not_authenticated")
    assert host.get("/players/me").status_code == 200
    assert [s["device"] for s in listed(host)] == [""]
    # The tablet's unused ticket went with it; the phone's stays.
    assert StreamTicket.objects.filter(player=host.player).count() == 1
    assert phone_ticket.status_code == 201


def test_a_device_may_sign_itself_out(host: Persona):
    (mine,) = listed(host)

    assert host.delete(f"/players/me/sessions/{mine['id']}").status_code == 204
    assert_error(host.get("/players/me"), 401, "not_authenticated")


def test_signing_out_everywhere_ends_every_device_and_keeps_this_devices_name(host: Persona):
    PlayerSession.objects.filter(player=host.player).update(name="phone")
    tablet = second_device(host)

    answer = host.post("/players/me/token")

    assert answer.status_code == 200, answer.json()
    assert_error(host.get("/players/me"), 401, "not_authenticated")
    assert_error(tablet.get("/players/me"), 401, "not_authenticated")
    fresh = APIClient()
    fresh.credentials(HTTP_AUTHORIZATION=f"Bearer {answer.json()['token']}")
    (only,) = fresh.get("/api/v1/players/me/sessions").json()
    assert (only["id"], only["device"], only["current"]) == (
        answer.json()["session"],
        "phone",
        True,
    )


def test_a_session_unused_for_the_idle_days_is_refused_unlisted_and_purged(
    host: Persona, settings: Any
):
    tablet = second_device(host)
    long_ago = timezone.now() - dt.timedelta(days=settings.SESSION_IDLE_DAYS, seconds=1)
    PlayerSession.objects.filter(player=host.player, name="tablet").update(last_used_at=long_ago)

    refused = assert_error(tablet.get("/players/me"), 401, "not_authenticated")

    assert "expired" in refused["message"]
    assert [s["device"] for s in listed(host)] == [""]
    assert sessions.sessions_purge() == 1
    assert PlayerSession.objects.filter(player=host.player).count() == 1


def test_past_the_cap_signing_in_ends_the_session_used_longest_ago(host: Persona):
    PlayerSession.objects.filter(player=host.player).update(
        last_used_at=timezone.now() - dt.timedelta(days=1)
    )
    devices = [second_device(host, f"device {n}") for n in range(sessions.MAX_SESSIONS)]

    assert_error(host.get("/players/me"), 401, "not_authenticated")
    assert all(d.get("/players/me").status_code == 200 for d in devices[:3])
    assert len(listed(devices[0])) == sessions.MAX_SESSIONS


def test_a_request_notes_its_sessions_use_at_most_every_few_minutes(
    host: Persona, django_assert_num_queries: Any
):
    session = PlayerSession.objects.get(player=host.player)
    with django_assert_num_queries(2):  # the token lookup and the list, no write
        host.get("/players/me/sessions")
    later = timezone.now() + dt.timedelta(seconds=sessions.TOUCH_SECONDS + 1)

    with time_machine.travel(later, tick=False):
        host.get("/players/me/sessions")

    session.refresh_from_db()
    assert session.last_used_at == later
    assert session.network == host.client.defaults["REMOTE_ADDR"]


def test_staff_see_a_players_devices_and_sign_them_out_of_every_one(
    admin_client: Any, host: Persona, guest: Persona
):
    PlayerSession.objects.filter(player=host.player).update(name="Ann's phone")
    tablet = second_device(host, "Ann's tablet")

    page = admin_client.get(reverse("admin:players_player_change", args=[host.player.pk]))
    shown = page.content.decode()
    assert "Ann&#x27;s phone" in shown
    assert "Ann&#x27;s tablet" in shown
    assert host.token not in shown
    answer = admin_client.post(
        reverse("admin:players_player_changelist"),
        {"action": "sign_out_everywhere", "_selected_action": [str(host.player.pk)]},
        follow=True,
    )

    assert "2 sessions ended." in answer.content.decode()
    assert_error(host.get("/players/me"), 401, "not_authenticated")
    assert_error(tablet.get("/players/me"), 401, "not_authenticated")
    assert guest.get("/players/me").status_code == 200
