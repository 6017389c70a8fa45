"""The fixtures of the web client's browser tests: the served service with its static
files collected and a worker whose bots play at once, and the browser.

The service is started once per test module (its tests commit: `service` takes
`transactional_db`, so each test starts on an empty database). A test module may
define a module-scoped fixture `play_env` (a dict of environment variables) to serve
the service and its worker with more settings: client seeds; one whose settings come
from a test's own fixtures (a mail server, push keys) overrides `service` with
`served_with_a_worker` instead."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import chromium, served_with_a_worker
from tests.served import ENV, Served
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


@pytest.fixture(scope="module")
def play_env() -> dict[str, str]:
    """More settings for the served service and its worker; a module overrides it."""
    return {}


@pytest.fixture(scope="module")
def service_process(
    tmp_path_factory: pytest.TempPathFactory,
    django_db_setup: None,
    var_dir: Path,
    play_env: dict[str, str],
) -> Iterator[Served]:
    with served_with_a_worker(tmp_path_factory.mktemp("service"), play_env, var_dir) as served:
        yield served


@pytest.fixture
def service(service_process: Served, transactional_db: None) -> Served:
    """The served service, on a database emptied after each test."""
    return service_process


@pytest.fixture
def browser(service: Served, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    # Depends on the service: the browser, and its streams, close before it stops.
    with chromium(monkeypatch) as running:
        yield running


@pytest.fixture
def page(browser: Any) -> Any:
    return new_page(browser)
