"""A deleted account drops out of friends, requests, blocks and mutes, both ways, and
its friend code stops working."""

from __future__ import annotations

import pytest

from players.accounts import erasure
from players.social.models import Block, FriendRequest, Friendship, TalkMute
from tests.factories import (
    BlockFactory,
    FriendRequestFactory,
    TalkMuteFactory,
    assert_error,
    make_friends,
)

pytestmark = pytest.mark.django_db


def test_deleting_an_account_removes_every_social_row_of_it_both_ways(host, guest, outsider):
    make_friends(host, guest)
    make_friends(guest, outsider)
    FriendRequestFactory(sender=host.player, receiver=outsider.player)
    BlockFactory(blocker=outsider.player, blocked=host.player)
    TalkMuteFactory(player=guest.player, muted=host.player)
    TalkMuteFactory(player=host.player, muted=outsider.player)
    code = host.get("/players/me/friend-code").json()["code"]

    assert host.client.delete("/api/v1/players/me").status_code == 204

    gone = host.player.pk
    assert not Friendship.objects.filter(player=gone).exists()
    assert not Friendship.objects.filter(friend=gone).exists()
    assert not FriendRequest.objects.exists()
    assert not Block.objects.exists()
    assert not TalkMute.objects.exists()
    assert Friendship.objects.filter(player=guest.player, friend=outsider.player).exists()
    assert_error(outsider.post("/players/me/friend-requests", {"code": code}), 404, "not_found")


def test_a_deleted_friend_leaves_the_lists_of_the_others(host, guest):
    make_friends(host, guest)
    FriendRequestFactory(sender=guest.player, receiver=host.player)

    erasure.account_delete(player_id=guest.player.pk, proof=None, meta={})

    friends = host.get("/players/me/friends").json()
    assert friends["friends"] == []
    assert friends["incoming"] == []
    assert host.get("/players/me/blocks").json()["blocks"] == []
