"""The benchmark of what rating adds to a game's ending move, briefly: the command
with a database of its own (bench/serve.py), and the position it ends games from."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bench import ratings
from bench.serve import BASE_DIR
from games import engine
from games.engine import Move
from games.engine.position import card_in_hand
from players import rating
from tests.support import database_url_named

SMOKE_DATABASE = "uno_bench_ratings_smoke"


@pytest.mark.postgres
@pytest.mark.slow
def test_the_ratings_benchmark_times_rated_and_unrated_endings_and_rated_ones_log_ratings() -> None:
    command = [
        sys.executable,
        "-m",
        "bench.ratings",
        "--games",
        "3",
        "--first-games",
        "2",
        "--warmup",
        "1",
        "--profile",
        "2",
        "--json",
        "--database-url",
        database_url_named(SMOKE_DATABASE),
    ]
    done = subprocess.run(command, cwd=BASE_DIR, capture_output=True, text=True, timeout=150)

    assert done.returncode == 0, done.stderr[-3000:] or done.stdout[-3000:]
    result = json.loads(done.stdout)
    assert set(ratings.JSON_KEYS) <= set(result)
    assert result["problems"] == []
    assert (result["seats"], result["games"], result["first_games"]) == (10, 3, 2)
    for kind, games, logged in (("unrated", 3, 0), ("rated", 3, 3), ("rated_first", 2, 2)):
        figures = result[kind]
        assert figures["n"] == games
        assert figures["game_rated_events"] == logged
        assert 0 < figures["median_ms"] <= figures["p90_ms"]
        assert 0 < figures["cpu_median_ms"] <= figures["cpu_p90_ms"]
        assert figures["round_trips"] >= figures["statements"] > 0
    # The rated ending locks, creates if need be and updates the seats' ratings.
    for statement in ("INSERT players_rating", "SELECT FOR UPDATE", "UPDATE players_rating"):
        assert statement in result["rated"]["statement_list"]
    assert "UPDATE players_rating" not in result["unrated"]["statement_list"]
    assert result["rated"]["statements"] > result["unrated"]["statements"]
    added = result["rated"]["median_ms"] - result["unrated"]["median_ms"]
    assert result["added_median_ms"] == pytest.approx(added, abs=0.002)
    assert result["ratio"] > 0
    assert result["under_target"] is (result["added_median_ms"] < result["target_ms"])
    # --profile with --json: the sections and cProfile's listing on stderr.
    assert "writes.lock_ratings" in done.stderr
    assert "fastsql.update_rows" in done.stderr
    assert "cProfile of 2 rated ending moves" in done.stderr


@pytest.mark.parametrize("winner", [0, 4, 9])
def test_the_winners_last_card_ends_the_game_with_every_place_distinct(winner: int) -> None:
    state = ratings.end_position(winner)
    assert state.to_act == winner
    assert len(state.hands[winner]) == 1
    card = card_in_hand(state, winner, ratings.WINNING_CARD)

    engine.apply(state, winner, Move.from_json({"action": "play", "card": card}))

    assert state.finished
    assert state.winner == winner
    places = rating.places(state.scores, winner)
    assert sorted(places) == list(range(1, ratings.SEATS + 1))
    assert places[winner] == 1
