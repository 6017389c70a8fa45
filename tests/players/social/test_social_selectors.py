"""What other apps ask of friends and blocks: each answer in one query, ids as text."""

from __future__ import annotations

import pytest

from players.social import selectors
from tests.factories import BlockFactory, PlayerFactory, TalkMuteFactory, make_friends

pytestmark = pytest.mark.django_db


def test_friend_ids_are_the_players_friends_as_text(host, guest, outsider):
    make_friends(host, guest)

    assert selectors.friend_ids(host.player.pk) == [str(guest.player.pk)]
    assert selectors.friend_ids(str(guest.player.pk)) == [str(host.player.pk)]
    assert selectors.friend_ids(outsider.player.pk) == []


def test_a_block_counts_either_way(host, guest, outsider):
    BlockFactory(blocker=guest.player, blocked=host.player)

    assert selectors.blocked_either_way(host.player.pk, guest.player.pk)
    assert selectors.blocked_either_way(str(guest.player.pk), str(host.player.pk))
    assert not selectors.blocked_either_way(host.player.pk, outsider.player.pk)


def test_blocked_pairs_among_a_batch_in_one_query(host, guest, outsider, django_assert_num_queries):
    stranger = PlayerFactory()
    BlockFactory(blocker=host.player, blocked=guest.player)
    BlockFactory(blocker=guest.player, blocked=host.player)
    BlockFactory(blocker=outsider.player, blocked=guest.player)
    BlockFactory(blocker=stranger, blocked=host.player)  # outside the batch
    batch = [host.player.pk, str(guest.player.pk), outsider.player.pk]

    with django_assert_num_queries(1):
        pairs = selectors.blocked_pairs(batch)

    assert pairs == {
        frozenset({str(host.player.pk), str(guest.player.pk)}),
        frozenset({str(outsider.player.pk), str(guest.player.pk)}),
    }
    assert selectors.blocked_pairs([host.player.pk]) == set()


def test_blockers_among_are_those_blocking_or_blocked_either_way(host, guest, outsider):
    stranger = PlayerFactory()
    BlockFactory(blocker=host.player, blocked=guest.player)
    BlockFactory(blocker=outsider.player, blocked=host.player)
    BlockFactory(blocker=stranger, blocked=guest.player)

    found = selectors.blockers_among(
        host.player.pk, [guest.player.pk, outsider.player.pk, stranger.pk]
    )

    assert found == {str(guest.player.pk), str(outsider.player.pk)}
    assert selectors.blockers_among(host.player.pk, []) == set()


def test_hidden_from_each_viewer_are_blocked_blocking_and_muted_in_two_queries_for_all(
    host, guest, outsider, django_assert_num_queries
):
    muted, stranger = PlayerFactory(), PlayerFactory()
    BlockFactory(blocker=host.player, blocked=guest.player)
    BlockFactory(blocker=outsider.player, blocked=host.player)
    TalkMuteFactory(player=host.player, muted=muted)
    TalkMuteFactory(player=stranger, muted=host.player)  # the other way: not hidden
    PlayerFactory(hide_spectator_emotes=True)  # a choice of someone not asked about
    viewers = [host.player.pk, str(guest.player.pk), stranger.pk, muted.pk]

    with django_assert_num_queries(2):
        found = selectors.talk_preferences_of(viewers)

    assert found == {
        str(host.player.pk): (
            frozenset({str(guest.player.pk), str(outsider.player.pk), str(muted.pk)}),
            False,
        ),
        str(guest.player.pk): (frozenset({str(host.player.pk)}), False),
        str(stranger.pk): (frozenset({str(host.player.pk)}), False),
        str(muted.pk): (frozenset(), False),
    }
    assert selectors.talk_preferences_of([]) == {}


def test_talk_preferences_add_whether_spectators_emotes_are_hidden(host, guest):
    TalkMuteFactory(player=host.player, muted=guest.player)
    host.patch("/players/me/table-talk", {"hide_spectator_emotes": True})

    assert selectors.talk_preferences(host.player.pk) == (frozenset({str(guest.player.pk)}), True)
    assert selectors.talk_preferences(guest.player.pk) == (frozenset(), False)
