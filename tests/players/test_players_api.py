"""``POST /players`` and ``GET /players/me`` through HTTP, as docs/api.md describes them."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from games.engine.position import build_state
from games.engine.scoring import hand_points
from games.models import Game
from players.models import Player
from tests.factories import API, Persona, assert_error, put_state, start_game

STATS_KEYS = {
    "games_played",
    "games_won",
    "rounds_won",
    "points",
    "partners_games_played",
    "partners_games_won",
}


def create_player(client: APIClient, body: Any, **headers: str) -> Any:
    return client.post(API + "/players", body, format="json", headers=headers)


def me(client: APIClient) -> Any:
    return client.get(API + "/players/me")


def bearer(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


# -- POST /players -------------------------------------------------------------------


def test_creating_a_player_needs_no_token_and_answers_id_name_token_and_session(anonymous, db):
    response = create_player(anonymous, {"name": "Ann"})
    assert response.status_code == 201, response.json()
    body = response.json()
    assert set(body) == {"id", "name", "token", "session"}
    assert body["name"] == "Ann"
    assert isinstance(body["token"], str)
    assert body["token"]
    assert Player.objects.filter(pk=body["id"], name="Ann").exists()


def test_the_token_of_a_new_player_authenticates_them(anonymous, db):
    created = create_player(anonymous, {"name": "Ann"}).json()
    response = me(bearer(created["token"]))
    assert response.status_code == 200, response.json()
    assert response.json()["id"] == created["id"]
    assert response.json()["name"] == "Ann"


def test_every_new_player_gets_their_own_id_and_token(anonymous, db):
    first = create_player(anonymous, {"name": "Ann"}).json()
    second = create_player(anonymous, {"name": "Ann"}).json()
    assert first["id"] != second["id"]
    assert first["token"] != second["token"]


def test_the_name_is_trimmed(anonymous, db):
    response = create_player(anonymous, {"name": "  \tAnn Lee \n "})
    assert response.status_code == 201, response.json()
    assert response.json()["name"] == "Ann Lee"


@pytest.mark.parametrize(
    "name",
    ["A", "x" * 32, "  " + "y" * 32 + "  ", "Zoë", "玩家", "UNO!? #1", "🎲 dice"],
)
def test_names_of_1_to_32_printable_characters_after_trimming_are_accepted(anonymous, db, name):
    response = create_player(anonymous, {"name": name})
    assert response.status_code == 201, response.json()
    assert response.json()["name"] == name.strip()


@pytest.mark.parametrize(
    "name",
    ["", "   ", "\t\n", "x" * 33, "  " + "y" * 33 + "  ", "Ann\x00", "A\nB", "bell\x07", "\u200b"],
)
def test_a_name_that_is_empty_too_long_or_not_printable_is_rejected(anonymous, db, name):
    response = create_player(anonymous, {"name": name})
    assert_error(response, 400, "invalid_request")
    assert Player.objects.count() == 0


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"name": None},
        {"name": 5},
        {"name": True},
        {"name": ["Ann"]},
        {"name": {"first": "Ann"}},
        ["Ann"],
        "Ann",
        5,
    ],
    ids=[
        "missing name",
        "null name",
        "int name",
        "bool name",
        "list name",
        "object name",
        "list body",
        "string body",
        "number body",
    ],
)
def test_a_malformed_player_body_is_a_400_and_creates_nobody(anonymous, db, body):
    response = create_player(anonymous, body)
    assert_error(response, 400, "invalid_request")
    assert Player.objects.count() == 0


def test_malformed_json_when_creating_a_player_is_a_400(anonymous, db):
    response = anonymous.post(
        API + "/players", data='{"name": "Ann"', content_type="application/json"
    )
    assert_error(response, 400, "invalid_request")
    assert Player.objects.count() == 0


def test_a_player_token_is_not_needed_but_does_not_hurt_when_creating_a_player(host):
    response = host.post("/players", {"name": "Second device"})
    assert response.status_code == 201, response.json()
    assert response.json()["id"] != str(host.player.pk)


# -- GET /players/me -------------------------------------------------------------------


def test_me_answers_id_name_zero_stats_and_the_starting_rating_for_a_new_player(host):
    response = host.get("/players/me")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert set(body) == {
        "id",
        "name",
        "stats",
        "rating",
        "rank",
        "provisional",
        "opponents",
        "notifications",
        "recoverable",
        "identities",
        "password_set",
    }
    assert (body["recoverable"], body["identities"], body["password_set"]) == (False, [], False)
    assert body["id"] == str(host.player.pk)
    assert body["name"] == "Host"
    assert body["stats"] == dict.fromkeys(STATS_KEYS, 0)
    assert body["rating"] == {"mu": 25.0, "sigma": 25 / 3, "ordinal": 0.0, "games": 0}
    assert body["rank"] is None


def test_me_never_shows_the_token(anonymous, db):
    created = create_player(anonymous, {"name": "Ann"}).json()
    body = me(bearer(created["token"])).json()
    assert "token" not in body
    assert created["token"] not in str(body)


def test_me_without_a_token_is_a_401(anonymous, db):
    assert_error(me(anonymous), 401, "not_authenticated")


@pytest.mark.parametrize(
    "header",
    [
        "Bearer not-a-real-token",
        "Bearer ",
        "Bearer",
        "Token abc",
        "Basic dXNlcjpwYXNz",
        "bearer",
        "Bearer " + "x" * 5000,
        "garbage",
    ],
)
def test_me_with_a_bad_or_malformed_token_is_a_401(anonymous, db, header):
    anonymous.credentials(HTTP_AUTHORIZATION=header)
    assert_error(me(anonymous), 401, "not_authenticated")


def test_the_token_of_one_player_does_not_open_another_players_account(host, guest):
    assert host.get("/players/me").json()["id"] == str(host.player.pk)
    assert guest.get("/players/me").json()["id"] == str(guest.player.pk)


def host_goes_out(host: Persona, game_id: str, target_score: int) -> int:
    """The host holds one red 5 on a red 3 and plays it: the round ends. Returns the
    points the guest's hand is worth."""
    state = build_state(
        [["R5"], ["G7", "B+2", "W", "Y0"]], top="R3", current=0, target_score=target_score
    )
    put_state(game_id, state)
    view = host.get(f"/games/{game_id}").json()
    card = view["you"]["hand"][0]["id"]
    response = host.move(game_id, view["version"], action="play", card=card)
    assert response.status_code == 200, response.json()
    return hand_points(state.hands[1])


def test_me_counts_a_won_single_round_game_for_the_winner_and_a_played_one_for_the_loser(
    host, guest
):
    game_id = str(start_game(host, guest, seed=5).pk)
    points = host_goes_out(host, game_id, target_score=0)
    assert points == 7 + 20 + 50 + 0
    assert host.get("/players/me").json()["stats"] == {
        "games_played": 1,
        "games_won": 1,
        "rounds_won": 1,
        "points": points,
        "partners_games_played": 0,
        "partners_games_won": 0,
    }
    assert guest.get("/players/me").json()["stats"] == {
        "games_played": 1,
        "games_won": 0,
        "rounds_won": 0,
        "points": 0,
        "partners_games_played": 0,
        "partners_games_won": 0,
    }


def test_me_counts_a_won_round_before_the_game_is_over(host, guest):
    game_id = str(start_game(host, guest, seed=5, target_score=500).pk)
    points = host_goes_out(host, game_id, target_score=500)
    assert Game.objects.get(pk=game_id).status == "playing"
    assert host.get("/players/me").json()["stats"] == {
        "games_played": 0,
        "games_won": 0,
        "rounds_won": 1,
        "points": points,
        "partners_games_played": 0,
        "partners_games_won": 0,
    }
    assert guest.get("/players/me").json()["stats"] == dict.fromkeys(STATS_KEYS, 0)


@pytest.mark.parametrize(("method", "path"), [("get", "/players"), ("post", "/players/me")])
def test_the_wrong_method_on_a_player_path_is_a_405(host, method, path):
    response = getattr(host.client, method)(API + path, format="json")
    assert_error(response, 405, None)
