"""A real read replica: a hot standby of the deployment's PostgreSQL made with
`pg_basebackup -R`, streaming from it. The leaderboard is read there; stopped, the
primary answers in its place, /healthz says the replica is down, and games go on."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.drills.deployment import Deployment, PrivatePostgres, migrated_deployment
from tests.support import wait_until

pytestmark = [pytest.mark.drill, pytest.mark.slow]

API = "/api/v1"


@pytest.fixture
def replicated(tmp_path: Path) -> Iterator[tuple[Deployment, PrivatePostgres]]:
    """The API alone (no worker: nothing here needs one) on a private PostgreSQL,
    reading what may lag from a streaming replica of it."""
    with migrated_deployment(tmp_path) as service:
        standby = PrivatePostgres(primary=service.postgres)
        try:
            standby.start()
            service.extra_env["REPLICA_DATABASE_URL"] = standby.url
            service.start_api()
            yield service, standby
        finally:
            service.stop()
            with contextlib.suppress(subprocess.CalledProcessError):
                standby.stop()  # unless the test stopped it
            standby.remove()


def rate_bot(service: Deployment, strategy: str, ordinal: float) -> None:
    """A bot strategy with the record the leaderboard asks for, written to the primary."""
    with psycopg.connect(service.postgres.url, autocommit=True) as primary:
        primary.execute(
            "INSERT INTO players_rating (key, bot, mu, sigma, ordinal, games, opponents,"
            " opponents_met, met, updated_at) VALUES (%s, %s, 30, 2, %s, 9, '', 3, '', now())",
            [f"bot:{strategy}", strategy, ordinal],
        )


def test_the_leaderboard_reads_the_replica_and_the_primary_once_the_replica_stops(replicated):
    service, standby = replicated
    token = service.request("POST", f"{API}/players", {"name": "Reader"}).body["token"]

    def leaderboard() -> list[str]:
        answer = service.request("GET", f"{API}/leaderboard", token=token)
        assert answer.status == 200, answer.body
        return [entry["player"]["id"] for entry in answer.body["results"]]

    rate_bot(service, "greedy", 24)
    wait_until(lambda: leaderboard() == ["bot:greedy"], "the replica to replay the rating", 30)
    with psycopg.connect(standby.url, autocommit=True) as replica:
        replica.execute("SELECT pg_wal_replay_pause()")
    rate_bot(service, "random", 30)
    # The primary has both; the replica, its replay paused, the first alone.
    assert leaderboard() == ["bot:greedy"]
    assert service.request("GET", "/healthz").body["replica"] == "ok"

    standby.stop()
    assert leaderboard() == ["bot:random", "bot:greedy"]
    wait_until(
        lambda: service.request("GET", "/healthz").body["replica"] == "error",
        "/healthz to see the replica gone",
        10,
    )
    health = service.request("GET", "/healthz")
    assert health.status == 200  # degraded, not unavailable
    assert moves_go_on(service, token)


def moves_go_on(service: Deployment, host: str) -> bool:
    """Two people start a game and each in turn moves: every answer is the primary's."""
    guest = service.request("POST", f"{API}/players", {"name": "Guest"}).body["token"]
    game = service.request("POST", f"{API}/games", {"max_players": 2}, token=host).body["id"]
    assert service.request("POST", f"{API}/games/{game}/join", token=guest).status == 200
    assert service.request("POST", f"{API}/games/{game}/start", token=host).status == 200
    for _ in range(2):
        views = [service.request("GET", f"{API}/games/{game}", token=t) for t in (host, guest)]
        (mover, view), *_ = [
            (t, v.body)
            for t, v in zip((host, guest), views, strict=True)
            if v.body["you"]["legal_moves"]
        ]
        move = view["you"]["legal_moves"][0]
        answer = service.request("POST", f"{API}/games/{game}/moves", move, token=mover)
        assert answer.status == 200, answer.body
        assert answer.body["game"]["version"] > view["version"]
    return True
