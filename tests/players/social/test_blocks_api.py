"""Blocks: a player keeps another away. Blocking ends their friendship and their
requests either way, is idempotent both ways, and is capped."""

from __future__ import annotations

import pytest
from django.utils import timezone

from players.models import Player
from players.social import blocks
from players.social.models import Block, FriendRequest, Friendship
from tests.factories import (
    BlockFactory,
    FriendRequestFactory,
    PlayerFactory,
    assert_error,
    make_friends,
)

pytestmark = pytest.mark.django_db


def test_blocking_a_player_lists_them_with_when_and_the_cap(host, guest):
    answer = host.client.put(f"/api/v1/players/me/blocks/{guest.player.pk}")

    assert answer.status_code == 204
    listed = host.get("/players/me/blocks").json()
    assert listed["cap"] == 1000
    (entry,) = listed["blocks"]
    assert entry["player"] == {
        "id": str(guest.player.pk),
        "name": guest.player.name,
        "tag": guest.player.tag,
    }
    assert entry["at"]


def test_the_block_list_shows_the_latest_first_and_only_the_callers(host, guest, outsider):
    host.client.put(f"/api/v1/players/me/blocks/{guest.player.pk}")
    host.client.put(f"/api/v1/players/me/blocks/{outsider.player.pk}")
    guest.client.put(f"/api/v1/players/me/blocks/{host.player.pk}")

    listed = host.get("/players/me/blocks").json()["blocks"]

    assert [b["player"]["id"] for b in listed] == [str(outsider.player.pk), str(guest.player.pk)]


def test_blocking_a_friend_ends_the_friendship_on_both_sides(host, guest, outsider):
    make_friends(host, guest)
    make_friends(guest, outsider)

    host.client.put(f"/api/v1/players/me/blocks/{guest.player.pk}")

    assert not Friendship.objects.filter(player=host.player).exists()
    assert not Friendship.objects.filter(friend=host.player).exists()
    assert Friendship.objects.filter(player=guest.player, friend=outsider.player).exists()


@pytest.mark.parametrize("direction", ["sent", "received"])
def test_blocking_ends_the_friend_requests_either_way(host, guest, outsider, direction):
    sender, receiver = (host, guest) if direction == "sent" else (guest, host)
    FriendRequestFactory(sender=sender.player, receiver=receiver.player)
    FriendRequestFactory(sender=outsider.player, receiver=guest.player)

    host.client.put(f"/api/v1/players/me/blocks/{guest.player.pk}")

    assert list(FriendRequest.objects.values_list("sender_id", flat=True)) == [outsider.player.pk]


def test_blocking_and_unblocking_again_change_nothing(host, guest):
    first = host.client.put(f"/api/v1/players/me/blocks/{guest.player.pk}")
    again = host.client.put(f"/api/v1/players/me/blocks/{guest.player.pk}")

    assert (first.status_code, again.status_code) == (204, 204)
    assert Block.objects.filter(blocker=host.player).count() == 1

    unblocked = host.delete(f"/players/me/blocks/{guest.player.pk}")
    unblocked_again = host.delete(f"/players/me/blocks/{guest.player.pk}")

    assert (unblocked.status_code, unblocked_again.status_code) == (204, 204)
    assert not Block.objects.exists()


def test_unblocking_leaves_the_ended_friendship_ended(host, guest):
    make_friends(host, guest)
    host.client.put(f"/api/v1/players/me/blocks/{guest.player.pk}")

    host.delete(f"/players/me/blocks/{guest.player.pk}")

    assert not Friendship.objects.exists()
    assert (
        guest.post("/players/me/friend-requests", {"player": str(host.player.pk)}).status_code
        == 201
    )


def test_a_player_cannot_block_themselves(host):
    assert_error(
        host.client.put(f"/api/v1/players/me/blocks/{host.player.pk}"), 400, "invalid_request"
    )
    assert not Block.objects.exists()


def test_blocking_an_unknown_or_deleted_player_is_not_found(host, guest):
    Player.objects.filter(pk=guest.player.pk).update(deleted_at=timezone.now())

    for target in ["6f1c2b7e-0d3a-4c59-9b1e-2a7d5c3e8f10", "not-an-id", str(guest.player.pk)]:
        assert_error(host.client.put(f"/api/v1/players/me/blocks/{target}"), 404, "not_found")
    assert_error(host.delete("/players/me/blocks/not-an-id"), 404, "not_found")
    assert not Block.objects.exists()


def test_a_player_blocks_at_most_so_many(host, guest, monkeypatch):
    monkeypatch.setattr(blocks, "MAX_BLOCKS", 4)
    BlockFactory.create_batch(4, blocker=host.player)
    make_friends(host, guest)

    refused = host.client.put(f"/api/v1/players/me/blocks/{guest.player.pk}")

    assert assert_error(refused, 409, "too_many_blocks")["details"] == {"limit": 4}
    assert Friendship.objects.filter(player=host.player, friend=guest.player).exists()
    assert host.get("/players/me/blocks").json()["cap"] == 4


def test_a_blocked_player_who_blocks_back_makes_two_blocks(host, guest):
    host.client.put(f"/api/v1/players/me/blocks/{guest.player.pk}")
    guest.client.put(f"/api/v1/players/me/blocks/{host.player.pk}")

    assert Block.objects.count() == 2
    host.delete(f"/players/me/blocks/{guest.player.pk}")
    assert_error(
        host.post("/players/me/friend-requests", {"player": str(guest.player.pk)}), 404, "not_found"
    )


def test_blocking_a_disabled_player_is_allowed(host):
    disabled = PlayerFactory(disabled_at=timezone.now())

    assert host.client.put(f"/api/v1/players/me/blocks/{disabled.pk}").status_code == 204
