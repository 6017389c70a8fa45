"""Races: many clients hit the same game at the same moment, on real threads.

Every thread has its own API client (and so its own database connection), waits at
a barrier so that all of them send together, and closes its connection when done.
Each scenario runs ROUNDS times to give the races a chance to happen. These tests
need PostgreSQL: SQLite serialises writers, which hides exactly what is tested here.
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from games.models import Event, Game, Seat
from tests.factories import API, Persona, make_persona, seat_table, stamp_game, start_game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROUNDS = 5
BARRIER_TIMEOUT = 30
JOIN_TIMEOUT = 60

Answer = tuple[int, dict[str, Any]]


def client_for(persona: Persona) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {persona.token}")
    return client


def all_at_once(calls: list[Callable[[], Any]]) -> list[Answer]:
    """Run every call on its own thread, released together by a barrier."""
    barrier = threading.Barrier(len(calls))
    answers: list[Answer | None] = [None] * len(calls)
    errors: list[BaseException] = []

    def worker(index: int) -> None:
        try:
            barrier.wait(timeout=BARRIER_TIMEOUT)
            response = calls[index]()
            answers[index] = (response.status_code, response.json())
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(JOIN_TIMEOUT)
    assert not any(thread.is_alive() for thread in threads), "a request hung"
    assert not errors, errors
    assert all(answer is not None for answer in answers)
    return [answer for answer in answers if answer is not None]


def code(answer: Answer) -> str | None:
    status, body = answer
    return None if status < 400 else body["error"]["code"]


def summary(answers: list[Answer]) -> Counter[tuple[int, str | None]]:
    return Counter((status, code((status, body))) for status, body in answers)


def assert_log_is_gap_free(game: Game) -> None:
    seqs = list(Event.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.last_seq + 1)), seqs


def next_move(players: list[Persona], game_id: str) -> tuple[int, str, dict[str, Any]]:
    """Who acts now, the endpoint and the body of one of their legal moves (a play
    when there is one), with the current version."""
    spectator_view = players[0].get(f"/games/{game_id}").json()
    pending = spectator_view["pending"]
    seat = pending["seat"] if pending else spectator_view["current_seat"]
    view = players[seat].get(f"/games/{game_id}").json()
    moves = view["you"]["legal_moves"]
    if any(m["action"] == "challenge" for m in moves):
        return seat, "challenge", {"version": view["version"], "challenge": False}
    plays = [m for m in moves if m["action"] == "play"]
    turn = [m for m in moves if m["action"] not in ("catch_uno", "call_uno")]
    return seat, "moves", {"version": view["version"], **(plays or turn)[0]}


def test_sixteen_clients_sending_the_same_move_at_once_apply_it_once(
    host: Persona, guest: Persona
) -> None:
    players = [host, guest, make_persona("Third"), make_persona("Fourth")]
    game_id = str(start_game(*players, seed=77).pk)
    for _ in range(ROUNDS):
        seat, endpoint, body = next_move(players, game_id)
        before = Game.objects.get(pk=game_id)
        # Four clients for each seated player: the mover's own race each other (one
        # wins, the rest are stale), the others' are not in turn (or stale).
        clients = [client_for(p) for p in players for _ in range(4)]
        url = f"{API}/games/{game_id}/{endpoint}"
        answers = all_at_once([partial(c.post, url, body, format="json") for c in clients])

        counts = summary(answers)
        assert sum(n for (status, _), n in counts.items() if status == 200) == 1, counts
        assert all(
            status == 200 or (status == 409 and error in ("stale_version", "not_your_turn"))
            for status, error in counts
        ), counts
        ((winner, (_, accepted)),) = [(i, a) for i, a in enumerate(answers) if a[0] == 200]
        assert winner // 4 == seat, "a client of another player moved"
        after = Game.objects.get(pk=game_id)
        assert after.version == before.version + 1
        appended = [e["seq"] for e in accepted["events"]]
        assert appended == list(range(before.last_seq + 1, before.last_seq + 1 + len(appended)))
        assert after.last_seq == before.last_seq + len(appended)
        assert_log_is_gap_free(after)
        assert after.status == "playing", "the game ended: pick a longer seed"


def test_sixteen_players_joining_a_four_seat_game_at_once_fill_exactly_three_seats(
    host: Persona,
) -> None:
    for round_no in range(ROUNDS):
        game_id = seat_table(host, max_players=4).pk
        joiners = [make_persona(f"Joiner{round_no}-{i}") for i in range(16)]
        clients = [client_for(p) for p in joiners]
        url = f"{API}/games/{game_id}/join"
        answers = all_at_once([partial(c.post, url) for c in clients])

        counts = summary(answers)
        assert counts == {(200, None): 3, (409, "game_full"): 13}, counts
        seats = list(Seat.objects.filter(game_id=game_id).order_by("seat"))
        assert [s.seat for s in seats] == [0, 1, 2, 3]
        winners = {p.player.pk for p, a in zip(joiners, answers, strict=True) if a[0] == 200}
        assert {s.player_id for s in seats} == {host.player.pk, *winners}
        game = Game.objects.get(pk=game_id)
        assert game.version == 1 + 3
        assert game.last_seq == 1 + 3
        assert_log_is_gap_free(game)


def test_the_same_idempotency_key_sent_eight_times_at_once_acts_once(
    host: Persona, guest: Persona
) -> None:
    players = [host, guest, make_persona("Third"), make_persona("Fourth")]
    game_id = str(start_game(*players, seed=78).pk)
    for _ in range(ROUNDS):
        seat, endpoint, body = next_move(players, game_id)
        before = Game.objects.get(pk=game_id)
        key = f"race-{uuid.uuid4()}"
        clients = [client_for(players[seat]) for _ in range(8)]
        url = f"{API}/games/{game_id}/{endpoint}"
        headers = {"Idempotency-Key": key}
        answers = all_at_once(
            [partial(c.post, url, body, format="json", headers=headers) for c in clients]
        )

        counts = summary(answers)
        assert set(counts) <= {(200, None), (409, "idempotency_key_in_use")}, counts
        bodies = [b for status, b in answers if status == 200]
        assert bodies, counts
        assert all(b == bodies[0] for b in bodies), "the replayed answers differ"
        after = Game.objects.get(pk=game_id)
        assert after.version == before.version + 1
        assert after.last_seq == before.last_seq + len(bodies[0]["events"])
        assert_log_is_gap_free(after)
        # A retry once the dust has settled gets the first answer again.
        retry = players[seat].post(f"/games/{game_id}/{endpoint}", body, **{"Idempotency-Key": key})
        assert retry.status_code == 200, retry.json()
        assert retry.json() == bodies[0]
        assert Game.objects.get(pk=game_id).version == after.version


def test_the_players_of_a_finished_game_asking_for_a_rematch_at_once_all_land_in_one(
    host: Persona, guest: Persona
) -> None:
    players = [host, guest, make_persona("Third"), make_persona("Fourth")]
    for _ in range(ROUNDS):
        finished = stamp_game(
            host=host.player,
            seats=[p.player for p in players],
            status="finished",
            started_at=timezone.now(),
        )
        # Two clients for each player: the first to be served creates the rematch, every
        # other request joins it or, already seated there, changes nothing.
        clients = [client_for(p) for p in players for _ in range(2)]
        url = f"{API}/games/{finished.pk}/rematch"
        answers = all_at_once([partial(c.post, url) for c in clients])

        assert summary(answers) == {(201, None): 8}, summary(answers)
        (rematch,) = Game.objects.filter(rematch_of=finished)
        assert {body["id"] for _, body in answers} == {str(rematch.pk)}
        seats = list(Seat.objects.filter(game=rematch).order_by("seat"))
        assert [s.seat for s in seats] == [0, 1, 2, 3]
        assert {s.player_id for s in seats} == {p.player.pk for p in players}
        assert seats[0].player_id == rematch.host_id
        assert rematch.version == 1 + 3
        assert_log_is_gap_free(rematch)
        finished = Game.objects.get(pk=finished.pk)
        offers = Event.objects.filter(game=finished, type="rematch_offered")
        assert [e.data["game"] for e in offers] == [str(rematch.pk)]
        assert_log_is_gap_free(finished)
