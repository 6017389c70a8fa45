"""Player names that mix scripts of look-alike letters are refused, at sign-up and
when a player changes their name; wherever others read a name (the leaderboard, a
table, a profile) it comes with the player's tag, so that two players of one name
can be told apart (docs/api.md, "Players")."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from rest_framework.test import APIClient

from players.models import Player, PlayerSession, Rating, hash_token, player_tag
from tests.factories import API, Persona, assert_error, make_persona, start_game

pytestmark = pytest.mark.django_db

CYRILLIC_ANN = "\u0410nn"  # a Cyrillic capital A, then Latin "nn"


def sign_up(name: str) -> Any:
    return APIClient().post(API + "/players", {"name": name}, format="json")


@pytest.mark.parametrize(
    "name", [CYRILLIC_ANN, "P\u0430ul", "J\u043ehn", "\u0397ello", "Ann\u0661"]
)
def test_a_name_mixing_look_alike_letters_of_two_scripts_is_refused_at_sign_up(name):
    error = assert_error(sign_up(name), 400, "invalid_request")
    assert "look alike" in error["details"]["fields"]["name"][0]
    assert not Player.objects.exists()


@pytest.mark.parametrize(
    "name",
    [
        "Ann",
        "\u0410\u043d\u044f",  # Аня, all Cyrillic
        "M\u00fcller",
        "\u674e\u96f7",  # 李雷
        "Ann-Marie O'Neil",
        "\u0391\u03b8\u03b7\u03bd\u03ac",  # Αθηνά, all Greek
        "Ann 2",
        "Ann \U0001f600",
        "\u0410\u043d\u044f 7",
    ],
)
def test_a_name_in_one_script_with_digits_or_emoji_is_accepted(name):
    answer = sign_up(name)
    assert answer.status_code == 201, answer.content
    assert answer.json()["name"] == name


def test_a_player_changes_their_name_and_a_look_alike_is_refused(host: Persona):
    error = assert_error(host.patch("/players/me", {"name": CYRILLIC_ANN}), 400, "invalid_request")
    assert "look alike" in error["message"]
    host.player.refresh_from_db()
    assert host.player.name == "Host"

    renamed = host.patch("/players/me", {"name": "  Ann  "})
    assert renamed.status_code == 200, renamed.content
    assert renamed.json()["name"] == "Ann"
    assert host.get("/players/me").json()["name"] == "Ann"
    # Nothing asked, nothing changed.
    assert host.patch("/players/me", {}).json()["name"] == "Ann"


def test_a_tag_is_four_characters_of_the_player_id_and_stays_the_same():
    player_id = uuid.UUID("5e1b2c3d-0000-4000-8000-000000000000")
    assert player_tag(player_id) == player_tag(str(player_id)) == "BRDJ"
    assert len({player_tag(uuid.uuid4()) for _ in range(50)}) > 45


def namesake(tag_bits: int) -> Persona:
    """A player named Ann whose id starts with `tag_bits`: namesakes of known tags."""
    persona = make_persona("Ann")
    new_id = uuid.UUID(int=(tag_bits << 108) | (uuid.uuid4().int & ((1 << 108) - 1)))
    Player.objects.filter(pk=persona.player.pk).update(id=new_id)
    PlayerSession.objects.filter(player_id=persona.player.pk).update(player_id=new_id)
    player = Player.objects.get(sessions__token_hash=hash_token(persona.token))
    player.session = persona.player.session
    persona.player = player
    return persona


def test_namesakes_are_told_apart_by_their_tags_in_the_leaderboard():
    anns = [namesake(1), namesake(2)]
    for persona in anns:
        Rating.objects.create(
            key=str(persona.player.pk),
            player=persona.player,
            mu=30.0,
            sigma=2.0,
            ordinal=24.0,
            games=7,
            opponents="a b c",
            opponents_met=3,
        )
    rows = anns[0].get("/leaderboard").json()["results"]
    seen = {row["player"]["id"]: row["player"] for row in rows}
    first, second = (seen[str(persona.player.pk)] for persona in anns)
    assert first["name"] == second["name"] == "Ann"
    assert (first["tag"], second["tag"]) == ("0001", "0002")
    profile = anns[1].get(f"/players/{anns[0].player.pk}").json()
    assert (profile["name"], profile["tag"]) == ("Ann", "0001")


def test_namesakes_are_told_apart_by_their_tags_at_a_table():
    anns = [namesake(3), namesake(4)]
    game = start_game(anns[0], anns[1], seed=5)
    view = anns[0].get(f"/games/{game.pk}").json()
    seated = [seat["player"] for seat in view["seats"]]
    assert [p["name"] for p in seated] == ["Ann", "Ann"]
    assert [p["tag"] for p in seated] == ["0003", "0004"]
    listed = anns[1].get("/games", mine="true").json()["results"][0]
    assert [p["player"]["tag"] for p in listed["players"]] == ["0003", "0004"]
