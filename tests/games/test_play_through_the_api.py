"""A whole game through the HTTP API, as a client written from docs/api.md would play it."""

from __future__ import annotations

import random

from tests.factories import Persona


def play_to_the_end(players: list[Persona], game_id: str, rng: random.Random) -> dict:
    view = players[0].get(f"/games/{game_id}").json()
    for _ in range(5000):
        if view["status"] != "playing":
            return view
        actor = view["pending"]["seat"] if view["pending"] else view["current_seat"]
        persona = players[actor]
        mine = persona.get(f"/games/{game_id}").json()
        moves = mine["you"]["legal_moves"]
        plays = [m for m in moves if m["action"] == "play"]
        move = rng.choice(plays or moves)
        if move["action"] in ("challenge", "accept"):
            response = persona.post(
                f"/games/{game_id}/challenge",
                {"version": mine["version"], "challenge": move["action"] == "challenge"},
            )
        else:
            if move["action"] == "play" and len(mine["you"]["hand"]) == 2:
                move = {**move, "uno": True}
            response = persona.move(game_id, mine["version"], **move)
        assert response.status_code == 200, response.json()
        view = response.json()["game"]
    raise AssertionError("the game did not end")


def test_two_players_play_a_single_round_game_to_the_end(host: Persona, guest: Persona) -> None:
    created = host.post("/games", {"max_players": 2, "target_score": 0, "seed": 42})
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]
    assert guest.post(f"/games/{game_id}/join").status_code == 200
    started = host.post(f"/games/{game_id}/start")
    assert started.status_code == 200, started.json()
    final = play_to_the_end([host, guest], game_id, random.Random(1))
    assert final["status"] == "finished"
    assert final["winner"] in (0, 1)
    events = host.get(f"/games/{game_id}/events").json()
    seqs = [e["seq"] for e in events["events"]]
    assert seqs == list(range(1, len(seqs) + 1))
    assert [e["type"] for e in events["events"][-2:]] == ["game_ended", "game_rated"]
