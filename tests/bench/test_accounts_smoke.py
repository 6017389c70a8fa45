"""The benchmark of answers about known and unknown email addresses, briefly: the
command with a database of its own (bench/serve.py) answers every request as the
service should and prints each kind's figures, and each step of the flows."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bench import accounts
from bench.serve import BASE_DIR
from tests.support import database_url_named

SMOKE_DATABASE = "uno_bench_accounts_smoke"


@pytest.mark.postgres
@pytest.mark.slow
def test_the_accounts_benchmark_times_both_kinds_of_address_for_each_request() -> None:
    command = [
        sys.executable,
        "-m",
        "bench.accounts",
        "--rounds",
        "3",
        "--warmup",
        "1",
        "--json",
        "--database-url",
        database_url_named(SMOKE_DATABASE),
    ]
    done = subprocess.run(
        command, cwd=BASE_DIR, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(found) == {"code", "wrong_code", "wrong_password", "flows_ms"}
    flows = found.pop("flows_ms")
    assert list(flows) == list(accounts.FLOW_STEPS)
    assert all(ms > 0 for ms in flows.values())
    for kind in found.values():
        assert kind["requests"] == 6
        assert kind["known_ms"] > 0
        assert kind["unknown_ms"] > 0
        assert kind["ratio"] == pytest.approx(kind["known_ms"] / kind["unknown_ms"], rel=0.01)
