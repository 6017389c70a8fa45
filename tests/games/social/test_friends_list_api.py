"""The list of friends: each with their presence (in a game, online, offline) and the
game they sit in when the caller may see it, in that order; the requests both ways,
the caller's code and the caps; in a bounded number of queries."""

from __future__ import annotations

import pytest

from games.models import Seat
from games.talk.models import GameInvite
from tests.factories import (
    FriendRequestFactory,
    Persona,
    PlayerFactory,
    make_friends,
    make_persona,
    seat_table,
    stamp_game,
)
from unoservice import presence

pytestmark = pytest.mark.django_db


def ref(player) -> dict[str, str]:
    return {"id": str(player.pk), "name": player.name, "tag": player.tag}


def entry(persona: Persona, caller: Persona) -> dict:
    (found,) = [
        f
        for f in caller.get("/players/me/friends").json()["friends"]
        if f["player"]["id"] == str(persona.player.pk)
    ]
    return found


def test_a_player_without_friends_gets_their_code_and_the_caps(host):
    answer = host.get("/players/me/friends")

    assert answer.status_code == 200
    body = answer.json()
    code = host.get("/players/me/friend-code").json()["code"]
    assert body == {
        "friends": [],
        "incoming": [],
        "outgoing": [],
        "code": code,
        "link": f"/play/friends/{code}",
        "caps": {"friends": 500, "outgoing": 100},
    }


def test_friends_and_requests_both_ways_are_listed_with_when(host, guest, outsider):
    make_friends(host, guest)
    asker, asked = PlayerFactory(name="Asker"), PlayerFactory(name="Asked")
    FriendRequestFactory(sender=asker, receiver=host.player)
    FriendRequestFactory(sender=host.player, receiver=asked)

    body = host.get("/players/me/friends").json()

    (friend,) = body["friends"]
    assert friend["player"] == ref(guest.player)
    assert friend["since"]
    assert friend["presence"] == {"status": "offline", "game": None}
    assert [(r["player"], bool(r["at"])) for r in body["incoming"]] == [(ref(asker), True)]
    assert [(r["player"], bool(r["at"])) for r in body["outgoing"]] == [(ref(asked), True)]


def test_a_friend_seen_lately_is_online(host, guest):
    make_friends(host, guest)
    guest.get("/players/me")  # any request marks the player seen

    assert entry(guest, host)["presence"] == {"status": "online", "game": None}


def test_a_friend_seated_in_a_public_game_is_in_it_for_all_their_friends(host, guest, outsider):
    make_friends(host, guest)
    game = seat_table(outsider, guest, max_players=3)

    assert entry(guest, host)["presence"] == {"status": "in_game", "game": str(game.pk)}


def test_a_friends_private_game_is_named_only_to_its_players_and_those_invited(
    host, guest, outsider
):
    make_friends(host, guest)
    make_friends(outsider, guest)
    game = seat_table(guest, visibility="private", max_players=4)

    assert entry(guest, host)["presence"] == {"status": "in_game", "game": None}

    GameInvite.objects.create(game=game, player=host.player, by=guest.player)
    Seat.objects.create(game=game, seat=1, player=outsider.player)

    assert entry(guest, host)["presence"] == {"status": "in_game", "game": str(game.pk)}
    assert entry(guest, outsider)["presence"] == {"status": "in_game", "game": str(game.pk)}


def test_a_friend_whose_seat_a_bot_took_or_whose_game_ended_is_not_in_a_game(host, guest):
    make_friends(host, guest)
    stamp_game(host=guest.player, status="finished")
    playing = stamp_game(status="playing", seats=[PlayerFactory(), guest.player])
    Seat.objects.filter(game=playing, player=guest.player).update(bot="greedy")

    assert entry(guest, host)["presence"] == {"status": "offline", "game": None}


def test_friends_are_listed_in_a_game_then_online_then_offline_by_name(host):
    names = ["dora", "Bob", "alice", "Carl", "eve"]
    friends = {name: make_persona(name) for name in names}
    for friend in friends.values():
        make_friends(host, friend)
    stamp_game(status="playing", seats=[PlayerFactory(), friends["eve"].player])
    stamp_game(status="waiting", seats=[friends["Carl"].player])
    presence.seen(friends["dora"].player.pk)
    presence.seen(friends["Bob"].player.pk)

    listed = host.get("/players/me/friends").json()["friends"]

    assert [(f["player"]["name"], f["presence"]["status"]) for f in listed] == [
        ("Carl", "in_game"),
        ("eve", "in_game"),
        ("Bob", "online"),
        ("dora", "online"),
        ("alice", "offline"),
    ]


def test_the_list_costs_the_same_queries_with_many_friends(host, django_assert_max_num_queries):
    host.get("/players/me/friends")  # the code drawn, the token's session touched
    for n in range(60):
        friend = PlayerFactory(name=f"friend{n}")
        make_friends(host, friend)
        if n % 3 == 0:
            stamp_game(status="playing" if n % 2 else "waiting", seats=[friend, PlayerFactory()])
        FriendRequestFactory(sender=PlayerFactory(), receiver=host.player)
        FriendRequestFactory(sender=host.player, receiver=PlayerFactory())

    with django_assert_max_num_queries(6):
        answer = host.get("/players/me/friends")

    body = answer.json()
    assert len(body["friends"]) == 60
    assert len(body["incoming"]) == 60
    assert len(body["outgoing"]) == 60
    assert sum(f["presence"]["status"] == "in_game" for f in body["friends"]) == 20


def test_the_friends_list_needs_a_token(anonymous, db):
    assert anonymous.get("/api/v1/players/me/friends").status_code == 401
