"""The benchmark of a stream's wake-up, briefly: both ways measured and compared."""

from __future__ import annotations

import json

import pytest

from bench import waits


def test_both_ways_of_waiting_are_timed_and_compared(capsys: pytest.CaptureFixture[str]) -> None:
    assert waits.main(["--waiters", "200", "--rounds", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["waiters"] == 200
    assert result["own_future_us_per_wake_up"] > 0
    assert result["with_a_shared_future_us_per_wake_up"] > 0
    assert result["ratio"] == pytest.approx(
        result["with_a_shared_future_us_per_wake_up"] / result["own_future_us_per_wake_up"],
        rel=0.05,
    )
