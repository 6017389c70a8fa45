"""The move path stays lean: one ``POST /moves`` costs a fixed, small number of SQL
queries, whatever the move.

Counted inside the test's transaction, so the service's ``transaction.atomic()``
shows up as a SAVEPOINT and its RELEASE (in production they are a BEGIN and a
COMMIT, which Django does not log): the count here is an upper bound.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import Persona, make_persona, start_game

pytestmark = pytest.mark.django_db

MAX_QUERIES_PER_MOVE = 8


def actor_view(players: list[Persona], game_id: str) -> tuple[Persona, dict[str, Any]]:
    table = players[0].get(f"/games/{game_id}").json()
    seat = table["pending"]["seat"] if table["pending"] else table["current_seat"]
    return players[seat], players[seat].get(f"/games/{game_id}").json()


def reach_a_turn_with(
    action: str, players: list[Persona], game_id: str
) -> tuple[Persona, dict[str, Any]]:
    """Draw (and keep) until the player to act, with no decision pending, can make a
    move of `action`; returns them and the body of that move."""
    for _ in range(50):
        persona, view = actor_view(players, game_id)
        moves = [m for m in view["you"]["legal_moves"] if m["action"] == action]
        if view["pending"] is None and moves:
            return persona, {**moves[0], "version": view["version"]}
        legal = view["you"]["legal_moves"]
        if view["pending"] and view["pending"]["type"] == "challenge":
            response = persona.post(
                f"/games/{game_id}/challenge", {"version": view["version"], "challenge": False}
            )
        else:
            fallback = next(m for m in legal if m["action"] in ("draw", "pass", "choose_color"))
            response = persona.move(game_id, view["version"], **fallback)
        assert response.status_code == 200, response.json()
    raise AssertionError(f"no turn with a {action} came up")


@pytest.mark.parametrize("action", ["play", "draw"])
def test_a_move_costs_at_most_eight_sql_queries(host: Persona, guest: Persona, action: str) -> None:
    players = [host, guest, make_persona("Third"), make_persona("Fourth")]
    game_id = str(start_game(*players, seed=5).pk)
    persona, body = reach_a_turn_with(action, players, game_id)

    with CaptureQueriesContext(connection) as captured:
        response = persona.post(f"/games/{game_id}/moves", body)

    assert response.status_code == 200, response.json()
    assert response.json()["events"][0]["type"] == (
        "card_played" if action == "play" else "cards_drawn"
    )
    queries = [q["sql"] for q in captured.captured_queries]
    listing = "\n".join(f"  {i}. {sql[:160]}" for i, sql in enumerate(queries, 1))
    print(f"\nPOST /moves ({action}) on {connection.vendor}: {len(queries)} queries\n{listing}")
    assert len(queries) <= MAX_QUERIES_PER_MOVE, listing


def test_a_stream_ticket_reads_its_game_once(host: Persona, guest: Persona) -> None:
    game_id = str(start_game(host, guest, seed=5).pk)

    with CaptureQueriesContext(connection) as captured:
        answer = guest.post(f"/games/{game_id}/stream-ticket")

    assert answer.status_code == 201, answer.json()
    reads = [q["sql"] for q in captured.captured_queries if 'FROM "games_game"' in q["sql"]]
    assert len(reads) == 1, reads
