"""Friend requests: sent by id or by friend code, accepted, declined, cancelled, or
met by the other's own request; friendships ended; the caps and the rate; and the
players a request cannot find (unknown, deleted, disabled, blocked either way)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from players.models import Player
from players.social import friends
from players.social.limits import FriendRequestThrottle
from players.social.models import FriendRequest, Friendship
from tests.factories import (
    BlockFactory,
    FriendRequestFactory,
    Persona,
    PlayerFactory,
    assert_error,
    make_friends,
)

pytestmark = pytest.mark.django_db


def ref(persona: Persona) -> dict[str, str]:
    return {"id": str(persona.player.pk), "name": persona.player.name, "tag": persona.player.tag}


def ask(asker: Persona, asked: Persona):
    return asker.post("/players/me/friend-requests", {"player": str(asked.player.pk)})


def are_friends(a: Persona, b: Persona) -> bool:
    mine = Friendship.objects.filter(player=a.player, friend=b.player).exists()
    theirs = Friendship.objects.filter(player=b.player, friend=a.player).exists()
    assert mine == theirs, "a friendship is two rows"
    return mine


# -- sending ------------------------------------------------------------------------------


def test_a_request_by_id_waits_for_the_answer_and_tells_the_other(host, guest, notes):
    answer = ask(host, guest)

    assert answer.status_code == 201
    assert answer.json() == {"player": ref(guest), "status": "requested"}
    assert FriendRequest.objects.filter(sender=host.player, receiver=guest.player).exists()
    assert notes == [(str(guest.player.pk), "friend_request", {"from": ref(host)})]


@pytest.mark.parametrize("typed", ["{code}", "{lower}", "{spaced}", "{hyphened}"])
def test_a_request_by_friend_code_finds_its_player_however_it_is_typed(host, guest, typed):
    code = guest.get("/players/me/friend-code").json()["code"]
    sent = typed.format(
        code=code,
        lower=code.lower(),
        spaced=f" {code[:4].lower()} {code[4:]} ",
        hyphened=f"{code[:4]}-{code[4:].lower()}",
    )

    answer = host.post("/players/me/friend-requests", {"code": sent})

    assert answer.status_code == 201, answer.content
    assert answer.json()["player"] == ref(guest)


def test_a_request_sent_again_stays_one_request_and_tells_nobody_twice(host, guest, notes):
    ask(host, guest)

    again = ask(host, guest)

    assert again.status_code == 200
    assert again.json()["status"] == "requested"
    assert FriendRequest.objects.filter(sender=host.player).count() == 1
    assert len(notes) == 1


def test_asking_a_player_who_asked_you_makes_you_friends(host, guest, notes):
    ask(guest, host)
    notes.clear()

    answer = ask(host, guest)

    assert answer.status_code == 200
    assert answer.json() == {"player": ref(guest), "status": "friends"}
    assert are_friends(host, guest)
    assert not FriendRequest.objects.exists()
    assert notes == [(str(guest.player.pk), "friend_accepted", {"friend": ref(host)})]


def test_asking_a_friend_again_changes_nothing(host, guest, notes):
    make_friends(host, guest)

    answer = ask(host, guest)

    assert answer.status_code == 200
    assert answer.json() == {"player": ref(guest), "status": "friends"}
    assert not FriendRequest.objects.exists()
    assert notes == []


def test_nobody_can_befriend_themselves_by_id_or_by_code(host):
    code = host.get("/players/me/friend-code").json()["code"]

    assert_error(ask(host, host), 400, "invalid_request")
    assert_error(host.post("/players/me/friend-requests", {"code": code}), 400, "invalid_request")
    assert not FriendRequest.objects.exists()


def test_an_unknown_player_or_code_is_not_found(host):
    unknown = host.post(
        "/players/me/friend-requests", {"player": "6f1c2b7e-0d3a-4c59-9b1e-2a7d5c3e8f10"}
    )
    no_code = host.post("/players/me/friend-requests", {"code": "ABCD-EFGH"})

    assert_error(unknown, 404, "not_found")
    assert_error(no_code, 404, "not_found")


def test_a_deleted_or_disabled_player_is_not_found_as_if_they_did_not_exist(host, guest, outsider):
    Player.objects.filter(pk=guest.player.pk).update(deleted_at=timezone.now())
    Player.objects.filter(pk=outsider.player.pk).update(disabled_at=timezone.now())

    assert_error(ask(host, guest), 404, "not_found")
    assert_error(ask(host, outsider), 404, "not_found")
    assert not FriendRequest.objects.exists()


@pytest.mark.parametrize("who_blocks", ["asker", "asked"])
def test_a_block_either_way_hides_the_player_from_requests(host, guest, who_blocks, notes):
    blocker, blocked = (host, guest) if who_blocks == "asker" else (guest, host)
    BlockFactory(blocker=blocker.player, blocked=blocked.player)
    code = guest.get("/players/me/friend-code").json()["code"]

    by_id = ask(host, guest)
    by_code = host.post("/players/me/friend-requests", {"code": code})

    assert assert_error(by_id, 404, "not_found")["message"] == "no such player"
    assert_error(by_code, 404, "not_found")
    assert not FriendRequest.objects.exists()
    assert notes == []


# -- caps and the rate ----------------------------------------------------------------------


def test_a_player_with_the_most_friends_can_ask_no_one_more(host, guest, monkeypatch):
    monkeypatch.setattr(friends, "MAX_FRIENDS", 3)
    for _ in range(3):
        make_friends(host, PlayerFactory())

    refused = ask(host, guest)

    assert assert_error(refused, 409, "too_many_friends")["details"] == {"limit": 3}
    assert not FriendRequest.objects.exists()


def test_nobody_can_ask_a_player_who_has_the_most_friends(host, guest, monkeypatch):
    monkeypatch.setattr(friends, "MAX_FRIENDS", 2)
    for _ in range(2):
        make_friends(guest, PlayerFactory())

    assert_error(ask(host, guest), 409, "too_many_friends")


def test_accepting_past_the_cap_is_refused_and_the_request_stays(host, guest, monkeypatch):
    ask(guest, host)
    monkeypatch.setattr(friends, "MAX_FRIENDS", 1)
    make_friends(host, PlayerFactory())

    refused = host.post(f"/players/me/friend-requests/{guest.player.pk}/accept")
    crossing = ask(host, guest)

    assert_error(refused, 409, "too_many_friends")
    assert_error(crossing, 409, "too_many_friends")
    assert not are_friends(host, guest)
    assert FriendRequest.objects.filter(sender=guest.player, receiver=host.player).exists()


def test_a_player_has_at_most_so_many_requests_waiting(host, guest, monkeypatch):
    monkeypatch.setattr(friends, "MAX_PENDING_SENT", 5)
    FriendRequestFactory.create_batch(5, sender=host.player)

    refused = ask(host, guest)

    assert assert_error(refused, 409, "too_many_friend_requests")["details"] == {"limit": 5}
    host.delete(f"/players/me/friend-requests/{FriendRequest.objects.first().receiver_id}")
    assert ask(host, guest).status_code == 201


def test_friend_requests_are_rate_limited_per_player_counting_refused_ones(
    host, guest, outsider, monkeypatch
):
    monkeypatch.setattr(FriendRequestThrottle, "THROTTLE_RATES", {"friend_request": "3/hour"})

    answers = [
        host.post("/players/me/friend-requests", {"code": "ABCDEFGH"}),  # nobody's
        host.post("/players/me/friend-requests", {"player": "nope"}),  # malformed
        ask(host, guest),
        ask(host, outsider),
    ]

    assert [a.status_code for a in answers] == [404, 400, 201, 429]
    assert int(answers[-1]["Retry-After"]) >= 1
    assert_error(answers[-1], 429, "rate_limited")
    assert ask(outsider, guest).status_code == 201  # another player's own rate


# -- answering ----------------------------------------------------------------------------


def test_accepting_a_request_makes_friends_and_tells_the_sender(host, guest, notes):
    ask(guest, host)
    notes.clear()

    answer = host.post(f"/players/me/friend-requests/{guest.player.pk}/accept")

    assert answer.status_code == 200
    assert answer.json() == {"player": ref(guest), "status": "friends"}
    assert are_friends(host, guest)
    assert not FriendRequest.objects.exists()
    assert notes == [(str(guest.player.pk), "friend_accepted", {"friend": ref(host)})]


def test_only_a_request_waiting_for_you_can_be_accepted(host, guest, outsider):
    ask(host, guest)  # the host's own request, not one to the host

    own = host.post(f"/players/me/friend-requests/{guest.player.pk}/accept")
    none = host.post(f"/players/me/friend-requests/{outsider.player.pk}/accept")
    malformed = host.post("/players/me/friend-requests/not-an-id/accept")

    for answer in (own, none, malformed):
        assert_error(answer, 404, "not_found")
    assert not Friendship.objects.exists()


def test_declining_a_request_removes_it_without_a_word(host, guest, notes):
    ask(guest, host)
    notes.clear()

    answer = host.post(f"/players/me/friend-requests/{guest.player.pk}/decline")

    assert answer.status_code == 204
    assert not FriendRequest.objects.exists()
    assert not are_friends(host, guest)
    assert notes == []
    assert_error(
        host.post(f"/players/me/friend-requests/{guest.player.pk}/decline"), 404, "not_found"
    )


def test_cancelling_your_request_takes_it_back(host, guest):
    ask(host, guest)

    answer = host.delete(f"/players/me/friend-requests/{guest.player.pk}")

    assert answer.status_code == 204
    assert not FriendRequest.objects.exists()
    assert_error(host.delete(f"/players/me/friend-requests/{guest.player.pk}"), 404, "not_found")


def test_a_request_to_you_is_not_yours_to_cancel(host, guest):
    ask(guest, host)

    assert_error(host.delete(f"/players/me/friend-requests/{guest.player.pk}"), 404, "not_found")
    assert FriendRequest.objects.count() == 1


def test_ending_a_friendship_removes_it_on_both_sides(host, guest, outsider):
    make_friends(host, guest)
    make_friends(host, outsider)

    answer = guest.delete(f"/players/me/friends/{host.player.pk}")

    assert answer.status_code == 204
    assert not are_friends(host, guest)
    assert are_friends(host, outsider)
    assert_error(guest.delete(f"/players/me/friends/{host.player.pk}"), 404, "not_found")
    assert_error(guest.delete("/players/me/friends/not-an-id"), 404, "not_found")


# -- bodies -------------------------------------------------------------------------------

ODD_BODIES = [
    None,
    "",
    "null",
    "[]",
    "42",
    '"text"',
    "{}",
    '{"player": 42}',
    '{"player": null}',
    '{"player": ["x"]}',
    '{"player": "not-a-uuid"}',
    '{"player": "\\u0000"}',
    '{"code": 12345678}',
    '{"code": "ABC"}',
    '{"code": "ABCDEFGH0"}',
    '{"code": "ABCD\\u0000EFGH"}',
    '{"code": "' + "A" * 5000 + '"}',
    '{"code": "ABCDEFGH", "player": "6f1c2b7e-0d3a-4c59-9b1e-2a7d5c3e8f10"}',
    '{"code": "ABCDEFGH", "extra": 1}',
    '{"player": "\\ud800"}',
    "{",
]


@pytest.mark.parametrize("raw", ODD_BODIES, ids=repr)
def test_no_malformed_friend_request_gives_a_500_and_none_is_sent(host, raw):
    url = "/api/v1/players/me/friend-requests"
    if raw is None:
        answer = host.client.post(url)
    else:
        answer = host.client.post(url, data=raw, content_type="application/json")

    assert 400 <= answer.status_code < 500, answer.content
    assert_error(answer, answer.status_code, None)
    assert not FriendRequest.objects.exists()


def test_a_body_that_is_not_json_is_refused_as_such(host):
    answer = host.client.post(
        "/api/v1/players/me/friend-requests", "player=x", content_type="text/plain"
    )

    assert_error(answer, 415, "unsupported_media_type")


def test_friend_requests_need_a_token(anonymous, guest):
    answer = anonymous.post(
        "/api/v1/players/me/friend-requests", {"player": str(guest.player.pk)}, format="json"
    )

    assert_error(answer, 401, "not_authenticated")
