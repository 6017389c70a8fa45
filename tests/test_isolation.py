"""tests/isolation.py: each test run, and each xdist worker, on its own resources."""

from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings

from tests.isolation import RUN_DIR, redis_database_moved, xdist_worker_number


def test_the_run_keeps_its_runtime_files_in_a_folder_of_its_own():
    assert Path(settings.VAR_DIR) == Path(RUN_DIR).resolve()
    assert not Path(settings.VAR_DIR).is_relative_to(Path(settings.BASE_DIR))


def test_a_worker_moves_a_redis_url_by_its_number():
    assert redis_database_moved("redis://127.0.0.1:6379/0", 1) == "redis://127.0.0.1:6379/1"
    assert redis_database_moved("redis://:pw@cache:6380/3", 2) == "redis://:pw@cache:6380/5"
    assert redis_database_moved("redis://cache", 1) == "redis://cache/1"


def test_the_first_worker_and_other_urls_are_left_as_they_are():
    assert redis_database_moved("redis://127.0.0.1:6379/4", 0) == "redis://127.0.0.1:6379/4"
    assert redis_database_moved("filesystem://localhost//", 3) == "filesystem://localhost//"


def test_the_worker_number_comes_from_xdist(monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw3")
    assert xdist_worker_number() == 3
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert xdist_worker_number() == 0
    assert "VAR_DIR" in os.environ
