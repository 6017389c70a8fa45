"""The fixtures of the web client's browser tests: the served service with its static
files collected and a worker whose bots play at once, and the browser.

A test module may define a fixture `play_env` (a dict of environment variables) to
serve the service and its worker with more settings: client seeds, VAPID keys."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import chromium
from tests.served import ENV, Served, serving
from tests.support import ROOT
from tests.web.pages import new_page


@pytest.fixture(scope="module")
def var_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A VAR_DIR whose static files are collected, as the Docker image collects them."""
    folder = tmp_path_factory.mktemp("var")
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=ROOT,
        env={**os.environ, **ENV, "VAR_DIR": str(folder)},
        check=True,
    )
    return folder


@pytest.fixture
def play_env() -> dict[str, str]:
    """More settings for the served service and its worker; a module overrides it."""
    return {}


@pytest.fixture
def service(
    tmp_path: Path,
    var_dir: Path,
    play_env: dict[str, str],
    celery_processes: Callable[..., Any],
) -> Iterator[Served]:
    """The served service with its static files, and a worker whose bots play at once."""
    celery_processes(0.0, env=play_env)
    env = {"VAR_DIR": str(var_dir), "BOT_THINK_SECONDS": "0", **play_env}
    with serving(tmp_path, env) as served:
        yield served


@pytest.fixture
def browser(service: Served, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    # Depends on the service: the browser, and its streams, close before it stops.
    with chromium(monkeypatch) as running:
        yield running


@pytest.fixture
def page(browser: Any) -> Any:
    return new_page(browser)
