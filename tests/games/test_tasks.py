"""The Celery tasks, called as the worker calls them: each does nothing unless the game
is still at the version it was sent for, running, and waiting on that kind of seat."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.conf import settings

from games import dispatch, tasks
from games.models import Game, GameStatus
from tests.factories import human_to_act_game, seed_where, start_game

pytestmark = pytest.mark.django_db


def test_the_task_names_the_services_send_are_the_tasks_the_worker_runs():
    from unoservice.celery import app

    names = {
        dispatch.BOT_TURN,
        dispatch.TURN_TIMEOUT,
        dispatch.SWEEP,
        dispatch.PAUSE_EXPIRY,
        dispatch.PURGE_IDEMPOTENCY,
    }
    assert names <= set(app.tasks)


def test_beat_sweeps_every_two_seconds_and_drops_a_sweep_that_waited_longer():
    entry = settings.CELERY_BEAT_SCHEDULE["sweep-overdue-turns"]
    assert entry["task"] == dispatch.SWEEP
    assert entry["schedule"] == 2.0
    assert entry["options"] == {"expires": 2.0}


def test_the_broker_keeps_a_task_longer_than_any_countdown_the_services_use():
    from games.services import longest_countdown

    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    assert longest_countdown() == dt.timedelta(minutes=30)
    assert visibility >= 2 * longest_countdown().total_seconds()
    assert longest_countdown().total_seconds() > settings.BOT_THINK_SECONDS


@pytest.mark.parametrize("visibility", [2, 7, 60, 3599, 3600, 86400])
def test_the_longest_countdown_is_half_the_visibility_timeout_at_most(settings, visibility):
    from games.services import longest_countdown

    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": visibility}
    longest = longest_countdown().total_seconds()
    assert longest <= visibility / 2
    assert longest == min(1800, visibility / 2)


def test_a_bot_turn_task_moves_the_bot_once(host):
    game = start_game(host, "greedy", seed=seed_where(2, lambda s: s.to_act == 1))
    assert tasks.bot_turn(str(game.pk), game.version) is True
    assert tasks.bot_turn(str(game.pk), game.version) is False  # redelivered
    assert Game.objects.get(pk=game.pk).version == game.version + 1


def test_a_bot_turn_task_for_a_finished_game_does_nothing(host):
    game = start_game(host, "greedy", seed=seed_where(2, lambda s: s.to_act == 1))
    Game.objects.filter(pk=game.pk).update(status=GameStatus.FINISHED)
    assert tasks.bot_turn(str(game.pk), game.version) is False


def test_a_bot_turn_task_on_a_human_seat_does_nothing(host):
    game = start_game(host, "greedy", seed=seed_where(2, lambda s: s.to_act == 0))
    assert tasks.bot_turn(str(game.pk), game.version) is False
    assert Game.objects.get(pk=game.pk).version == game.version


def test_a_timeout_task_applies_the_timeout_once_and_only_when_due(host, guest):
    game = human_to_act_game(host, guest)
    assert tasks.turn_timeout(str(game.pk), game.version) is False  # early
    with time_machine.travel(game.turn_deadline + dt.timedelta(milliseconds=20), tick=False):
        assert tasks.turn_timeout(str(game.pk), game.version - 1) is False  # stale
        assert tasks.turn_timeout(str(game.pk), game.version) is True
        assert tasks.turn_timeout(str(game.pk), game.version) is False  # redelivered


def test_a_timeout_task_on_a_bot_seat_does_nothing(host):
    game = start_game(host, "greedy", seed=seed_where(2, lambda s: s.to_act == 1), turn_timeout=5)
    Game.objects.filter(pk=game.pk).update(turn_deadline=game.bot_due_at)
    with time_machine.travel(game.bot_due_at + dt.timedelta(seconds=10), tick=False):
        assert tasks.turn_timeout(str(game.pk), game.version) is False


def test_the_sweep_task_reports_what_it_applied(host, guest):
    game = human_to_act_game(host, guest)
    with time_machine.travel(game.turn_deadline + dt.timedelta(seconds=1), tick=False):
        assert tasks.sweep_overdue() == {
            "timeouts": 1,
            "bot_moves": 0,
            "pauses_ended": 0,
            "quick_matches_started": 0,
            "reminders": 0,
        }
        assert tasks.sweep_overdue() == {
            "timeouts": 0,
            "bot_moves": 0,
            "pauses_ended": 0,
            "quick_matches_started": 0,
            "reminders": 0,
        }
