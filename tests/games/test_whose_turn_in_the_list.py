"""Whose turn it is in the game list: each running game names the seat to act, says
whether it is the caller's and when it times out, so that a player away from the
table can list the games waiting for their move (`?your_turn=true`) at a cost that
does not grow with the number of games."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Game, GameStatus, Seat
from tests.factories import (
    Persona,
    assert_error,
    make_persona,
    reload,
    seed_where,
    stamp_game,
    start_game,
)

pytestmark = pytest.mark.django_db

DAY = 86_400


def running(host: Persona, guest: Persona, *, to_act: int, **options: Any) -> Game:
    """A two-human game with one-day turns in which `to_act` (0: the host) must act."""
    seed = seed_where(2, lambda s: s.to_act == to_act and s.pending is None)
    return start_game(host, guest, seed=seed, turn_timeout=DAY, **options)


def summary_of(persona: Persona, game: Game, **params: str) -> dict[str, Any]:
    (found,) = [
        g for g in persona.get("/games", **params).json()["results"] if g["id"] == str(game.pk)
    ]
    return found


def listed(persona: Persona, **params: str) -> list[str]:
    return [g["id"] for g in persona.get("/games", **params).json()["results"]]


def test_a_running_game_names_the_seat_to_act_to_everyone_and_tells_that_player_it_is_theirs(
    host, guest, outsider
):
    game = running(host, guest, to_act=0)
    view = host.get(f"/games/{game.pk}").json()
    assert view["turn_deadline"] is not None
    for persona, yours in ((host, True), (guest, False), (outsider, False)):
        summary = summary_of(persona, game)
        assert summary["to_act"] == view["current_seat"] == 0
        assert summary["round"] == view["round"] == 1
        assert summary["your_turn"] is yours
        assert summary["turn_deadline"] == view["turn_deadline"]


def test_move_after_move_the_seat_to_act_is_the_views_and_a_decision_is_its_deciders(host, guest):
    game = running(host, guest, to_act=0)
    players = (host, guest)
    decisions = set()
    for _ in range(30):
        view = host.get(f"/games/{game.pk}").json()
        if view["status"] != "playing":
            break
        pending = view["pending"]
        to_act = view["current_seat"] if pending is None else pending["seat"]
        if pending is not None:
            decisions.add(pending["type"])
        for seat, persona in enumerate(players):
            summary = summary_of(persona, game)
            assert summary["to_act"] == to_act
            assert summary["your_turn"] is (seat == to_act)
        make_a_move(players[to_act], game)
    assert decisions  # a drawn card or a Wild Draw Four to answer came up


def make_a_move(persona: Persona, game: Game) -> None:
    """The seat to act plays a Wild Draw Four if it can (the other seat then decides),
    else a card, else its first legal move; a challenge decision is to accept."""
    view = persona.get(f"/games/{game.pk}").json()
    moves = [m for m in view["you"]["legal_moves"] if m["action"] not in ("catch_uno", "call_uno")]
    if moves[0]["action"] in ("challenge", "accept"):
        body = {"version": view["version"], "challenge": False}
        answer = persona.post(f"/games/{game.pk}/challenge", body)
    else:
        hand = {card["id"]: card["code"] for card in view["you"]["hand"]}
        plays = [m for m in moves if m["action"] == "play"]
        move = next((m for m in plays if hand[m["card"]] == "W+4"), plays[0] if plays else moves[0])
        answer = persona.move(game.pk, view["version"], **move)
    assert answer.status_code == 200, answer.json()


def test_a_game_that_does_not_run_has_no_seat_to_act(host, guest):
    waiting = stamp_game(host=host.player)
    over = stamp_game(host=host.player, status=GameStatus.FINISHED)
    paused = running(host, guest, to_act=0)
    Game.objects.filter(pk=paused.pk).update(paused_until=timezone.now(), turn_deadline=None)
    for game in (waiting, over, paused):
        summary = summary_of(host, game)
        assert (summary["to_act"], summary["your_turn"], summary["turn_deadline"]) == (
            None,
            False,
            None,
        )


def test_the_summary_shows_no_cards(host, guest):
    game = running(host, guest, to_act=0)
    summary = summary_of(host, game)
    text = str({key: value for key, value in summary.items() if key != "shuffle_hands_last_card"})
    assert "hand" not in text
    assert "legal_moves" not in text


def test_your_turn_lists_only_the_running_games_waiting_for_the_callers_move(host, guest, outsider):
    hosts_move = running(host, guest, to_act=0)
    guests_move = running(host, guest, to_act=1)
    stamp_game(host=host.player)  # waiting
    running(outsider, make_persona("Other"), to_act=0)
    assert listed(host, your_turn="true") == [str(hosts_move.pk)]
    assert listed(guest, your_turn="1") == [str(guests_move.pk)]
    assert listed(outsider, your_turn="true") != []
    assert listed(make_persona("Nobody"), your_turn="true") == []
    assert len(listed(host, your_turn="false")) == len(listed(host)) == 4


def test_a_seat_a_bot_took_over_is_not_waiting_for_its_player(host, guest):
    game = running(host, guest, to_act=0)
    seating = reload(game).seating
    seating[0]["bot"] = "greedy"
    Game.objects.filter(pk=game.pk).update(seating=seating)
    Seat.objects.filter(game=game, seat=0).update(bot="greedy", timed_out=True)
    assert summary_of(host, game)["to_act"] == 0
    assert summary_of(host, game)["your_turn"] is False
    assert listed(host, your_turn="true") == []


def test_your_turn_combines_with_the_other_filters(host, guest):
    game = running(host, guest, to_act=0, visibility="private")
    assert listed(host, your_turn="true", mine="true", status="playing") == [str(game.pk)]
    assert listed(host, your_turn="true", status="waiting") == []


@pytest.mark.parametrize("value", ["maybe", "2", "yes"])
def test_a_your_turn_other_than_true_false_1_or_0_is_a_400(host, value):
    assert_error(host.get("/games", your_turn=value), 400, "invalid_request")


def queries_to_list(persona: Persona, **params: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        answer = persona.get("/games", **params)
    assert answer.status_code == 200, answer.json()
    return len(captured)


@pytest.mark.parametrize("params", [{}, {"mine": "true"}, {"your_turn": "true"}], ids=repr)
def test_listing_costs_the_same_queries_for_one_running_game_as_for_many(host, params):
    others = [make_persona(f"Friend {n}") for n in range(6)]
    running(host, others[0], to_act=0)
    one = queries_to_list(host, **params)
    for n, friend in enumerate(others[1:], start=1):
        running(host, friend, to_act=n % 2)
    assert len(listed(host, **params)) > 1
    assert queries_to_list(host, **params) == one
