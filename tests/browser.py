"""Debian's headless Chromium for the browser tests, driven by Playwright (never a
downloaded browser), where those tests save their screenshots, and the staff member
they log in to the admin as."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CHROMIUM
from tests.served import Served, serving
from tests.support import ROOT
from tests.workers import WITH_A_WORKER, CeleryProcesses, purge_broker

# Chromium's own background traffic would only be refused on a closed network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# The marks of a browser test against the served service (tests/served.py) with a real
# worker for the bots.
SERVED_WITH_A_WORKER = [pytest.mark.browser, *WITH_A_WORKER]


@contextmanager
def served_with_a_worker(
    folder: Path, env: Mapping[str, str], var_dir: Path | None = None
) -> Iterator[Served]:
    """The served service with `env` (and the static files collected in `var_dir`),
    and a worker and beat with `env` too whose bots play at once; all stopped on
    leaving."""
    purge_broker()
    worker = CeleryProcesses(folder, 0.0, env)
    served_env = {"BOT_THINK_SECONDS": "0", **env}
    if var_dir is not None:
        served_env["VAR_DIR"] = str(var_dir)
    try:
        worker.start_worker()
        worker.start_beat()
        with serving(folder, served_env) as served:
            yield served
    finally:
        worker.stop()


OPERATOR, OPERATOR_PASSWORD = "operator", "s3cret-pass"


def make_operator() -> None:
    """The staff member the browser tests log in as (a superuser). Make it before the
    browser starts: Playwright's sync API runs the test in a greenlet of its own, where
    the ORM would open a second database connection that outlives the test."""
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_superuser(OPERATOR, "op@example.com", OPERATOR_PASSWORD)


def log_in_to_the_admin(page: Any, server_url: str, then: str) -> None:
    """Log the operator in on the admin's login page of the server at `server_url`,
    which then opens the path `then`."""
    page.goto(f"{server_url}/admin/login/?next={then}")
    page.fill("#id_username", OPERATOR)
    page.fill("#id_password", OPERATOR_PASSWORD)
    page.click("input[type=submit]")


def artifacts_dir() -> Path:
    folder = Path(os.environ.get("TEST_ARTIFACTS_DIR") or ROOT / "artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@contextmanager
def chromium(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A headless browser, closed when the block ends."""
    # Playwright's sync API runs an event loop in this thread; the ORM calls a test
    # makes between browser steps are still plain synchronous ones.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


def wait_for_true(page: Any, expression: str, *, timeout_ms: float) -> None:
    """Wait until the JavaScript `expression` is true in `page`. Playwright's own
    wait_for_function evaluates its predicate with eval() inside the page, which a
    Content-Security-Policy without 'unsafe-eval' (the admin's) refuses; an evaluate
    from outside the page is not subject to it."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not page.evaluate(f"() => Boolean({expression})"):
        if time.monotonic() > deadline:
            raise TimeoutError(f"not true within {timeout_ms} ms: {expression}")
        page.wait_for_timeout(50)
