"""Fixtures of the benchmark tests: the floor view switched on or off for one test,
and rate limits lifted as the benchmark server lifts them."""

from __future__ import annotations

import importlib
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.db import connection
from django.test import override_settings
from django.urls import clear_url_caches
from rest_framework.throttling import SimpleRateThrottle


def reload_urls() -> None:
    """unoservice.urls reads BENCH_FLOOR when imported: import it again."""
    import unoservice.urls

    importlib.reload(unoservice.urls)
    clear_url_caches()


@pytest.fixture
def bench_floor_off() -> Iterator[None]:
    with override_settings(BENCH_FLOOR=False):
        reload_urls()
        yield
    reload_urls()


@pytest.fixture
def bench_floor_on(transactional_db: None) -> Iterator[None]:
    """BENCH_FLOOR on: the `bench` app installed with its tables, /bench/floor routed.

    The test database is created without the app (BENCH_FLOOR is off by default), so
    its tables are made here and dropped again before the database is flushed.
    """
    installed = [*settings.INSTALLED_APPS, "bench"]
    with override_settings(BENCH_FLOOR=True, INSTALLED_APPS=installed):
        from bench.models import BenchLog, BenchRow

        with connection.schema_editor() as editor:
            editor.create_model(BenchRow)
            editor.create_model(BenchLog)
        reload_urls()
        try:
            yield
        finally:
            with connection.schema_editor() as editor:
                editor.delete_model(BenchLog)
                editor.delete_model(BenchRow)
    reload_urls()


@pytest.fixture
def no_rate_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """DRF binds the rates when it is imported, so they are patched on the class."""
    unlimited = {"player": "1000000/min", "anonymous": "1000000/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", unlimited)
