"""A real server for the client's end-to-end games: the ASGI application under
uvicorn (`live`, which streams) and bots moved on a thread of the test process, as a
worker would move them, so that no broker is needed."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.games.live.conftest import live  # noqa: F401  (registers the fixture)

log = logging.getLogger(__name__)


@pytest.fixture(autouse=True)
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The client's saved players go to a directory of the test's own."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config" / "unoclient"


@pytest.fixture
def bots_in_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Bot turns sent to the broker run here instead; yields the errors they met."""
    from django.db import connection

    from games import dispatch, tasks

    jobs: queue.Queue[list[object]] = queue.Queue()
    errors: list[str] = []
    stop = threading.Event()

    def send(name: str, args: list[object], **_: object) -> None:
        if name == dispatch.BOT_TURN:
            jobs.put(args)

    def work() -> None:
        try:
            while not stop.is_set():
                try:
                    game_id, version = jobs.get(timeout=0.05)
                except queue.Empty:
                    continue
                for attempt in range(5):
                    try:
                        tasks.bot_turn(str(game_id), int(str(version)))
                        break
                    except Exception as error:  # a locked SQLite table: try again
                        errors.append(repr(error))
                        log.warning("bot turn failed (attempt %d)", attempt + 1, exc_info=True)
                        time.sleep(0.05)
        finally:
            connection.close()

    monkeypatch.setattr(dispatch, "send", send)
    worker = threading.Thread(target=work, name="bots", daemon=True)
    worker.start()
    yield errors
    stop.set()
    worker.join(timeout=10)
