"""A player's friend code: drawn when first asked for, kept until a new one is asked
for, and read as typed in any case, with spaces and hyphens."""

from __future__ import annotations

import pytest

from players.models import Player
from tests.factories import Persona, assert_error
from unoservice import codes

pytestmark = pytest.mark.django_db


def test_a_friend_code_is_drawn_when_first_asked_for_and_then_kept(host: Persona):
    assert Player.objects.get(pk=host.player.pk).friend_code is None

    first = host.get("/players/me/friend-code")
    again = host.get("/players/me/friend-code")

    assert first.status_code == 200
    code = first.json()["code"]
    assert first.json() == {"code": code, "link": f"/play/friends/{code}"}
    assert len(code) == 8
    assert set(code) <= set(codes.ALPHABET)
    assert again.json() == first.json()
    assert Player.objects.get(pk=host.player.pk).friend_code == code


def test_a_new_friend_code_replaces_the_old_one_which_stops_working(host: Persona, guest: Persona):
    old = host.get("/players/me/friend-code").json()["code"]

    renewed = host.post("/players/me/friend-code")

    assert renewed.status_code == 201
    new = renewed.json()["code"]
    assert new != old
    assert renewed.json()["link"] == f"/play/friends/{new}"
    assert host.get("/players/me/friend-code").json()["code"] == new
    assert_error(guest.post("/players/me/friend-requests", {"code": old}), 404, "not_found")
    assert guest.post("/players/me/friend-requests", {"code": new}).status_code == 201


def test_a_new_friend_code_asked_again_with_the_same_key_is_the_same_code(host: Persona):
    first = host.post("/players/me/friend-code", **{"Idempotency-Key": "new-code-1"})
    again = host.post("/players/me/friend-code", **{"Idempotency-Key": "new-code-1"})

    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("K7MQX2RP", "K7MQX2RP"),
        ("k7mq x2rp", "K7MQX2RP"),
        ("k7mq-x2rp", "K7MQX2RP"),
        ("  K7 MQ-X2 RP \t", "K7MQX2RP"),
        ("K7MQX2R", None),
        ("K7MQX2RPA", None),
        ("K7MQX2R0", None),
        ("K7MQX2RI", None),
        ("", None),
    ],
)
def test_a_typed_code_is_read_in_any_case_with_spaces_and_hyphens_left_out(typed, expected):
    assert codes.read_code(typed) == expected


def test_a_code_collision_draws_again(host: Persona, guest: Persona, monkeypatch):
    taken = guest.get("/players/me/friend-code").json()["code"]
    draws = iter([taken, taken, "ABCDEFGH"])
    monkeypatch.setattr(codes, "new_code", lambda: next(draws))

    answer = host.get("/players/me/friend-code")

    assert answer.json()["code"] == "ABCDEFGH"
    assert guest.get("/players/me/friend-code").json()["code"] == taken
