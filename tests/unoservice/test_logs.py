"""Structured logs: one line per request and per task, JSON in production, and a
request id that comes from the client or is made here, goes back in the answer and
travels with the tasks the request sends."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from kombu import Connection
from rest_framework.test import APIClient

from games import tasks
from tests.factories import Persona, human_to_act_game, seed_where, start_game
from tests.support import run_python, settings_with
from unoservice import observability
from unoservice.celery import app as celery_app
from unoservice.wsgi_threads import ThreadedWSGI

PRODUCTION = {"DEBUG": "false", "SECRET_KEY": "a-long-random-production-secret-" + "x" * 20}


@pytest.fixture
def logged() -> Iterator[Callable[[], list[dict[str, Any]]]]:
    """`logged()`: the lines of the request and task loggers so far, written by the
    production formatter and parsed."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(observability.JsonFormatter())
    handler.addFilter(observability.ContextFilter())
    loggers = [logging.getLogger(name) for name in ("unoservice.requests", "unoservice.tasks")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    yield lambda: [json.loads(line) for line in out.getvalue().splitlines()]
    for logger, level in zip(loggers, levels, strict=True):
        logger.removeHandler(handler)
        logger.setLevel(level)


# -- requests ------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_request_writes_one_json_line_with_what_an_operator_looks_for(logged, host, guest):
    game = human_to_act_game(host, guest)
    answer = host.client.post(
        f"/api/v1/games/{game.pk}/moves",
        {"version": game.version, "action": "draw"},
        format="json",
        headers={"X-Request-ID": "req-0001"},
    )
    assert answer.status_code == 200
    assert answer["X-Request-ID"] == "req-0001"
    [line] = [line for line in logged() if line["logger"] == "unoservice.requests"]
    assert line["method"] == "POST"
    assert line["route"] == "api/v1/games/<str:game_id>/moves"
    assert line["status"] == 200
    assert line["duration_ms"] >= 0
    assert line["player_id"] == str(host.player.pk)
    assert line["game_id"] == str(game.pk)
    assert line["request_id"] == "req-0001"
    assert line["level"] == "INFO"
    assert "time" in line


@pytest.mark.django_db
def test_a_request_without_an_id_gets_a_new_one_in_its_answer_and_its_line(logged, host):
    answer = host.client.get("/api/v1/players/me")
    made = answer["X-Request-ID"]
    assert uuid.UUID(made).hex == made
    assert [line["request_id"] for line in logged()] == [made]


@pytest.mark.django_db
@pytest.mark.parametrize("unfit", ["", "has space", "x" * 200, "line\nbreak", "-leading-dash"])
def test_an_unfit_request_id_is_replaced_not_echoed(logged, host, unfit):
    answer = host.client.get("/api/v1/players/me", headers={"X-Request-ID": unfit})
    assert answer["X-Request-ID"] != unfit
    assert logged()[0]["request_id"] == answer["X-Request-ID"]


@pytest.mark.django_db
def test_a_refused_request_is_logged_with_its_status_and_no_player(logged):
    answer = APIClient().get("/api/v1/players/me", HTTP_AUTHORIZATION="Bearer not-a-token")
    assert answer.status_code == 401
    [line] = logged()
    assert line["status"] == 401
    assert line["player_id"] is None
    assert line["route"] == "api/v1/players/me"


def test_a_client_that_goes_while_its_request_runs_on_a_thread_is_logged_as_a_499(logged):
    went = threading.Event()
    messages = [{"type": "http.request", "body": b"{}"}, {"type": "http.disconnect"}]

    async def receive() -> dict[str, Any]:
        message = messages.pop(0)
        if message["type"] == "http.disconnect":
            went.set()
        return message

    async def send(message: dict[str, Any]) -> None:
        pass  # the server drops what is sent to a client that went

    def slow_view(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        assert went.wait(10)  # the client goes while the request runs
        start_response("200 OK", [("Content-Type", "application/json")])
        return [b"{}"]

    api = observability.ObservedASGI(ThreadedWSGI(slow_view, 1))
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/v1/games",
        "query_string": b"",
        "headers": [(b"content-type", b"application/json")],
        "http_version": "1.1",
        "scheme": "http",
        "root_path": "",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
    }
    asyncio.run(api(scope, receive, send))
    [line] = logged()
    assert line["status"] == 499
    assert line["method"] == "POST"


def test_log_lines_written_while_a_request_is_served_carry_its_id() -> None:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(observability.JsonFormatter())
    handler.addFilter(observability.ContextFilter())
    logger = logging.getLogger("games.somewhere")
    logger.addHandler(handler)
    try:
        token = observability.request_id_var.set("inside-1")
        logger.warning("a bot hesitated")
        observability.request_id_var.reset(token)
        logger.warning("outside any request")
    finally:
        logger.removeHandler(handler)
    inside, outside = (json.loads(line) for line in out.getvalue().splitlines())
    assert (inside["message"], inside["request_id"]) == ("a bot hesitated", "inside-1")
    assert outside["request_id"] is None


# -- formats -------------------------------------------------------------------------


def test_production_logs_json_and_development_plain_text() -> None:
    formatter = 's.LOGGING["handlers"]["console"]["formatter"]'
    assert settings_with(PRODUCTION, formatter) == "json"
    assert settings_with({"DEBUG": "true"}, formatter) == "plain"
    assert settings_with({**PRODUCTION, "LOG_FORMAT": "plain"}, formatter) == "plain"
    assert settings_with({"DEBUG": "true", "LOG_FORMAT": "JSON"}, formatter) == "json"


def test_an_unknown_log_format_stops_the_service_with_the_reason() -> None:
    done = run_python(
        "-c", "import django; django.setup()", env={"DEBUG": "true", "LOG_FORMAT": "xml"}
    )
    assert done.returncode != 0
    assert "LOG_FORMAT='xml' is not one of json, plain" in done.stderr


def test_a_production_process_writes_each_line_as_one_json_object() -> None:
    code = (
        "import django, logging; django.setup(); "
        "from unoservice import observability; "
        "observability.request_id_var.set('r-42'); "
        "logging.getLogger('games.services').warning('a %s line', 'formatted')"
    )
    done = run_python("-c", code, env=PRODUCTION)
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stderr.strip().splitlines()[-1])
    assert line["message"] == "a formatted line"
    assert line["level"] == "WARNING"
    assert line["logger"] == "games.services"
    assert line["request_id"] == "r-42"


# -- tasks ---------------------------------------------------------------------------


def test_a_task_sent_while_a_request_is_served_carries_its_id_in_the_message() -> None:
    with Connection("memory://") as connection:
        token = observability.request_id_var.set("from-the-request")
        try:
            celery_app.send_task("games.sweep_overdue", connection=connection, queue="ids")
        finally:
            observability.request_id_var.reset(token)
        celery_app.send_task("games.sweep_overdue", connection=connection, queue="ids")
        received = connection.SimpleQueue("ids")
        first, second = received.get(timeout=1), received.get(timeout=1)
        assert first.headers["request_id"] == "from-the-request"
        assert "request_id" not in second.headers
        received.close()


@pytest.mark.django_db
def test_a_task_writes_one_json_line_with_its_outcome_and_the_request_id(logged, host):
    game = start_game(host, "random", seed=seed_where(2, lambda s: s.to_act == 1))
    tasks.bot_turn.apply(args=[str(game.pk), game.version], headers={"request_id": "req-9"})
    [line] = [line for line in logged() if line["logger"] == "unoservice.tasks"]
    assert line["task"] == "games.bot_turn"
    assert line["outcome"] == "applied"
    assert line["game_id"] == str(game.pk)
    assert line["request_id"] == "req-9"
    assert line["duration_ms"] >= 0
    assert line["task_id"]


@pytest.mark.django_db
def test_a_task_sent_by_no_request_goes_by_its_own_task_id(logged) -> None:
    result = tasks.sweep_overdue.apply(args=[])
    assert logged() == []  # nothing was overdue: no news
    tasks.bot_turn.apply(args=[str(uuid.uuid4()), 1], task_id="task-77")
    [line] = logged()
    assert (line["outcome"], line["request_id"], line["task_id"]) == ("stale", "task-77", "task-77")
    assert result.successful()


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.worker
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_request_id_reaches_the_worker_through_the_broker(
    host: Persona, celery_processes: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.factories import seat_table

    monkeypatch.setenv("LOG_FORMAT", "json")
    procs = celery_processes(0.0)
    game = seat_table(host, "random", seed=seed_where(2, lambda s: s.to_act == 1))
    answer = host.post(f"/games/{game.pk}/start", **{"X-Request-ID": "start-req-1"})
    assert answer.status_code == 200, answer.json()

    def bot_line() -> dict[str, Any] | None:
        for path in procs.folder.glob("worker-*.log"):
            for text in path.read_text(errors="replace").splitlines():
                if text.startswith("{") and '"games.bot_turn"' in text:
                    return dict(json.loads(text))
        return None

    procs.wait_until(bot_line, "the worker's line of the bot's turn", 60)
    line = bot_line()
    assert line is not None
    assert line["request_id"] == "start-req-1"
    assert line["game_id"] == str(game.pk)
    assert line["outcome"] == "applied"
