"""The quick-match benchmark, briefly: the command as CI runs it, with a server and
database of its own (bench/serve.py), and the parts of it that need no server."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bench import matchmaking
from bench.serve import BASE_DIR
from tests.support import database_url_named

SMOKE_DATABASE = "uno_bench_matchmaking_smoke"


@pytest.mark.postgres
@pytest.mark.slow
def test_the_matchmaking_benchmark_seats_everyone_in_full_started_games():
    command = [
        sys.executable,
        "-m",
        "bench.matchmaking",
        "--spawn",
        "--players",
        "18",
        "--size",
        "4",
        "--json",
        "--database-url",
        database_url_named(SMOKE_DATABASE),
    ]
    done = subprocess.run(command, cwd=BASE_DIR, capture_output=True, text=True, timeout=150)

    assert done.returncode == 0, done.stderr[-3000:] or done.stdout[-3000:]
    result = json.loads(done.stdout)
    assert result["checks"] == {
        "every_player_seated_once": True,
        "full_games_started": True,
        "full_games_players_saw_the_start": True,
        "none_half_filled": True,
        "no_errors": True,
    }
    assert result["games_by_status"] == {"playing": 4, "waiting": 1}  # 18 = 4 x 4 + 2
    assert result["saw_start"] == 16
    # The requests served in the batch that filled a game are answered with it
    # started: the one that filled it at least, all four at most.
    assert 4 <= result["answered_playing"] <= 16
    assert 0 < result["baseline_ms"]["p50"] <= result["baseline_ms"]["max"]
    assert result["to_playing_p99_over_baseline_p99"] > 0
    assert 0 < result["request_ms"]["p50"] <= result["request_ms"]["max"]
    assert 0 < result["to_playing_ms"]["p50"] <= result["to_playing_ms"]["max"]
    assert result["server"]["server"] == "uno"


def test_percentiles_of_no_samples_are_none_and_of_one_sample_that_sample():
    assert matchmaking.percentiles([]) == {"p50": None, "p90": None, "p99": None, "max": None}
    assert matchmaking.percentiles([3.0])["p99"] == 3.0
    figures = matchmaking.percentiles([float(n) for n in range(1, 101)])
    assert figures["p50"] == pytest.approx(50.5)
    assert figures["max"] == 100.0
