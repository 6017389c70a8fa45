"""The load benchmark's floor view: mounted only with BENCH_FLOOR on, and doing the
database work it promises (a token lookup, then lock, update and insert one row)."""

from __future__ import annotations

import json
import os

from django.apps import apps
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.factories import Persona
from tests.support import run_python

PROBE = """
import json, django
django.setup()
from django.conf import settings
from django.urls import Resolver404, resolve
try:
    resolve("/bench/floor")
    routed = True
except Resolver404:
    routed = False
print(json.dumps({"installed": "bench" in settings.INSTALLED_APPS, "routed": routed}))
"""


def probe_settings(bench_floor: str | None) -> dict[str, bool]:
    env = {k: v for k, v in os.environ.items() if k != "BENCH_FLOOR"}
    if bench_floor is not None:
        env["BENCH_FLOOR"] = bench_floor
    done = run_python("-c", PROBE, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_the_floor_is_not_found_when_bench_floor_is_off(bench_floor_off: None, host: Persona):
    client = Client(HTTP_AUTHORIZATION=f"Bearer {host.token}")
    answer = client.post("/bench/floor", "{}", content_type="application/json")

    assert answer.status_code == 404
    assert not apps.is_installed("bench")


def test_by_default_the_bench_app_is_neither_installed_nor_routed():
    assert probe_settings(None) == {"installed": False, "routed": False}
    assert probe_settings("false") == {"installed": False, "routed": False}


def test_bench_floor_true_installs_and_routes_the_floor():
    assert probe_settings("true") == {"installed": True, "routed": True}


def test_the_floor_locks_updates_and_inserts_one_row_for_the_caller(bench_floor_on: None):
    from bench.models import BenchLog, BenchRow
    from tests.factories import make_persona

    host = make_persona("Host")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {host.token}")
    assert client.post("/bench/floor").json() == {"counter": 1}  # creates the caller's row

    with CaptureQueriesContext(connection) as queries:
        answer = client.post("/bench/floor")

    assert answer.status_code == 200
    assert answer.json() == {"counter": 2}
    row = BenchRow.objects.get(owner=host.player.pk)
    assert row.counter == 2
    assert list(BenchLog.objects.filter(row=row).values_list("seq", flat=True)) == [1, 2]
    statements = [q["sql"].split()[0].upper() for q in queries.captured_queries]
    work = [s for s in statements if s in ("SELECT", "UPDATE", "INSERT")]
    assert work == ["SELECT", "SELECT", "UPDATE", "INSERT"]  # token, lock, update, insert
    if connection.vendor == "postgresql":  # SQLite has no row locks (and needs none)
        locks = [q["sql"] for q in queries.captured_queries if "FOR UPDATE" in q["sql"]]
        assert len(locks) == 1
        assert "bench_benchrow" in locks[0]


def test_the_floor_authenticates_like_a_move(bench_floor_on: None):
    assert Client().post("/bench/floor").status_code == 401
    bad = Client(HTTP_AUTHORIZATION="Bearer not-a-token").post("/bench/floor")
    assert bad.status_code == 401
    assert bad.json()["error"]["code"] == "not_authenticated"


def test_the_floor_takes_only_posts(bench_floor_on: None):
    from tests.factories import make_persona

    host = make_persona("Host")
    answer = Client(HTTP_AUTHORIZATION=f"Bearer {host.token}").get("/bench/floor")
    assert answer.status_code == 405
