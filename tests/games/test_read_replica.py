"""A read replica (REPLICA_DATABASE_URL): what may lag a little is read there, what a
player just wrote never is, and a replica out of reach leaves the primary to answer.

The replica here is a second connection to the test database, so it reads what was
committed: the tests commit (a transactional database), and a replica that lags is
a transaction on the primary not committed yet."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.models import Game
from players.models import Rating
from tests.factories import Persona, finish_game, human_to_act_game, play_out, start_game
from tests.support import free_port
from unoservice import health, replica
from unoservice.env import replica_database_config

pytestmark = [
    pytest.mark.django_db(transaction=True, databases=["default", replica.ALIAS]),
    pytest.mark.usefixtures("rate_limits_off"),
]


@pytest.fixture(scope="module", autouse=True)
def replica_alias(django_db_setup: None) -> Iterator[None]:
    """The alias `replica`, as REPLICA_DATABASE_URL adds it: here, the test database
    again (the tests' databases are checked against it before each test)."""
    connections.settings[replica.ALIAS] = replica_settings()
    yield
    connections[replica.ALIAS].close()
    del connections[replica.ALIAS]
    del connections.settings[replica.ALIAS]
    replica.failures.forget()


def replica_settings(**changes: Any) -> dict[str, Any]:
    config = copy.deepcopy(connections.settings["default"])
    config.update(changes)
    config["TEST"]["MIRROR"] = "default"
    return config


def replica_at(**changes: Any) -> BaseDatabaseWrapper:
    """A new connection to the replica, at the test database with `changes`."""
    connections[replica.ALIAS].close()
    del connections[replica.ALIAS]
    connections.settings[replica.ALIAS] = replica_settings(**changes)
    replica.failures.forget()
    return connections[replica.ALIAS]


@pytest.fixture
def on_replica() -> Iterator[CaptureQueriesContext]:
    """A replica that answers; the queries it answered."""
    with CaptureQueriesContext(replica_at()) as queries:
        yield queries
    replica.failures.forget()


@pytest.fixture
def replica_down() -> Iterator[list[int]]:
    """A replica at a port nothing listens on; the attempts to connect to it."""
    unreachable = replica_at(HOST="127.0.0.1", PORT=free_port())
    attempts: list[int] = []
    connect = unreachable.get_new_connection

    def counted(params: Any) -> Any:
        attempts.append(1)
        return connect(params)

    unreachable.get_new_connection = counted  # type: ignore[method-assign]
    yield attempts
    replica_at()


def finished_game(host: Persona, guest: Persona) -> Game:
    return play_out(start_game(host, guest, "greedy", seed=21), {0: host, 1: guest})


def listed_bot() -> None:
    """A bot strategy with the record the leaderboard asks for."""
    Rating.objects.update_or_create(
        key="bot:greedy",
        defaults={"bot": "greedy", "mu": 30, "sigma": 2, "ordinal": 24, "games": 9}
        | {"opponents_met": 3},
    )


def tables_read(queries: CaptureQueriesContext) -> set[str]:
    return {
        table
        for query in queries.captured_queries
        for table in ("games_event", "games_game", "players_rating", "games_result")
        if f'"{table}"' in query["sql"]
    }


def test_the_leaderboard_and_others_profiles_and_histories_are_read_from_the_replica(
    host, guest, outsider, on_replica
):
    finished_game(host, guest)
    listed_bot()
    on_replica.captured_queries.clear()
    board = outsider.get("/leaderboard")
    assert board.status_code == 200
    assert [e["player"]["id"] for e in board.json()["results"]] == ["bot:greedy"]
    assert "players_rating" in tables_read(on_replica)

    on_replica.captured_queries.clear()
    profile = outsider.get(f"/players/{host.player.pk}")
    assert profile.json()["stats"]["games_played"] == 1
    assert on_replica.captured_queries

    on_replica.captured_queries.clear()
    history = outsider.get(f"/players/{host.player.pk}/games")
    assert len(history.json()["results"]) == 1
    assert "games_result" in tables_read(on_replica)


def test_the_admins_charts_count_from_the_replica(admin_client, host, guest, on_replica):
    finished_game(host, guest)
    on_replica.captured_queries.clear()
    with CaptureQueriesContext(connections["default"]) as primary:
        page = admin_client.get(reverse("admin:games_game_overview"))
    assert page.status_code == 200
    assert {"games_game", "games_event"} <= tables_read(on_replica)
    assert "games_event" not in tables_read(primary)


def test_a_player_reads_their_own_profile_and_history_from_the_primary(host, guest, on_replica):
    finished_game(host, guest)
    on_replica.captured_queries.clear()
    for path in ("/players/me", "/players/me/games", f"/players/{host.player.pk}/games"):
        assert host.get(path).status_code == 200
    assert host.get(f"/players/{host.player.pk}").json()["stats"]["games_played"] == 1
    assert on_replica.captured_queries == []


def test_moves_views_streams_and_the_lobby_never_read_the_replica(host, guest, on_replica):
    game = human_to_act_game(host, guest)
    on_replica.captured_queries.clear()
    view = host.get(f"/games/{game.pk}").json()
    assert host.move(game.pk, view["version"], **view["you"]["legal_moves"][0]).status_code == 200
    assert guest.get("/games").status_code == 200
    assert guest.get(f"/games/{game.pk}/events", after=0).status_code == 200
    assert guest.client.get(f"/api/v1/games/{game.pk}/stream").status_code == 200
    assert guest.client.get("/api/v1/players/me/stream").status_code == 200
    assert on_replica.captured_queries == []


def test_a_running_games_log_and_replay_are_read_from_the_primary_alone(
    host, guest, staff, on_replica
):
    game = start_game(host, guest, "greedy", seed=21)
    on_replica.captured_queries.clear()
    log = guest.get(f"/games/{game.pk}/log").json()
    assert log["complete"] is False
    assert staff.get(f"/games/{game.pk}/log").json()["complete"] is True
    assert staff.get(f"/games/{game.pk}/replay", seq=1).status_code == 200
    assert on_replica.captured_queries == []


def test_a_finished_games_log_and_replay_are_read_from_the_replica(host, guest, on_replica):
    game = finished_game(host, guest)
    on_replica.captured_queries.clear()
    log = guest.get(f"/games/{game.pk}/log").json()
    assert log["complete"] is True
    assert [e["seq"] for e in log["events"]] == list(range(1, game.last_seq + 1))
    replayed = guest.get(f"/games/{game.pk}/replay", seq=game.last_seq)
    assert replayed.status_code == 200, replayed.json()
    assert "games_event" in tables_read(on_replica)


def test_a_game_that_ended_after_what_the_replica_holds_is_read_from_the_primary(
    host, guest, on_replica
):
    game = start_game(host, guest, "greedy", seed=21)
    with transaction.atomic():
        # Uncommitted, the end is on the primary only: a replica that lags behind it.
        ended = finish_game(game, 0, host)
        on_replica.captured_queries.clear()
        log = guest.get(f"/games/{game.pk}/log").json()
        assert log["complete"] is True
        assert log["events"][-1]["seq"] == ended.last_seq
        assert tables_read(on_replica) == {"games_game"}  # asked, found behind, left
        transaction.set_rollback(True)


def test_a_replica_out_of_reach_leaves_the_primary_to_answer_and_is_left_alone_a_while(
    host, guest, outsider, replica_down
):
    game = finished_game(host, guest)
    listed_bot()
    assert outsider.get("/leaderboard").json()["results"]
    assert replica_down == [1]
    assert outsider.get(f"/players/{host.player.pk}").status_code == 200
    assert outsider.get(f"/players/{host.player.pk}/games").status_code == 200
    assert outsider.get(f"/games/{game.pk}/log").json()["complete"] is True
    assert outsider.get(f"/games/{game.pk}/replay", seq=1).status_code == 200
    assert replica_down == [1]  # the failure is remembered: no connect per request


def test_a_replica_failing_mid_request_is_read_again_from_the_primary(host, guest, on_replica):
    finished_game(host, guest)
    listed_bot()
    assert guest.get("/leaderboard").status_code == 200  # connected to the replica
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [replica_backend()])
    board = guest.get("/leaderboard")
    assert board.status_code == 200
    assert [e["player"]["id"] for e in board.json()["results"]] == ["bot:greedy"]
    assert replica.failures.down()


def replica_backend() -> int:
    with connections[replica.ALIAS].cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    return int(pid)


def test_an_error_of_the_primary_is_not_blamed_on_the_replica(on_replica):
    def failing() -> None:
        raise DatabaseError("the primary failed")

    with pytest.raises(DatabaseError):
        replica.lagging(failing)
    assert not replica.failures.down()


@pytest.fixture
def checks_but_the_databases_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(health, "check_broker", lambda: None)
    monkeypatch.setattr(health, "worker_state", lambda: health.OK)
    monkeypatch.setattr(health, "beat_state", lambda: (health.OK, 0.5))
    monkeypatch.setattr(
        health, "queue_states", lambda: dict.fromkeys(settings.SERVICE_QUEUES, health.OK)
    )


@pytest.mark.usefixtures("checks_but_the_databases_pass")
def test_healthz_reports_the_replica_and_is_degraded_not_failing_without_it(replica_down):
    status, body = health.checked()
    assert (status, body["status"], body["replica"]) == (200, "degraded", "error")
    assert health.checked()[1]["replica"] == "error"
    assert replica_down == [1]  # probes within the failure's memory connect no more
    replica_at()  # it is back
    status, body = health.checked()
    assert (status, body["status"], body["replica"]) == (200, "ok", "ok")
    assert not replica.failures.down()


def test_writes_and_migrations_stay_on_the_primary_inside_reads_that_may_lag():
    router = replica.ReplicaRouter()
    token = replica._may_lag.set(True)
    try:
        assert router.db_for_read(Game) == replica.ALIAS
        assert router.db_for_write(Game) == "default"
    finally:
        replica._may_lag.reset(token)
    assert router.db_for_read(Game) == "default"
    assert router.allow_migrate("default", "games") is True
    assert router.allow_migrate(replica.ALIAS, "games") is False


def test_the_replica_setting_is_a_postgresql_mirror_of_the_default_database_in_tests(tmp_path):
    config = replica_database_config("postgres://reader@10.0.0.2:5433/uno", tmp_path)
    assert (config["HOST"], config["PORT"], config["NAME"]) == ("10.0.0.2", 5433, "uno")
    assert config["OPTIONS"]["connect_timeout"] == 2
    assert config["TEST"] == {"MIRROR": "default"}
    with pytest.raises(ImproperlyConfigured):
        replica_database_config("sqlite:///replica.sqlite3", tmp_path)
