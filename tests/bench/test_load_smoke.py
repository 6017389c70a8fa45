"""The HTTP load benchmark, briefly, against a live server in the test process."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from bench import load


def concurrent_clients() -> int:
    """The live server shares one connection to an in-memory SQLite test database
    between its threads, so there one client at a time; PostgreSQL takes two."""
    return 1 if connection.vendor == "sqlite" else 2


@pytest.mark.slow
def test_the_load_client_makes_moves_and_loads_the_floor(
    live_server, bench_floor_on: None, no_rate_limits: None, capsys: pytest.CaptureFixture[str]
):
    clients = str(concurrent_clients())
    code = load.main(
        ["--url", live_server.url, "--clients", clients, "--seconds", "2", "--json", "--seed", "7"]
    )

    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert set(load.JSON_KEYS) <= set(result)
    assert result["moves"] > 0
    assert result["moves_per_s"] > 0
    assert 0 < result["p50_ms"] <= result["p95_ms"] <= result["p99_ms"]
    assert result["move_errors"] == {}
    assert result["other_errors"] == {}
    assert result["baseline_per_s"] > 0
    assert result["baseline_errors"] == {}
    assert result["ratio"] == pytest.approx(
        result["moves_per_s"] / result["baseline_per_s"], rel=0.01
    )


@pytest.mark.slow
def test_without_the_floor_the_moves_are_still_measured(
    live_server, bench_floor_off: None, no_rate_limits: None
):
    result = load.run(live_server.url, clients=1, seconds=1, seed=3)

    assert result["moves"] > 0
    assert result["baseline_per_s"] is None
    assert result["ratio"] is None
    assert "404 floor not mounted (BENCH_FLOOR off)" in result["baseline_errors"]


def test_percentiles_are_nearest_rank_in_milliseconds():
    values = [i / 1000 for i in range(1, 101)]  # 1..100 ms
    assert load.percentile(values, 50) == 50.0
    assert load.percentile(values, 99) == 99.0
    assert load.percentile(values, 100) == 100.0
    assert load.percentile([], 50) is None
