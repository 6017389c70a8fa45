"""``GET /games/{id}/events?wait=`` over a real server: the long poll keeps its
contract, and a waiting poll holds no thread (docs/api.md, "Live stream")."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
import requests

from tests.factories import Persona
from tests.games.live.conftest import LiveServer, auth

pytestmark = pytest.mark.django_db(transaction=True)


def poll(live: LiveServer, persona: Persona, game_id: str, **query: Any) -> requests.Response:
    return requests.get(
        f"{live.url}/api/v1/games/{game_id}/events",
        params=query,
        headers=auth(persona),
        timeout=40,
    )


def draw(host: Persona, guest: Persona, game_id: str) -> Persona:
    """The seat to act draws; returns who moved."""
    view = host.get(f"/games/{game_id}").json()
    actor = host if view["current_seat"] == 0 else guest
    view = actor.get(f"/games/{game_id}").json()
    move = next(m for m in view["you"]["legal_moves"] if m["action"] == "draw")
    assert actor.move(game_id, view["version"], **move).status_code == 200
    return actor


def in_background(call: Any) -> tuple[threading.Thread, dict[str, Any]]:
    result: dict[str, Any] = {}

    def run() -> None:
        started = time.monotonic()
        result["response"] = call()
        result["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, result


def test_a_waiting_long_poll_answers_when_a_move_commits_with_what_events_shows(
    live: LiveServer, host, guest, two_players
):
    last_seq = host.get(f"/games/{two_players}").json()["last_seq"]
    thread, result = in_background(lambda: poll(live, guest, two_players, after=last_seq, wait=20))
    time.sleep(0.5)
    assert thread.is_alive()  # it waits: nothing happened yet
    draw(host, guest, two_players)
    thread.join(timeout=10)
    answer = result["response"]
    assert answer.status_code == 200
    assert result["seconds"] < 10
    now = guest.get(f"/games/{two_players}/events", after=last_seq).json()
    assert answer.json() == now
    assert answer.json()["events"]


def test_a_long_poll_with_nothing_new_answers_after_its_wait(live: LiveServer, guest, two_players):
    last_seq = guest.get(f"/games/{two_players}").json()["last_seq"]
    started = time.monotonic()
    answer = poll(live, guest, two_players, after=last_seq, wait=1)
    assert 0.9 < time.monotonic() - started < 5
    assert answer.json() == {"events": [], "last_seq": last_seq}


def test_a_long_poll_behind_answers_at_once(live: LiveServer, guest, two_players):
    started = time.monotonic()
    answer = poll(live, guest, two_players, after=0, wait=30)
    assert time.monotonic() - started < 5
    assert answer.json()["events"][0]["seq"] == 1


@pytest.mark.parametrize("wait", ["31", "1.0", "٣", "-1"])
def test_a_bad_wait_is_a_400_at_once(live: LiveServer, guest, two_players, wait):
    answer = poll(live, guest, two_players, after=0, wait=wait)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "invalid_request"


def test_a_long_poll_without_a_token_is_a_401_at_once(live: LiveServer, two_players):
    answer = requests.get(
        f"{live.url}/api/v1/games/{two_players}/events", params={"wait": 5}, timeout=10
    )
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "not_authenticated"


@pytest.mark.parametrize("game_id", ["not-a-game", "00000000-0000-0000-0000-000000000000"])
def test_a_long_poll_of_no_game_is_a_404(live: LiveServer, guest, game_id):
    answer = poll(live, guest, game_id, wait=5)
    assert answer.status_code == 404


def test_fifty_waiting_long_polls_hold_no_thread_of_the_api(
    live: LiveServer, guest, two_players, settings
):
    from unoservice.asgi import API_THREADS

    settings.MAX_STREAMS_PER_PLAYER = 50  # one player's fifty polls, within their cap

    last_seq = guest.get(f"/games/{two_players}").json()["last_seq"]
    waiting = [
        in_background(lambda: poll(live, guest, two_players, after=last_seq, wait=8))
        for _ in range(50)
    ]
    time.sleep(1.0)
    assert all(thread.is_alive() for thread, _ in waiting)
    # The API still answers at once: the polls wait as coroutines, not on its threads.
    # (Not /healthz: it may wait a second for a worker to answer its ping.)
    started = time.monotonic()
    answer = requests.get(f"{live.url}/api/v1/games/{two_players}", headers=auth(guest), timeout=10)
    assert answer.status_code == 200
    assert time.monotonic() - started < 2
    api_threads = [t for t in threading.enumerate() if t.name.startswith("api")]
    assert len(api_threads) <= API_THREADS
    for thread, result in waiting:
        thread.join(timeout=15)
        assert result["response"].status_code == 200


def test_a_long_poll_that_waited_counts_once_against_the_rate_limit(
    live: LiveServer, host, guest, two_players, monkeypatch
):
    from games import services
    from games.models import Game
    from unoservice.throttling import PlayerRateThrottle

    monkeypatch.setattr(PlayerRateThrottle, "rate", "2/min", raising=False)
    # The poll is the guest's first request of the minute (the game was set up without
    # the API), and must count once however long it waited.
    last_seq = Game.objects.get(pk=two_players).last_seq
    thread, result = in_background(lambda: poll(live, guest, two_players, after=last_seq, wait=20))
    time.sleep(0.5)
    services.game_leave(game_id=two_players, player=host.player)  # a bot takes the seat
    thread.join(timeout=10)
    assert result["response"].status_code == 200
    assert result["response"].json()["events"]
    third = requests.get(f"{live.url}/api/v1/players/me", headers=auth(guest), timeout=10)
    assert third.status_code == 200, third.json()
    fourth = requests.get(f"{live.url}/api/v1/players/me", headers=auth(guest), timeout=10)
    assert fourth.status_code == 429


def test_a_long_poll_answer_is_json(live: LiveServer, guest, two_players):
    answer = poll(live, guest, two_players, after=0, wait=1)
    assert answer.headers["content-type"].startswith("application/json")
    json.loads(answer.content)
