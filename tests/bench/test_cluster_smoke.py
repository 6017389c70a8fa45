"""The cluster benchmark, briefly: every set-up started (one node, then nodes behind
Debian's HAProxy and PgBouncer), a few seconds of the mixed load on each, and the
figures it reports."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bench import cluster, haproxy
from bench.pgbouncer import pgbouncer_binary
from bench.serve import BASE_DIR
from tests.support import database_url_named

SMOKE_DATABASE = "uno_bench_cluster_smoke"


@pytest.fixture
def balancer_and_pooler() -> None:
    if haproxy.haproxy() is None or pgbouncer_binary() is None:
        reason = "needs Debian's haproxy and pgbouncer"
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI is set, so a missing service fails the test)")
        pytest.skip(reason)


@pytest.mark.postgres
@pytest.mark.slow
def test_the_cluster_benchmark_serves_the_load_on_every_set_up(balancer_and_pooler):
    command = [
        sys.executable,
        "-m",
        "bench.cluster",
        "--spawn",
        "--players",
        "2",
        "--readers",
        "1",
        "--seconds",
        "2",
        "--workers",
        "1",
        "--threads",
        "2",
        "--json",
        "--database-url",
        database_url_named(SMOKE_DATABASE),
    ]
    done = subprocess.run(command, cwd=BASE_DIR, capture_output=True, text=True, timeout=240)

    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
    result = json.loads(done.stdout)
    assert list(result["setups"]) == list(cluster.SETUPS)
    for setup in result["setups"].values():
        assert setup["errors"] == {}, setup["label"]
        assert setup["moves"] > 0
        assert setup["requests"] >= setup["moves"]
        assert 0 < setup["p50_ms"] <= setup["p99_ms"]
        # Both players of each client had a stream open that heard their turns.
        assert setup["streams"] == 4
        assert setup["your_turn_events"] > 0
        assert setup["pg_connections_peak"] > 0
        assert setup["cpu_ms_per_request"] > 0
    pooled = [s for s in result["setups"].values() if s["pooler"]]
    assert all(s["pooler_clients_peak"] > 0 for s in pooled)
    for key in ("balancer_and_pooler", "three_nodes"):
        assert set(result[key]) == set(cluster.RATIO_KEYS)
        assert all(value > 0 for value in result[key].values()), result[key]
    connections = result["pg_connections"]
    assert connections["three_over_one_pooled"] > 0
    assert connections["three_over_one_direct"] > 0
