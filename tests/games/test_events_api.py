"""``GET /games/{id}/events`` (with ``after`` and the ``wait`` long poll), and the log
and replay endpoints of docs/api.md."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.db import connection

from games.engine.position import build_state
from games.models import Game
from tests.factories import API, Persona, assert_error, put_state, seat_table, start_game

EVENT_KEYS = {"seq", "at", "round", "type", "seat", "data"}
R1 = 1


def new_game(host: Persona) -> str:
    """A waiting four-seat game of the host's; its id."""
    return str(seat_table(host, seed=21, max_players=4).pk)


def table(host: Persona, guest: Persona) -> str:
    """A running game of the host and the guest; its id."""
    return str(start_game(host, guest, seed=21, target_score=500).pk)


def put_basic(game_id: str) -> int:
    """Seat 0 to play R1 on a red 5; returns the version."""
    state = build_state([["R1", "G3", "Y9"], ["B4", "B5", "Y6"]], top="R5")
    return put_state(game_id, state).version


def feed(persona: Persona, game_id: str, **params: Any) -> dict[str, Any]:
    response = persona.get(f"/games/{game_id}/events", **params)
    assert response.status_code == 200, response.json()
    body = response.json()
    assert set(body) == {"events", "last_seq"}
    return body


# -- the feed -----------------------------------------------------------------------------


def test_the_feed_of_a_new_game_holds_the_host_joining(host):
    game_id = new_game(host)
    body = feed(host, game_id)
    assert body["last_seq"] == 1
    [event] = body["events"]
    assert set(event) == EVENT_KEYS
    assert event["seq"] == 1
    assert event["type"] == "player_joined"
    assert event["seat"] == 0
    assert event["round"] is None
    assert isinstance(event["at"], str)
    assert event["data"] == {"player": {"id": str(host.player.pk), "name": "Host"}}


def test_the_feed_numbers_events_from_1_without_gaps(host, guest):
    game_id = table(host, guest)
    version = put_basic(game_id)
    host.move(game_id, version, action="play", card=R1)
    body = feed(host, game_id)
    seqs = [e["seq"] for e in body["events"]]
    assert seqs == list(range(1, len(seqs) + 1))
    assert body["last_seq"] == seqs[-1] == Game.objects.get(pk=game_id).last_seq
    types = [e["type"] for e in body["events"]]
    assert types[:4] == ["player_joined", "player_joined", "game_started", "round_started"]
    assert "card_played" in types


def test_after_returns_only_the_events_after_that_seq(host, guest):
    game_id = table(host, guest)
    everything = feed(host, game_id)
    for after in range(everything["last_seq"] + 1):
        body = feed(host, game_id, after=after)
        assert body["events"] == everything["events"][after:]
        assert body["last_seq"] == everything["last_seq"]


def test_after_the_last_seq_the_feed_is_empty_but_says_the_last_seq(host):
    game_id = new_game(host)
    assert feed(host, game_id, after=1) == {"events": [], "last_seq": 1}
    assert feed(host, game_id, after=1000) == {"events": [], "last_seq": 1}


def test_the_game_started_and_round_started_events_carry_their_data(host, guest, outsider):
    game_id = table(host, guest)
    events = {e["type"]: e for e in feed(host, game_id)["events"]}
    started = events["game_started"]
    assert started["round"] == 1
    assert set(started["data"]) >= {"dealer"}
    dealt = events["round_started"]
    assert dealt["round"] == 1
    assert set(dealt["data"]) >= {
        "dealer",
        "top_card",
        "current_color",
        "direction",
        "current_seat",
        "hand",
    }
    assert "hands" not in dealt["data"]
    assert len(dealt["data"]["hand"]) == 7
    assert set(dealt["data"]["top_card"]) == {"id", "code", "color", "kind", "number"}
    theirs = {e["type"]: e for e in feed(guest, game_id)["events"]}["round_started"]
    assert {c["id"] for c in theirs["data"]["hand"]}.isdisjoint(
        {c["id"] for c in dealt["data"]["hand"]}
    )
    spectator = {e["type"]: e for e in feed(outsider, game_id)["events"]}["round_started"]
    assert "hand" not in spectator["data"]
    assert "hands" not in spectator["data"]


def test_a_spectator_reads_the_feed_without_anyones_cards(host, guest, outsider):
    game_id = table(host, guest)
    version = put_basic(game_id)
    host.move(game_id, version, action="draw")
    seated = feed(host, game_id)["events"]
    spectator = feed(outsider, game_id)["events"]
    assert [e["seq"] for e in spectator] == [e["seq"] for e in seated]
    drawn = [e for e in spectator if e["type"] == "cards_drawn"]
    assert drawn
    assert all("cards" not in e["data"] and e["data"]["count"] >= 1 for e in drawn)


@pytest.mark.parametrize(
    "params",
    [
        {"after": -1},
        {"after": "x"},
        {"after": "1.5"},
        {"after": ""},
        {"wait": -1},
        {"wait": 31},
        {"wait": "soon"},
        {"wait": "0.5"},
        {"wait": 10**9},
    ],
    ids=repr,
)
def test_a_bad_after_or_wait_is_a_400(host, params):
    game_id = new_game(host)
    assert_error(host.get(f"/games/{game_id}/events", **params), 400, "invalid_request")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("after", "0.0"),
        ("after", "\u0663"),
        ("after", "+3"),
        ("after", " 3"),
        ("after", "3 "),
        ("after", "1_0"),
        ("after", "\uff13"),
        ("wait", "1.0"),
        ("wait", "\u0663"),
        ("wait", "+1"),
        ("wait", " 1"),
    ],
    ids=repr,
)
def test_after_and_wait_take_ascii_digits_only(host, name, value):
    game_id = new_game(host)
    error = assert_error(
        host.get(f"/games/{game_id}/events", **{name: value}), 400, "invalid_request"
    )
    assert set(error["details"]["fields"]) == {name}


def test_after_and_wait_in_ascii_digits_with_leading_zeros_are_read_as_numbers(host):
    game_id = new_game(host)
    assert feed(host, game_id, after="00", wait="0") == feed(host, game_id)
    assert feed(host, game_id, after="01")["events"] == []


@pytest.mark.parametrize("game_id", ["00000000-0000-0000-0000-000000000000", "nope"])
def test_the_feed_of_an_unknown_game_is_a_404(host, game_id):
    assert_error(host.get(f"/games/{game_id}/events"), 404, "not_found")


def test_the_feed_needs_a_token(host, anonymous):
    game_id = new_game(host)
    assert_error(anonymous.get(f"{API}/games/{game_id}/events"), 401, "not_authenticated")


def test_the_feed_is_read_only(host):
    game_id = new_game(host)
    response = host.post(f"/games/{game_id}/events", {})
    assert response.status_code == 405, response.content
    assert set(response.json()) == {"error"}


# -- the long poll --------------------------------------------------------------------------


def test_wait_returns_at_once_when_events_are_already_there(host):
    game_id = new_game(host)
    started = time.monotonic()
    body = feed(host, game_id, after=0, wait=10)
    assert time.monotonic() - started < 2
    assert [e["seq"] for e in body["events"]] == [1]


def test_wait_without_new_events_returns_empty_after_the_wait(host):
    game_id = new_game(host)
    started = time.monotonic()
    body = feed(host, game_id, after=1, wait=1)
    elapsed = time.monotonic() - started
    assert body == {"events": [], "last_seq": 1}
    assert 0.9 <= elapsed < 5


def test_wait_zero_does_not_wait(host):
    game_id = new_game(host)
    started = time.monotonic()
    assert feed(host, game_id, after=1, wait=0) == {"events": [], "last_seq": 1}
    assert time.monotonic() - started < 1


@pytest.mark.django_db(transaction=True)
def test_a_long_poll_returns_the_move_made_while_it_waits(host, guest):
    game_id = table(host, guest)
    version = put_basic(game_id)
    last_seq = Game.objects.get(pk=game_id).last_seq
    answers: list[Any] = []

    def move_soon() -> None:
        try:
            time.sleep(0.5)
            answers.append(host.move(game_id, version, action="play", card=R1))
        finally:
            connection.close()

    mover = threading.Thread(target=move_soon)
    started = time.monotonic()
    mover.start()
    try:
        body = feed(guest, game_id, after=last_seq, wait=10)
    finally:
        mover.join(timeout=15)
    elapsed = time.monotonic() - started
    assert answers
    assert answers[0].status_code == 200, answers[0].json()
    assert 0.3 <= elapsed < 5
    assert body["events"]
    assert body["events"][0]["seq"] == last_seq + 1
    assert body["events"][0]["type"] == "card_played"
    assert body["events"][0]["data"]["card"]["id"] == R1
    assert body["last_seq"] == answers[0].json()["game"]["last_seq"]
    assert [e["seq"] for e in body["events"]] == list(range(last_seq + 1, body["last_seq"] + 1))


@pytest.mark.django_db(transaction=True)
def test_a_long_poll_sees_a_player_joining_the_lobby(host, guest):
    game_id = new_game(host)
    answers: list[Any] = []

    def join_soon() -> None:
        try:
            time.sleep(0.5)
            answers.append(guest.post(f"/games/{game_id}/join"))
        finally:
            connection.close()

    joiner = threading.Thread(target=join_soon)
    joiner.start()
    try:
        body = feed(host, game_id, after=1, wait=10)
    finally:
        joiner.join(timeout=15)
    assert answers[0].status_code == 200
    assert [(e["seq"], e["type"], e["seat"]) for e in body["events"]] == [(2, "player_joined", 1)]


# -- the log and the replay (docs/api.md: "Events, log and replay") ------------------------------
