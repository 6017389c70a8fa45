"""A rematch that invites friends: ``POST /games/{id}/rematch`` with
``{"invite": [...]}`` (docs/api.md, "Inviting friends")."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.utils import timezone

from games.models import Game
from games.talk.models import GameInvite
from tests.factories import Persona, assert_error, make_friends, make_persona, reload, stamp_game
from unoservice import notices

pytestmark = pytest.mark.django_db


def over(*seats: Persona | str, **fields: Any) -> Game:
    """A finished game (a row written directly), the first persona hosting."""
    holders = [s.player if isinstance(s, Persona) else s for s in seats]
    host = next(h for h in holders if not isinstance(h, str))
    return stamp_game(
        host=host, seats=holders, status="finished", started_at=timezone.now(), **fields
    )


def rematch(persona: Persona, game: Game, body: Any = None) -> Any:
    return persona.post(f"/games/{game.pk}/rematch", body)


@pytest.fixture
def notes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, dict[str, Any]]]:
    sent: list[tuple[str, str, dict[str, Any]]] = []
    monkeypatch.setattr(
        notices, "note", lambda player_id, event, data: sent.append((str(player_id), event, data))
    )
    return sent


def test_a_rematch_invites_the_friends_listed(host, guest, outsider, notes):
    make_friends(host, guest)
    make_friends(host, outsider)
    game = over(host, "greedy", max_players=4)

    response = rematch(host, game, {"invite": [str(guest.player.pk), str(outsider.player.pk)]})

    assert response.status_code == 201, response.json()
    new = response.json()["id"]
    invited = GameInvite.objects.filter(game_id=new).order_by("player__name")
    assert [(i.player.name, i.by_id) for i in invited] == [
        ("Guest", host.player.pk),
        ("Outsider", host.player.pk),
    ]
    assert sorted((player, event) for player, event, _ in notes) == sorted(
        [(str(guest.player.pk), "game_invite"), (str(outsider.player.pk), "game_invite")]
    )
    assert {data["game"] for _, _, data in notes} == {new}


def test_a_private_games_rematch_is_joined_by_id_by_a_friend_invited_to_it(host, guest):
    make_friends(host, guest)
    game = over(host, "greedy", max_players=3, visibility="private", invite_code="K7MQX2RP")

    new = rematch(host, game, {"invite": [str(guest.player.pk)]}).json()

    assert new["visibility"] == "private"
    joined = guest.post(f"/games/{new['id']}/join")
    assert joined.status_code == 200, joined.json()
    assert joined.json()["you"]["seat"] == 2


def test_without_a_body_a_rematch_invites_nobody(host):
    game = over(host, "greedy")
    assert rematch(host, game).status_code == 201
    assert rematch(host, game, {}).status_code == 201
    assert not GameInvite.objects.exists()


def test_a_player_joining_the_rematch_invites_too(host, guest, outsider, notes):
    make_friends(guest, outsider)
    game = over(host, guest, max_players=4)
    first = rematch(host, game).json()

    response = rematch(guest, game, {"invite": [str(outsider.player.pk)]})

    assert response.status_code == 201
    assert response.json()["id"] == first["id"]
    assert GameInvite.objects.get(game_id=first["id"]).by_id == guest.player.pk


def test_one_who_is_not_a_friend_refuses_the_rematch_and_nothing_changes(host, guest, outsider):
    make_friends(host, guest)
    game = over(host, "greedy", max_players=4)

    refused = rematch(host, game, {"invite": [str(guest.player.pk), str(outsider.player.pk)]})

    assert_error(refused, 403, "not_friends")
    assert reload(game).rematch_id is None
    assert Game.objects.count() == 1
    # (The guest's note went out in the transaction rolled back: on PostgreSQL a
    # note is sent on commit only, `unoservice.notices`.)
    assert not GameInvite.objects.exists()


def test_friends_already_seated_and_a_full_rematch_are_left_out(host, guest, outsider, notes):
    make_friends(host, guest)
    make_friends(guest, outsider)
    game = over(host, guest, max_players=2)
    first = rematch(host, game, {"invite": [str(guest.player.pk)]})
    assert first.status_code == 201
    assert GameInvite.objects.count() == 1

    # The guest takes the last seat: the rematch is full, nobody is invited.
    again = rematch(guest, game, {"invite": [str(outsider.player.pk)]})
    assert again.status_code == 201, again.json()
    assert GameInvite.objects.count() == 1
    # The host names the guest, who sits there now: left out.
    assert rematch(host, game, {"invite": [str(guest.player.pk)]}).status_code == 201


@pytest.mark.parametrize(
    "body",
    [
        [],
        "invite",
        {"invite": "9a4d0c3b-51e2-4b7a-8f6d-0e2c4a1b9d77"},
        {"invite": [5]},
        {"invite": [None]},
        {"invite": ["not-an-id"]},
        {"invite": [{"id": "9a4d0c3b-51e2-4b7a-8f6d-0e2c4a1b9d77"}]},
        {"invite": [str(uuid.UUID(int=n)) for n in range(11)]},
        {"invite": None},
        {"friends": []},
    ],
)
def test_a_malformed_body_is_a_400_and_changes_nothing(host, body):
    game = over(host, "greedy")
    assert_error(rematch(host, game, body), 400, "invalid_request")
    assert reload(game).rematch_id is None


def test_naming_yourself_in_a_rematch_is_left_out_as_one_seated(host):
    game = over(host, "greedy", max_players=3)
    assert rematch(host, game, {"invite": [str(host.player.pk)]}).status_code == 201
    assert not GameInvite.objects.exists()


def test_a_malformed_body_for_a_game_that_does_not_exist_for_the_caller_is_its_404(host, guest):
    private = over(host, "greedy", visibility="private", invite_code="K7MQX2RP")
    assert_error(guest.post(f"/games/{private.pk}/rematch", {"x": 1}), 404, "not_found")
    assert_error(guest.post(f"/games/{uuid.uuid4()}/rematch", {"x": 1}), 404, "not_found")


def test_the_same_friend_listed_twice_is_invited_once(host, guest, notes):
    make_friends(host, guest)
    game = over(host, "greedy", max_players=4)
    friend = str(guest.player.pk)
    assert rematch(host, game, {"invite": [friend, friend.upper()]}).status_code == 201
    assert GameInvite.objects.count() == 1
    assert len(notes) == 1


def test_ten_friends_may_be_invited_at_once_whatever_the_free_seats(host, notes):
    friends = [make_persona(f"F{n}") for n in range(10)]
    for friend in friends:
        make_friends(host, friend)
    game = over(host, max_players=10)
    body = {"invite": [str(friend.player.pk) for friend in friends]}
    assert rematch(host, game, body).status_code == 201
    # An invite takes no seat: the first nine to join get one, the tenth finds it full.
    assert GameInvite.objects.count() == 10
    assert len(notes) == 10
