"""`GET /games/join?code=`: whose game an invite code leads to, told before joining
and before signing up (the invite link's page), and nothing more; unknown codes, the
games of who blocks the caller and wrong codes answered as joining by code is."""

from __future__ import annotations

import pytest

from games.models import Game
from tests.factories import BlockFactory, Persona, assert_error, footprint
from unoservice.throttling import FailedInviteCodeAddressThrottle

pytestmark = pytest.mark.django_db

NOBODYS_CODE = "ZZZZ-9999"


def private_game(host: Persona, **body: object) -> dict:
    answer = host.post("/games", {"visibility": "private", "max_players": 4, **body})
    assert answer.status_code == 201, answer.json()
    return answer.json()


def test_a_code_tells_someone_not_signed_up_whose_game_it_is_and_how_full(host, guest, anonymous):
    game = private_game(host)
    assert guest.post("/games/join", {"code": game["invite_code"]}).status_code == 200
    typed = f"{game['invite_code'][:4].lower()}-{game['invite_code'][4:].lower()}"

    answer = anonymous.get("/api/v1/games/join", {"code": typed})

    assert answer.status_code == 200, answer.json()
    assert answer.json() == {
        "host": {"id": str(host.player.pk), "name": "Host", "tag": host.player.tag},
        "seats_taken": 2,
        "max_players": 4,
        "status": "waiting",
    }


def test_reading_an_invitation_changes_nothing(host, anonymous):
    game = private_game(host)
    before = footprint(game["id"])
    assert anonymous.get("/api/v1/games/join", {"code": game["invite_code"]}).status_code == 200
    assert footprint(game["id"]) == before


def test_a_running_game_s_code_says_it_has_started_and_an_ended_one_is_not_found(host, guest):
    game = private_game(host, max_players=2)
    assert guest.post("/games/join", {"code": game["invite_code"]}).status_code == 200
    assert host.post(f"/games/{game['id']}/start").status_code == 200
    assert guest.get("/games/join", code=game["invite_code"]).json()["status"] == "playing"

    Game.objects.filter(pk=game["id"]).update(status="abandoned")
    assert_error(guest.get("/games/join", code=game["invite_code"]), 404, "not_found")


def test_an_unknown_code_is_404_and_a_code_of_the_wrong_shape_400(anonymous):
    assert_error(anonymous.get("/api/v1/games/join", {"code": NOBODYS_CODE}), 404, "not_found")
    assert_error(anonymous.get("/api/v1/games/join", {"code": "K7MQ-X2R0"}), 400, "invalid_request")
    assert_error(anonymous.get("/api/v1/games/join"), 400, "invalid_request")
    assert_error(anonymous.get("/api/v1/games/join", {"code": "K" * 33}), 400, "invalid_request")


def test_the_game_of_who_blocks_the_caller_is_answered_as_an_unknown_code(host, outsider):
    game = private_game(host)
    BlockFactory(blocker=host.player, blocked=outsider.player)

    hidden = assert_error(outsider.get("/games/join", code=game["invite_code"]), 404, "not_found")
    unknown = assert_error(outsider.get("/games/join", code=NOBODYS_CODE), 404, "not_found")
    assert hidden == unknown


def test_a_bad_token_is_refused_rather_than_read_as_no_token(host, anonymous):
    game = private_game(host)
    anonymous.credentials(HTTP_AUTHORIZATION="Bearer not-a-token")
    answer = anonymous.get("/api/v1/games/join", {"code": game["invite_code"]})
    assert_error(answer, 401, None)


def test_wrong_codes_from_an_address_count_and_then_even_the_right_one_is_refused(
    host, anonymous, monkeypatch
):
    monkeypatch.setattr(FailedInviteCodeAddressThrottle, "rate", "3/min", raising=False)
    game = private_game(host)
    for _ in range(3):
        assert_error(anonymous.get("/api/v1/games/join", {"code": NOBODYS_CODE}), 404, "not_found")

    refused = anonymous.get("/api/v1/games/join", {"code": game["invite_code"]})

    assert_error(refused, 429, "rate_limited")
    assert int(refused["Retry-After"]) >= 1
