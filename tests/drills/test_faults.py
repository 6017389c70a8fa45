"""Fault drills on a private deployment (tests/drills/deployment.py): Redis restarted
mid-game, PostgreSQL restarted mid-game, and the API's worker process killed with
kill -9 in the middle of a move. Clients speak HTTP only, as phones would."""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from tests.drills.deployment import Deployment, running_deployment
from tests.support import wait_until

pytestmark = [pytest.mark.drill, pytest.mark.slow]

API = "/api/v1"
HOST_MOVE_EVENTS = {"card_played", "turn_passed", "color_chosen", "uno_called"}


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    with running_deployment(tmp_path_factory.mktemp("deployment")) as service:
        yield service


# -- a player over HTTP -------------------------------------------------------------


class Player:
    def __init__(self, service: Deployment, name: str) -> None:
        self.service = service
        answer = service.request("POST", f"{API}/players", {"name": name})
        assert answer.status == 201, answer.body
        self.token = answer.body["token"]

    def get(self, path: str) -> Any:
        answer = self.service.request("GET", API + path, token=self.token)
        assert answer.status == 200, answer.body
        return answer.body

    def post(self, path: str, body: Any = None, *, key: str | None = None) -> Any:
        return self.service.request("POST", API + path, body or {}, token=self.token, key=key)

    def game_against_bots(self, bots: int = 3) -> str:
        game = self.post("/games", {"max_players": bots + 1, "target_score": 0}).body
        for _ in range(bots):
            assert self.post(f"/games/{game['id']}/bots", {"strategy": "greedy"}).status == 201
        assert self.post(f"/games/{game['id']}/start").status == 200
        return str(game["id"])

    def my_turn(self, game_id: str, seconds: float = 60) -> dict[str, Any]:
        """The view once it is this player's turn, or the game is over."""
        seen: dict[str, Any] = {}

        def ready() -> bool:
            view = self.get(f"/games/{game_id}")
            seen["view"] = view
            if view["status"] != "playing":
                return True
            pending, me = view["pending"], view["you"]["seat"]
            return bool(pending["seat"] == me if pending else view["current_seat"] == me)

        wait_until(ready, "the player's turn", seconds)
        return seen["view"]

    def plain_turn(self, game_id: str) -> dict[str, Any]:
        """The view at this player's first turn with no decision pending (a challenge,
        a colour, a drawn card): a play or a draw, whose first event names the seat."""
        for _ in range(50):
            view = self.my_turn(game_id)
            assert view["status"] == "playing"
            if view["pending"] is None:
                return view
            path, body = self.request_for(view)
            assert self.post(path, body).status in (200, 409)
        pytest.fail("no plain turn came up")

    @staticmethod
    def request_for(view: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The first play, else the first move of the turn, as (path, body)."""
        moves = [m for m in view["you"]["legal_moves"] if m["action"] != "catch_uno"]
        move = next((m for m in moves if m["action"] == "play"), moves[0])
        if move["action"] in ("challenge", "accept"):
            body = {"version": view["version"], "challenge": move["action"] == "challenge"}
            return f"/games/{view['id']}/challenge", body
        return f"/games/{view['id']}/moves", {"version": view["version"], **move}

    def play_to_the_end(self, game_id: str, seconds: float = 120) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            view = self.my_turn(game_id)
            if view["status"] != "playing":
                return
            path, body = self.request_for(view)
            answer = self.post(path, body)
            assert answer.status in (200, 409), answer.body  # 409: a bot caught us first
        pytest.fail("the game did not end")


def assert_log_replays(service: Deployment, player: Player, game_id: str) -> list[dict[str, Any]]:
    log = player.get(f"/games/{game_id}/log")
    assert log["complete"] is True
    seqs = [e["seq"] for e in log["events"]]
    assert seqs == list(range(1, len(seqs) + 1))
    verified = service.manage("replay_game", game_id, "--verify")
    assert verified.returncode == 0, verified.stderr
    return list(log["events"])


def assert_error_shape(answer: Any, status: int, code: str) -> None:
    assert answer.status == status, answer.body
    assert set(answer.body) == {"error"}
    assert answer.body["error"]["code"] == code
    assert answer.body["error"]["message"]


# -- the drills --------------------------------------------------------------------


def test_redis_restarted_mid_game_loses_no_move_and_the_game_goes_on(deployment):
    host = Player(deployment, "Redis drill")
    game_id = host.game_against_bots()
    view = host.my_turn(game_id)
    deployment.redis.stop()
    try:
        path, body = host.request_for(view)
        during = host.post(path, body)
        # The move is the database's to keep: a broker outage must not refuse it.
        assert during.status == 200, during.body
        kept = [(e["seq"], e["type"]) for e in during.body["events"]]
        time.sleep(1.0)
    finally:
        deployment.redis.start()  # the same port, empty: every queued task is gone
    host.play_to_the_end(game_id)
    events = assert_log_replays(deployment, host, game_id)
    assert all(
        (events[seq - 1]["seq"], events[seq - 1]["type"]) == (seq, kind) for seq, kind in kept
    )
    assert events[-1]["type"] == "game_ended"


def test_postgres_restarted_mid_game_answers_503_then_recovers_without_a_restart(deployment):
    host = Player(deployment, "Postgres drill")
    game_id = host.game_against_bots()
    view = host.my_turn(game_id)
    api_pids = deployment.api_worker_pids()
    deployment.postgres.stop()
    try:
        path, body = host.request_for(view)
        answers = {
            "view": deployment.request("GET", f"{API}/games/{game_id}", token=host.token),
            "move": host.post(path, body),
            "events": deployment.request("GET", f"{API}/games/{game_id}/events", token=host.token),
            "new player": deployment.request("POST", f"{API}/players", {"name": "Late"}),
        }
        health = deployment.request("GET", "/healthz")
    finally:
        deployment.postgres.start()
    for what, answer in answers.items():
        assert answer.status == 503, (what, answer.body)
        assert_error_shape(answer, 503, "service_unavailable")
    assert health.status == 503
    assert health.body["database"] == "error"

    wait_until(lambda: deployment.request("GET", "/healthz").status == 200, "recovery", 30)
    assert deployment.api_worker_pids() == api_pids  # the same processes, not restarted
    retried = host.post(path, body)
    assert retried.status == 200, retried.body  # the refused move was not half-applied
    host.play_to_the_end(game_id)
    assert_log_replays(deployment, host, game_id)


def test_an_api_worker_killed_mid_move_is_retried_with_its_key_and_applied_once(deployment):
    host = Player(deployment, "Kill drill")
    game_id = host.game_against_bots()
    view = host.plain_turn(game_id)
    path, body = host.request_for(view)
    key = str(uuid.uuid4())
    outcome: dict[str, Any] = {}

    def send() -> None:
        try:
            outcome["answer"] = host.post(path, body, key=key)
        except OSError as error:  # the connection dies with the worker
            outcome["error"] = error

    with psycopg.connect(deployment.postgres.url.replace("postgres://", "postgresql://")) as db:
        # Hold the game row so that the move is caught mid-way, inside its transaction.
        db.execute("SELECT 1 FROM games_game WHERE id = %s FOR UPDATE", [game_id])
        sender = threading.Thread(target=send)
        sender.start()

        def blocked() -> bool:
            row = db.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND pid <> pg_backend_pid()"
            ).fetchone()
            return bool(row and row[0] >= 1)

        wait_until(blocked, "the move waiting on the game row", 20)
        victims = deployment.api_worker_pids()
        assert victims
        for pid in victims:
            os.kill(pid, signal.SIGKILL)
        db.rollback()
    sender.join(timeout=30)
    assert "error" in outcome, outcome  # no answer: the client cannot know what happened

    wait_until(lambda: deployment.request("GET", "/healthz").status == 200, "a new worker", 30)
    first = host.post(path, body, key=key)
    again = host.post(path, body, key=key)
    assert first.status == 200, first.body
    assert again.status == 200
    assert again.body == first.body  # the same answer, not a second move
    assert first.body["game"]["version"] > view["version"]

    # The moves of this seat since the view: the ones before it (a colour chosen for a
    # Wild turned up first, say) were made to reach a plain turn.
    events = [e for e in player_events(host, game_id) if e["seq"] > view["last_seq"]]
    made = [e for e in events if e["seat"] == view["you"]["seat"] and starts_a_move(e)]
    # Every event of one move carries the move's time: a draw of a card that cannot be
    # played, passed on in the same move, is still one move.
    assert len({e["at"] for e in made}) == 1, made
    assert made[0]["seq"] == first.body["events"][0]["seq"]


def player_events(player: Player, game_id: str) -> list[dict[str, Any]]:
    return list(player.get(f"/games/{game_id}/events?after=0")["events"])


def starts_a_move(event: dict[str, Any]) -> bool:
    if event["type"] == "cards_drawn":
        return bool(event["data"]["reason"] == "draw")
    return event["type"] in HOST_MOVE_EVENTS
