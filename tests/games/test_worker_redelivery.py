"""Turn timeouts on a real worker and beat whose broker redelivers quickly: Redis with
a visibility timeout of two seconds, so that what a deployment would see of a timer
days away happens here within seconds (docs/design.md, Timers).

A deadline further off than the longest countdown gets no task: the sweeper applies
it. A task held past the visibility timeout is delivered again, and the version it
carries makes every copy after the first do nothing. The waits are bounds on a
stall, never measures of speed.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

import pytest
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector

from games import dispatch, services
from games.models import Event, Game
from tests.factories import reload, seed_where, start_game
from tests.workers import WITH_A_WORKER

pytestmark = WITH_A_WORKER

VISIBILITY = 2  # seconds; the longest countdown is then one second
SWEEP_SECONDS = 0.5
TURN_TIMEOUT = 6  # seconds: several visibility timeouts


@pytest.fixture
def short_visibility(settings: Any) -> dict[str, str]:
    """The worker's and beat's environment, and the test's own settings, with the short
    visibility timeout: the services here send what a deployment with it would."""
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {
        **settings.CELERY_BROKER_TRANSPORT_OPTIONS,
        "visibility_timeout": VISIBILITY,
    }
    return {"CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY), "TURN_SWEEP_SECONDS": str(SWEEP_SECONDS)}


@pytest.fixture
def timers_sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The game ids of the turn-timeout tasks the services send (they still go)."""
    sent: list[str] = []
    send = dispatch.send

    def recording(name: str, args: list[object], **kwargs: Any) -> None:
        if name == dispatch.TURN_TIMEOUT:
            sent.append(str(args[0]))
        send(name, args, **kwargs)

    monkeypatch.setattr(dispatch, "send", recording)
    return sent


def counted(name: str, **labels: str) -> float:
    """`name{labels}` summed over every process of this test run (worker included)."""
    registry = CollectorRegistry()
    MultiProcessCollector(registry)
    return sum(
        sample.value
        for family in registry.collect()
        for sample in family.samples
        if sample.name == name and labels.items() <= sample.labels.items()
    )


def timeouts_of(game: Game) -> list[Event]:
    return list(Event.objects.filter(game=game, type="turn_timed_out").order_by("seq"))


def two_humans_first_to_act(host: Any, guest: Any) -> Game:
    seed = seed_where(2, lambda s: s.to_act == 0 and s.pending is None)
    return start_game(host, guest, seed=seed, turn_timeout=TURN_TIMEOUT)


def test_a_deadline_beyond_the_longest_countdown_is_applied_once_on_time_by_the_sweeper(
    host, guest, celery_processes, short_visibility, timers_sent
):
    assert services.longest_countdown() == dt.timedelta(seconds=VISIBILITY / 2)
    procs = celery_processes(0.0, env=short_visibility)
    tasks_before = counted("uno_tasks_total", task=dispatch.TURN_TIMEOUT)
    swept_before = counted("uno_timeout_lateness_seconds_count", path="sweep")
    game = two_humans_first_to_act(host, guest)
    deadline = reload(game).turn_deadline
    assert deadline is not None
    procs.wait_until(lambda: timeouts_of(game), "the sweeper did not apply the timeout", 30)
    time.sleep(4 * SWEEP_SECONDS)  # later sweeps have had their chance to apply it again
    (timeout,) = timeouts_of(game)
    assert (timeout.seat, timeout.data) == (0, {"timeouts": 1})
    # On time: not before the deadline, and within a few sweeps of it, not a day late.
    assert deadline <= timeout.at < deadline + dt.timedelta(seconds=5)
    assert timers_sent == []  # no task was held for it
    assert counted("uno_tasks_total", task=dispatch.TURN_TIMEOUT) == tasks_before
    assert counted("uno_timeout_lateness_seconds_count", path="sweep") == swept_before + 1


def test_a_task_held_past_the_visibility_timeout_is_delivered_again_and_applies_once(
    host, guest, celery_processes, short_visibility
):
    # The worker alone: no sweep may apply the timeout in the task's place.
    procs = celery_processes(0.0, env=short_visibility, beat=False)
    # Held past the visibility timeout means taken well before its ETA: by a worker
    # that is up, not one still starting when the ETA comes.
    procs.wait_for_the_worker()
    runs = {
        outcome: counted("uno_tasks_total", task=dispatch.TURN_TIMEOUT, outcome=outcome)
        for outcome in ("applied", "stale")
    }
    timed_before = counted("uno_timeout_lateness_seconds_count", path="timer")
    game = reload(two_humans_first_to_act(host, guest))
    assert game.turn_deadline is not None
    # As a task sent before the visibility timeout was lowered would be: held by the
    # worker until its ETA, three visibility timeouts away.
    eta = game.turn_deadline + services.TIMER_SLACK
    dispatch.send(dispatch.TURN_TIMEOUT, [str(game.pk), game.version], countdown=None, eta=eta)

    def every_copy_ran() -> bool:
        applied = counted("uno_tasks_total", task=dispatch.TURN_TIMEOUT, outcome="applied")
        stale = counted("uno_tasks_total", task=dispatch.TURN_TIMEOUT, outcome="stale")
        return applied > runs["applied"] and stale > runs["stale"]

    procs.wait_until(every_copy_ran, "the task was not delivered again", 30)
    time.sleep(1.0)  # a copy still held would run now
    (timeout,) = timeouts_of(game)
    assert (timeout.seat, timeout.data) == (0, {"timeouts": 1})
    assert timeout.at >= game.turn_deadline
    assert counted("uno_tasks_total", task=dispatch.TURN_TIMEOUT, outcome="applied") == (
        runs["applied"] + 1
    )
    assert counted("uno_timeout_lateness_seconds_count", path="timer") == timed_before + 1
