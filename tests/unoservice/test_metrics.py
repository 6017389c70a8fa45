"""``GET /metrics``: who may read it, and each family moving when its event happens.

Every check scrapes the page as Prometheus would (with the token, parsed by the
official client's parser) before and after the event, and compares.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import time_machine
from prometheus_client.parser import text_string_to_metric_families
from rest_framework.test import APIClient

from games import services, tasks
from games.models import Game, GameStatus
from tests.factories import (
    Persona,
    finish_game,
    human_to_act_game,
    reload,
    seed_where,
    start_game,
)
from unoservice import metrics, queue_metrics
from unoservice.celery import app as celery_app

pytestmark = pytest.mark.django_db

TOKEN = "scrape-secret"
PROJECT_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def token(settings: Any) -> str:
    settings.METRICS_TOKEN = TOKEN
    return TOKEN


def scrape(token: str = TOKEN) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a scrape, by name and labels."""
    answer = APIClient().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert answer.status_code == 200, answer.content
    assert answer["Content-Type"].startswith("text/plain")
    samples = {}
    for family in text_string_to_metric_families(answer.content.decode()):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples: dict[Any, float], name: str, **labels: str) -> float:
    """The sum of the samples named `name` whose labels include `labels`."""
    wanted = set(labels.items())
    return sum(v for (n, have), v in samples.items() if n == name and wanted <= have)


def moved(event: Callable[[], object], name: str, **labels: str) -> float:
    """How much `name{labels}` grew across `event`."""
    before = scrape()
    event()
    return value(scrape(), name, **labels) - value(before, name, **labels)


# -- who may read it -----------------------------------------------------------------


def test_the_page_does_not_exist_while_no_token_is_set(settings: Any) -> None:
    settings.METRICS_TOKEN = ""
    answer = APIClient().get("/metrics", HTTP_AUTHORIZATION="Bearer anything")
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    "header", [None, "Bearer wrong", "Basic c2NyYXBlLXNlY3JldA==", "Bearer", f"Token {TOKEN}"]
)
def test_without_the_right_bearer_token_the_answer_is_a_401(token: str, header: str | None) -> None:
    extra = {} if header is None else {"HTTP_AUTHORIZATION": header}
    answer = APIClient().get("/metrics", **extra)
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "not_authenticated"
    assert answer["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert b"uno_" not in answer.content


def test_the_page_takes_only_reads(token: str) -> None:
    answer = APIClient().post("/metrics", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert answer.status_code == 405
    assert answer.json()["error"]["code"] == "method_not_allowed"


def test_a_player_token_is_no_metrics_token(token: str, host: Persona) -> None:
    answer = APIClient().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {host.token}")
    assert answer.status_code == 401


# -- the families --------------------------------------------------------------------


def test_games_by_status_are_counted_from_the_database_when_scraped(token: str, host, guest):
    before = scrape()
    start_game(host, guest, seed=3)
    after = scrape()
    assert (
        value(after, "uno_games", status="playing")
        == value(before, "uno_games", status="playing") + 1
    )
    assert (
        value(after, "uno_games", status="playing") == Game.objects.filter(status="playing").count()
    )
    assert {labels for name, labels in after if name == "uno_games"} >= {
        frozenset({("status", status)}) for status in GameStatus.values
    }


def test_a_request_is_counted_by_its_route_method_and_status_with_its_latency(token, host, guest):
    game = start_game(host, guest, seed=3)
    route = "api/v1/games/<str:game_id>"
    before = scrape()
    assert host.get(f"/games/{game.pk}").status_code == 200
    assert host.get(f"/games/{uuid.uuid4()}").status_code == 404
    after = scrape()

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("uno_http_requests_total", route=route, method="GET", status="200") == 1
    assert grew("uno_http_requests_total", route=route, method="GET", status="404") == 1
    assert grew("uno_http_request_duration_seconds_count", route=route, method="GET") == 2
    assert grew("uno_http_request_duration_seconds_sum", route=route, method="GET") > 0
    assert (
        grew("uno_http_request_duration_seconds_bucket", route=route, method="GET", le="+Inf") == 2
    )


def test_a_path_that_matches_no_route_is_counted_as_unmatched(token: str, host: Persona) -> None:
    grew = moved(lambda: host.get("/no/such/thing"), "uno_http_requests_total", route="unmatched")
    assert grew == 1


def test_a_made_up_method_is_counted_as_other(token: str) -> None:
    client = APIClient()
    grew = moved(
        lambda: client.generic("BREW", "/api/v1/games"), "uno_http_requests_total", method="other"
    )
    assert grew == 1


def test_a_move_is_counted_by_its_action_and_who_made_it(token: str, host, guest) -> None:
    game = human_to_act_game(host, guest)

    def draw() -> None:
        assert host.move(game.pk, game.version, action="draw").status_code == 200

    assert moved(draw, "uno_moves_applied_total", action="draw", actor="player") == 1


def test_a_refused_move_is_counted_by_its_error_code(token: str, host, guest) -> None:
    game = human_to_act_game(host, guest)
    before = scrape()
    assert host.move(game.pk, game.version + 5, action="draw").status_code == 409
    assert host.move(game.pk, game.version, action="fly").status_code == 400
    assert guest.move(game.pk, game.version, action="draw").status_code == 409
    assert host.post(f"/games/{game.pk}/challenge", {"version": game.version}).status_code == 400
    after = scrape()

    def grew(code: str) -> float:
        name = "uno_moves_rejected_total"
        return value(after, name, code=code) - value(before, name, code=code)

    assert grew("stale_version") == 1
    assert grew("invalid_request") == 2
    assert grew("not_your_turn") == 1
    assert value(after, "uno_moves_applied_total") == value(before, "uno_moves_applied_total")


def test_a_bot_move_counts_its_decision_time_and_its_reaction_by_strategy(token, host) -> None:
    seed = seed_where(2, lambda s: s.to_act == 1)
    game = start_game(host, "greedy", seed=seed)
    before = scrape()
    assert services.bot_act(game_id=game.pk, version=game.version) is not None
    after = scrape()

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("uno_bot_decision_seconds_count", strategy="greedy") >= 1
    assert grew("uno_bot_reaction_seconds_count", strategy="greedy") == 1
    assert grew("uno_bot_reaction_seconds_sum", strategy="greedy") >= 0
    assert grew("uno_moves_applied_total", actor="bot") == 1


def test_a_timeout_counts_how_late_it_came_by_the_path_that_applied_it(token, host, guest):
    game = human_to_act_game(host, guest, turn_timeout=30)
    assert game.turn_deadline is not None
    name = "uno_timeout_lateness_seconds"
    before = scrape()
    with time_machine.travel(game.turn_deadline + dt.timedelta(seconds=4)):
        assert services.turn_timeout_apply(game_id=game.pk, version=game.version) is not None
    after = scrape()
    assert (
        value(after, f"{name}_count", path="timer") - value(before, f"{name}_count", path="timer")
        == 1
    )
    lateness = value(after, f"{name}_sum", path="timer") - value(
        before, f"{name}_sum", path="timer"
    )
    # The two sums are running totals of floats: their difference may fall a hair short.
    assert 4 - 1e-9 <= lateness < 5
    grew = value(after, "uno_moves_applied_total", action="timeout", actor="timer") - value(
        before, "uno_moves_applied_total", action="timeout", actor="timer"
    )
    assert grew == 1


def test_a_sweep_counts_its_run_what_it_applied_and_its_task(token, host, guest) -> None:
    game = human_to_act_game(host, guest, turn_timeout=30)
    assert game.turn_deadline is not None
    before = scrape()
    with time_machine.travel(game.turn_deadline + dt.timedelta(seconds=1)):
        tasks.sweep_overdue.apply()
        tasks.sweep_overdue.apply()  # nothing is overdue any more
    after = scrape()

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("uno_sweeps_total", result="applied") == 1
    assert grew("uno_sweeps_total", result="idle") == 1
    assert grew("uno_swept_total", kind="timeouts") == 1
    assert grew("uno_timeout_lateness_seconds_count", path="sweep") == 1
    assert grew("uno_tasks_total", task="games.sweep_overdue", outcome="done") == 2
    assert grew("uno_task_duration_seconds_count", task="games.sweep_overdue") == 2


def test_a_task_is_counted_by_whether_it_changed_its_game(token, host) -> None:
    seed = seed_where(2, lambda s: s.to_act == 1)
    game = start_game(host, "random", seed=seed)
    before = scrape()
    tasks.bot_turn.apply(args=[str(game.pk), game.version])
    tasks.bot_turn.apply(args=[str(game.pk), game.version])  # the game has moved on
    after = scrape()

    def grew(outcome: str) -> float:
        labels = {"task": "games.bot_turn", "outcome": outcome}
        return value(after, "uno_tasks_total", **labels) - value(
            before, "uno_tasks_total", **labels
        )

    assert grew("applied") == 1
    assert grew("stale") == 1
    assert grew("failed") == 0


def test_a_failing_task_is_counted_as_failed(token, monkeypatch) -> None:
    def broken(**_: Any) -> None:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(services, "bot_act", broken)
    labels = {"task": "games.bot_turn", "outcome": "failed"}
    grew = moved(
        lambda: tasks.bot_turn.apply(args=[str(uuid.uuid4()), 1]), "uno_tasks_total", **labels
    )
    assert grew == 1


def test_games_that_end_are_counted_by_how_and_whether_rated(token, host, guest) -> None:
    finished = start_game(host, guest, seed=3)
    abandoned = start_game(host, guest, seed=4)
    before = scrape()
    finish_game(finished, 0, host)
    services.game_abandon(game_id=abandoned.pk, reason="a test")
    after = scrape()

    def grew(**labels: str) -> float:
        name = "uno_games_ended_total"
        return value(after, name, **labels) - value(before, name, **labels)

    assert reload(finished).status == GameStatus.FINISHED
    rated = "true" if reload(finished).rated else "false"
    assert grew(status="finished", rated=rated) == 1
    assert grew(status="abandoned", rated="false") == 1


def test_a_game_the_repeat_limit_leaves_unrated_is_counted_unrated(token, host, guest) -> None:
    for seed in range(3):
        finish_game(start_game(host, guest, seed=seed), 0, host)
    before = scrape()
    finish_game(start_game(host, guest, seed=3), 0, host)
    after = scrape()
    name = "uno_games_ended_total"
    assert (
        value(after, name, status="finished", rated="false")
        - value(before, name, status="finished", rated="false")
        == 1
    )
    assert value(after, name, status="finished", rated="true") == value(
        before, name, status="finished", rated="true"
    )


def test_the_queue_length_is_what_waits_in_the_broker(token, settings) -> None:
    queue = f"metrics-test-{uuid.uuid4().hex[:8]}"
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    try:
        assert value(scrape(), "uno_celery_queue_length", queue=queue) == 0
        for _ in range(3):
            celery_app.send_task("games.sweep_overdue", queue=queue)
        assert value(scrape(), "uno_celery_queue_length", queue=queue) == 3
    finally:
        with celery_app.connection_for_write() as connection:
            channel: Any = connection.default_channel
            channel.queue_purge(queue)
            channel.queue_delete(queue)


def test_a_broker_that_does_not_answer_leaves_the_queue_out_not_the_page(token, monkeypatch):
    def unreachable(queue: str) -> int:
        raise ConnectionError("no broker")

    monkeypatch.setattr(queue_metrics, "queue_length", unreachable)
    samples = scrape()
    assert not [name for name, _ in samples if name == "uno_celery_queue_length"]
    assert [name for name, _ in samples if name == "uno_games"]


def test_a_counted_sample_is_added_up_over_every_process_file(token, tmp_path) -> None:
    """What another process (a worker) counted is in the scrape: files named by
    another host and pid, written as that process would."""
    code = (
        "import os; os.environ['DJANGO_SETTINGS_MODULE'] = 'unoservice.settings'; "
        "from unoservice import metrics; "
        "metrics.MOVES.labels('pass', 'bot').inc(7)"
    )
    before = value(scrape(), "uno_moves_applied_total", action="pass", actor="bot")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=PROJECT_ROOT)
    after = value(scrape(), "uno_moves_applied_total", action="pass", actor="bot")
    assert after - before == 7


def test_a_starting_server_forgets_the_live_gauges_of_hosts_with_no_server_left(
    tmp_path, monkeypatch
) -> None:
    """API replicas share the folder, each container a host: one removed or killed
    leaves open streams counted that closed with it. Its lock is free; a running
    host's is held."""
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    monkeypatch.setattr(metrics, "_host_lock", None)
    for name in (
        "gauge_livesum_gone-7.db",
        "counter_gone-7.db",
        "gauge_livesum_running-7.db",
        f"gauge_livesum_{metrics.HOST}-7.db",
        "host_gone.lock",
        "host_running.lock",
    ):
        (tmp_path / name).write_bytes(b"")
    running = os.open(tmp_path / "host_running.lock", os.O_RDWR)
    fcntl.flock(running, fcntl.LOCK_SH)
    try:
        metrics.forget_live_gauges()
        held = metrics._host_lock
        assert held is not None
        try:
            assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
                [
                    "counter_gone-7.db",  # what was counted stays counted
                    "gauge_livesum_running-7.db",
                    "host_running.lock",
                    f"host_{metrics.HOST}.lock",
                ]
            )
            mine = os.open(tmp_path / f"host_{metrics.HOST}.lock", os.O_RDWR)
            with pytest.raises(BlockingIOError):
                fcntl.flock(mine, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.close(mine)
        finally:
            os.close(held)
    finally:
        os.close(running)


def test_a_forked_process_counts_in_files_of_its_own() -> None:
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child: its identifier, then gone at once
        os.write(write, metrics.process_identifier().encode())
        os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    with os.fdopen(read, "rb") as pipe:
        in_the_child = pipe.read().decode()

    assert in_the_child == f"{metrics.HOST}-{child}"
    assert metrics.process_identifier() == f"{metrics.HOST}-{os.getpid()}"
