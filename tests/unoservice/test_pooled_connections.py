"""The service behind PgBouncer in transaction mode: the settings of a pooled
connection, then the server command with DATABASE_URL through Debian's PgBouncer
(fewer server connections than the API has threads) and LISTEN_DATABASE_URL straight
to PostgreSQL. Moves are played and a stream hears them; PgBouncer is restarted
mid-game and the same server processes answer 503 while it is down, then go on."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from psycopg.conninfo import conninfo_to_dict

from bench.pgbouncer import PgBouncer, pgbouncer_binary
from games.live import hearing
from tests.factories import make_persona, start_game
from tests.served import Client, Served, serving, together
from tests.support import settings_with, wait_until
from tests.workers import database_url
from unoclient.sse import close, connect, messages
from unoservice.env import database_config, listen_database_url

# Fewer server connections than the API threads that share them.
POOL_SIZE = 2
API_THREADS = 8
LISTENER = "uno-pooled-listener"  # the application_name of the direct LISTEN session

URL = "postgres://uno:secret@pgbouncer.internal:6432/uno"
DIRECT = "postgres://uno:secret@db.internal:5432/uno"


# -- the settings ---------------------------------------------------------------------


def test_a_pooled_database_prepares_nothing_and_opens_no_server_side_cursor(tmp_path):
    pooled = URL + "?sslmode=require&prepare_threshold=5"
    config = database_config(pooled, tmp_path, pooler="transaction")
    assert config["OPTIONS"] == {"sslmode": "require", "prepare_threshold": None}
    assert config["DISABLE_SERVER_SIDE_CURSORS"] is True
    # Kept connections are the pooler's clients; a restarted pooler drops them.
    assert config["CONN_MAX_AGE"] > 0
    assert config["CONN_HEALTH_CHECKS"] is True


def test_a_database_reached_directly_keeps_djangos_defaults(tmp_path):
    config = database_config(DIRECT, tmp_path)
    assert "prepare_threshold" not in config.get("OPTIONS", {})
    assert not config.get("DISABLE_SERVER_SIDE_CURSORS", False)


def test_a_pooler_needs_postgresql_and_a_direct_url_to_listen_on(tmp_path):
    with pytest.raises(ImproperlyConfigured, match="PostgreSQL"):
        database_config(None, tmp_path, pooler="transaction")
    with pytest.raises(ImproperlyConfigured, match="LISTEN_DATABASE_URL"):
        listen_database_url(None, "transaction")
    with pytest.raises(ImproperlyConfigured, match="postgres://"):
        listen_database_url("redis://db.internal/0", "none")
    assert listen_database_url(None, "none") is None
    assert listen_database_url(DIRECT, "transaction") == DIRECT


def test_the_settings_read_the_pooler_and_the_listen_url_from_the_environment():
    env = {
        **os.environ,
        "DATABASE_URL": URL,
        "DATABASE_POOLER": "Transaction",
        "LISTEN_DATABASE_URL": DIRECT,
    }
    probe = (
        "[s.DATABASE_POOLER, s.DATABASES['default']['OPTIONS'], "
        "s.DATABASES['default']['DISABLE_SERVER_SIDE_CURSORS'], s.LISTEN_DATABASE_URL, "
        "__import__('django.db').db.connection.get_connection_params()['prepare_threshold']]"
    )
    pooler, options, no_cursors, listen, threshold = settings_with(env, probe)
    assert pooler == "transaction"
    assert options == {"prepare_threshold": None}
    assert no_cursors is True
    assert listen == DIRECT
    assert threshold is None  # what psycopg is handed


def test_the_listener_connects_to_the_listen_url_when_one_is_set(settings):
    settings.LISTEN_DATABASE_URL = DIRECT
    assert conninfo_to_dict(hearing._conninfo()) == conninfo_to_dict(DIRECT)


@pytest.mark.postgres
def test_without_a_listen_url_the_listener_connects_where_django_does(settings):
    settings.LISTEN_DATABASE_URL = None
    listener = conninfo_to_dict(hearing._conninfo())
    assert listener["dbname"] == connection.settings_dict["NAME"]
    assert "prepare_threshold" not in listener


# -- the service behind PgBouncer -------------------------------------------------------


@pytest.fixture(scope="module")
def bouncer(tmp_path_factory: pytest.TempPathFactory, django_db_setup: None) -> Iterator[PgBouncer]:
    if pgbouncer_binary() is None:
        reason = "needs Debian's pgbouncer (apt-get install pgbouncer)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI is set, so a missing service fails the test)")
        pytest.skip(reason)
    db = connection.settings_dict
    folder = tmp_path_factory.mktemp("pgbouncer")
    running = PgBouncer(
        db["HOST"] or "127.0.0.1",
        int(db["PORT"] or 5432),
        folder / "pgbouncer.log",
        pool_size=POOL_SIZE,
    )
    running.start()
    try:
        yield running
    finally:
        running.remove()


@pytest.fixture(scope="module")
def pooled(tmp_path_factory: pytest.TempPathFactory, bouncer: PgBouncer) -> Iterator[Served]:
    direct = database_url()
    env = {
        "DATABASE_URL": bouncer.url(direct),
        "DATABASE_POOLER": "transaction",
        "LISTEN_DATABASE_URL": f"{direct}?application_name={LISTENER}",
    }
    with serving(tmp_path_factory.mktemp("pooled"), env, threads=API_THREADS) as served:
        yield served


def served_test(test: Callable[..., None]) -> Callable[..., None]:
    """Marks of a test of the served service: it commits, and needs PostgreSQL and
    Redis."""
    for mark in (
        pytest.mark.slow,
        pytest.mark.postgres,
        pytest.mark.redis,
        pytest.mark.django_db(transaction=True),
    ):
        test = mark(test)
    return test


class Stream:
    """A game's stream read on a thread: the seqs of the events it carried."""

    def __init__(self, served: Served, game_id: str, token: str) -> None:
        url = f"{served.url}/api/v1/games/{game_id}/stream"
        self.connection, self.response = connect(url, {"Authorization": f"Bearer {token}"})
        self.first_view: int | None = None
        self.seqs: list[int] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for message in messages(self.response):
                if message.event == "game" and self.first_view is None:
                    self.first_view = int(message.id or 0)
                elif message.event not in ("game", "comment", "end") and message.id:
                    self.seqs.append(int(message.id))
        except (OSError, ValueError, AttributeError):
            pass  # closed by the test

    def heard_up_to(self, seq: int) -> bool:
        return bool(self.seqs) and self.seqs[-1] >= seq

    def assert_heard_every_event_to(self, seq: int) -> None:
        """Every event after the first view up to `seq`, once each, in order."""
        wait_until(lambda: self.heard_up_to(seq), f"the stream hears seq {seq}", 10)
        assert self.first_view is not None
        assert self.seqs == list(range(self.first_view + 1, seq + 1))

    def close(self) -> None:
        close(self.connection, self.response)


def next_move(players: list[Client], game_id: str) -> tuple[Client, dict[str, Any]]:
    """The player whose turn it is and a move of theirs (a play when there is one)."""
    for player in players:
        view = player.get(f"/games/{game_id}")
        assert view.status == 200, view.body
        moves = [m for m in view.body["you"]["legal_moves"] if m["action"] not in ("catch_uno",)]
        if moves:
            return player, next((m for m in moves if m["action"] == "play"), moves[0])
    pytest.fail("nobody can move")


def play(players: list[Client], game_id: str, moves: int) -> int:
    """Play `moves` moves over HTTP: the game's last seq after them."""
    last_seq = 0
    for _ in range(moves):
        player, move = next_move(players, game_id)
        answer = player.post(f"/games/{game_id}/moves", move)
        assert answer.status == 200, answer.body
        last_seq = answer.body["game"]["last_seq"]
        if answer.body["game"]["status"] != "playing":
            break
    return last_seq


@pytest.fixture
def game(pooled: Served, transactional_db: None) -> Iterator[tuple[list[Client], str, Stream]]:
    """Two players of a started game, over HTTP, its id, and the guest's stream of it."""
    host, guest = make_persona("Pooled host"), make_persona("Pooled guest")
    game_id = str(start_game(host, guest, seed=33).pk)
    stream = Stream(pooled, game_id, guest.token)
    try:
        yield [pooled.client(host.token), pooled.client(guest.token)], game_id, stream
    finally:
        stream.close()


def assert_error_shape(answer: Any, status: int, code: str) -> None:
    assert answer.status == status, answer.body
    assert set(answer.body) == {"error"}
    assert answer.body["error"]["code"] == code


@served_test
def test_many_api_threads_share_a_few_server_connections_and_streams_hear_every_move(
    game: tuple[list[Client], str, Stream], bouncer: PgBouncer
):
    players, game_id, stream = game
    # More requests at once than the pool has server connections.
    views = together([lambda: players[0].get(f"/games/{game_id}")] * (API_THREADS * 2))
    assert {view.status for view in views} == {200}
    stream.assert_heard_every_event_to(play(players, game_id, moves=4))

    database = connection.settings_dict["NAME"]
    clients = bouncer.show("CLIENTS", database)
    servers = bouncer.show("SERVERS", database)
    assert len(clients) > POOL_SIZE  # the API's kept connections, all PgBouncer's clients
    assert 0 < len(servers) <= POOL_SIZE
    # The one LISTEN session per process is PostgreSQL's own, past the pooler.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT query FROM pg_stat_activity"
            " WHERE application_name = %s AND datname = current_database()",
            [LISTENER],
        )
        listening = [query for (query,) in cursor.fetchall()]
    assert len(listening) == 1
    assert listening[0].startswith("LISTEN ")


@served_test
def test_pgbouncer_restarted_mid_game_answers_503_then_the_same_processes_go_on(
    pooled: Served, game: tuple[list[Client], str, Stream], bouncer: PgBouncer
):
    players, game_id, stream = game
    stream.assert_heard_every_event_to(play(players, game_id, moves=2))
    player, move = next_move(players, game_id)
    processes = pooled.worker_pids()

    bouncer.stop()
    try:
        during = player.post(f"/games/{game_id}/moves", move)
        view = player.get(f"/games/{game_id}")
    finally:
        bouncer.start()
    assert_error_shape(during, 503, "service_unavailable")
    assert_error_shape(view, 503, "service_unavailable")

    wait_until(lambda: pooled.client().get("/healthz").status == 200, "recovery", 30)
    assert pooled.worker_pids() == processes  # not restarted
    retried = player.post(f"/games/{game_id}/moves", move)
    assert retried.status == 200, retried.body  # the refused move left nothing behind
    # The stream, open all along over the direct LISTEN connection, missed nothing.
    stream.assert_heard_every_event_to(play(players, game_id, moves=2))
