"""Debian's headless Chromium for the browser tests, driven by Playwright (never a
downloaded browser), and where those tests save their screenshots."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CHROMIUM

ROOT = Path(__file__).resolve().parents[1]
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
