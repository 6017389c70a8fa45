"""The selectors read games and their logs, and render nothing."""

from __future__ import annotations

import uuid

import pytest

from games import selectors, services
from games.models import Game
from tests.factories import GameFactory, start_game
from unoservice.errors import InvalidRequest


@pytest.fixture
def started_game(host, guest):
    return start_game(host, guest, seed=7)


@pytest.fixture
def games_by_status(host, guest):
    return {
        status: GameFactory(host=host.player, status=status)
        for status in ("waiting", "playing", "finished")
    }


def test_the_lobby_lists_the_newest_game_first(host, games_by_status):
    listed = list(selectors.game_list(viewer=host.player, filters={}))
    assert listed == sorted(games_by_status.values(), key=lambda g: g.created_at, reverse=True)


def test_the_lobby_narrows_by_status_and_by_the_games_one_sits_in(host, guest, games_by_status):
    playing = list(selectors.game_list(viewer=host.player, filters={"status": "playing"}))
    assert playing == [games_by_status["playing"]]
    assert list(selectors.game_list(viewer=guest.player, filters={"mine": "true"})) == []


def test_a_filter_value_out_of_its_choices_names_the_field(host):
    with pytest.raises(InvalidRequest) as raised:
        selectors.game_list(viewer=host.player, filters={"status": "WAITING", "mine": "maybe"})
    assert raised.value.message.startswith("status: ")
    assert set(raised.value.details["fields"]) == {"status", "mine"}


def test_the_events_between_two_seqs_come_in_order(started_game):
    game = started_game
    events = selectors.events_between(game.pk, 1, game.last_seq)
    assert [e.seq for e in events] == list(range(2, game.last_seq + 1))


def test_the_replay_context_stays_within_reach_of_its_event(started_game):
    around = selectors.events_around(started_game, 1, reach=2)
    assert [e.seq for e in around] == [1, 2, 3]


def test_the_admins_list_narrows_to_games_with_bots_or_of_humans_only(host, guest):
    with_bot = start_game(host, "greedy", seed=3)
    humans = start_game(host, guest, seed=4)
    games = Game.objects.all()
    assert list(selectors.games_with_bots(games, bots=True)) == [with_bot]
    assert list(selectors.games_with_bots(games, bots=False)) == [humans]


def test_a_game_typed_as_a_malformed_or_unknown_id_is_none(started_game):
    assert selectors.game_or_none(str(started_game.pk)) == started_game
    assert selectors.game_or_none("not-an-id") is None
    assert selectors.game_or_none(uuid.uuid4()) is None


def test_the_abandonment_of_a_game_is_the_event_that_ended_it(started_game):
    assert selectors.abandonment(started_game) is None
    services.game_abandon(game_id=started_game.pk, reason="stuck", by="admin")
    ended = selectors.abandonment(started_game)
    assert ended is not None
    assert ended.data["reason"] == "stuck"
