"""Blocks at the table (docs/api.md, "Join" and "Join by code"): a game where a human
seated blocks the joiner, or is blocked by them, does not exist for the joiner: joining
it by id or by code answers 404 word for word as an unknown game, and no wrong code is
counted for it."""

from __future__ import annotations

import uuid

import pytest

from games.models import Seat
from tests.factories import BlockFactory, Persona, assert_error, make_persona, seat_table
from unoservice.throttling import FailedInviteCodeThrottle

pytestmark = pytest.mark.django_db


def new_game(host: Persona, **body: object) -> dict[str, object]:
    response = host.post("/games", {"max_players": 4, **body})
    assert response.status_code == 201, response.json()
    return response.json()  # type: ignore[no-any-return]


@pytest.mark.parametrize("direction", ["host blocks guest", "guest blocks host"])
def test_joining_a_public_game_by_id_is_404_as_an_unknown_game(host, guest, direction):
    game = new_game(host)
    one, other = (host, guest) if direction == "host blocks guest" else (guest, host)
    BlockFactory(blocker=one.player, blocked=other.player)

    unknown = guest.post(f"/games/{uuid.uuid4()}/join")
    blocked = guest.post(f"/games/{game['id']}/join")

    assert_error(blocked, 404, "not_found")
    assert blocked.json() == unknown.json()
    assert not Seat.objects.filter(player=guest.player).exists()


def test_a_block_with_any_human_seated_counts_not_only_the_hosts(host, guest, outsider):
    game = new_game(host)
    assert outsider.post(f"/games/{game['id']}/join").status_code == 200
    BlockFactory(blocker=guest.player, blocked=outsider.player)
    assert_error(guest.post(f"/games/{game['id']}/join"), 404, "not_found")
    # Someone else joins as ever.
    assert make_persona("Other").post(f"/games/{game['id']}/join").status_code == 200


def test_a_block_between_others_changes_nothing_for_the_joiner(host, guest, outsider):
    game = new_game(host)
    BlockFactory(blocker=outsider.player, blocked=make_persona("Someone").player)
    BlockFactory(blocker=host.player, blocked=make_persona("Else").player)
    assert guest.post(f"/games/{game['id']}/join").status_code == 200


def test_a_blocked_player_already_seated_keeps_their_seat(host, guest):
    game = new_game(host)
    assert guest.post(f"/games/{game['id']}/join").status_code == 200
    BlockFactory(blocker=host.player, blocked=guest.player)
    assert guest.post(f"/games/{game['id']}/join").status_code == 200  # changes nothing


def test_a_full_game_is_404_too_not_a_409(host, guest, outsider):
    full = seat_table(host, outsider)
    BlockFactory(blocker=host.player, blocked=guest.player)
    assert_error(guest.post(f"/games/{full.pk}/join"), 404, "not_found")


def test_bots_are_no_one_to_block(host, guest):
    game = seat_table(host, "greedy", max_players=3)
    BlockFactory(blocker=make_persona("Other").player, blocked=guest.player)
    assert guest.post(f"/games/{game.pk}/join").status_code == 200


def test_joining_a_private_game_by_code_is_404_as_an_unknown_code(host, guest):
    game = new_game(host, visibility="private")
    other = new_game(make_persona("Other"), visibility="private")
    BlockFactory(blocker=host.player, blocked=guest.player)
    unused = "".join(reversed(str(game["invite_code"])))
    while unused in (game["invite_code"], other["invite_code"]):
        unused = unused[1:] + unused[0]

    wrong = guest.post("/games/join", {"code": unused})
    blocked = guest.post("/games/join", {"code": game["invite_code"]})

    assert_error(blocked, 404, "not_found")
    assert blocked.json() == wrong.json()
    assert not Seat.objects.filter(game_id=game["id"], player=guest.player).exists()


def test_a_blocked_join_by_code_counts_no_wrong_code(host, guest):
    game = new_game(host, visibility="private")
    other = new_game(make_persona("Other"), visibility="private")
    BlockFactory(blocker=guest.player, blocked=host.player)
    rate = FailedInviteCodeThrottle().num_requests

    for _ in range(rate + 2):
        assert_error(guest.post("/games/join", {"code": game["invite_code"]}), 404, "not_found")

    # Were those counted, the player would be refused 429 now, the right code included.
    joined = guest.post("/games/join", {"code": other["invite_code"]})
    assert joined.status_code == 200, joined.json()


def test_joining_a_private_game_by_id_while_blocked_is_404_too(host, guest):
    game = new_game(host, visibility="private")
    BlockFactory(blocker=host.player, blocked=guest.player)
    assert_error(guest.post(f"/games/{game['id']}/join"), 404, "not_found")


def test_joining_a_rematch_where_a_block_now_stands_is_404(host, guest):
    from django.utils import timezone

    from tests.factories import stamp_game

    game = stamp_game(
        host=host.player,
        seats=[host.player, guest.player],
        status="finished",
        started_at=timezone.now(),
    )
    assert host.post(f"/games/{game.pk}/rematch").status_code == 201
    BlockFactory(blocker=host.player, blocked=guest.player)
    assert_error(guest.post(f"/games/{game.pk}/rematch"), 404, "not_found")
