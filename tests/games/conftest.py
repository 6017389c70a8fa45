"""Games the admin's tests look at: one played to its end, one still running; the
production server, for the tests that attack it from outside (`tests.served`); and
that server with a worker and a local push service, for pushes end to end."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from games.models import Game
from tests.factories import Persona, play_out, start_game
from tests.push_service import PUSH_ENV, PushService
from tests.served import Served, served, served_process, serving, shared_cache_url  # noqa: F401
from tests.workers import CeleryProcesses, purge_broker


@pytest.fixture
def served_with_push(tmp_path: Path, push_service: PushService) -> Iterator[Served]:
    """The production server and a worker, both with the push service's VAPID keys
    (set in the environment by the `push_service` fixture) and one shared cache."""
    purge_broker()
    env = {**PUSH_ENV, "CACHE_URL": shared_cache_url()}
    for folder in ("api", "celery"):
        (tmp_path / folder).mkdir()
    with serving(tmp_path / "api", env) as server:
        workers = CeleryProcesses(tmp_path / "celery", think_seconds=0.0)
        workers.env.update(env)
        workers.start_worker()
        try:
            yield server
        finally:
            workers.stop()


@pytest.fixture
def finished(host: Persona) -> Game:
    """The host's game with two bots, played to its end."""
    return play_out(start_game(host, "greedy", "random", seed=31), {0: host})


@pytest.fixture
def running(guest: Persona) -> Game:
    """The guest's game against an expert bot, just started."""
    return start_game(guest, "expert", seed=32)
