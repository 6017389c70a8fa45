"""The API's docs pages in a real browser with the network cut off: Swagger UI and
ReDoc load every file from the service itself and list the operations."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.browser import chromium

REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def offline_page(live_server: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, list]]:
    """A page that may reach the service and nothing else; the refused requests (and
    the console's errors, in `page.errors`, which must stay empty: a script the
    page's policy blocked is reported there)."""
    own_host = urlsplit(live_server.url).netloc
    refused: list[str] = []

    def only_the_service(route: Any) -> None:
        url = route.request.url
        if urlsplit(url).netloc == own_host:
            route.continue_()
        else:
            refused.append(url)
            route.abort("internetdisconnected")

    with chromium(monkeypatch) as browser:
        context = browser.new_context()
        context.route("**/*", only_the_service)
        page = context.new_page()
        page.errors = []
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        yield page, refused


def test_swagger_ui_lists_the_operations_with_no_network(live_server, offline_page):
    page, refused = offline_page
    page.goto(live_server.url + "/api/v1/docs/")
    page.wait_for_selector(".opblock", timeout=20_000)
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert "/api/v1/games/{game_id}/moves" in [p.replace("\u200b", "") for p in paths]
    assert len(paths) >= 15
    assert refused == []
    assert page.errors == []


def test_redoc_lists_the_operations_with_no_network(live_server, offline_page):
    page, refused = offline_page
    page.goto(live_server.url + "/api/v1/redoc/")
    page.wait_for_selector("li[data-item-id]", timeout=20_000)
    items = page.locator("li[data-item-id]").evaluate_all(
        "items => items.map(item => item.getAttribute('data-item-id'))"
    )
    assert "tag/games/operation/games_moves_create" in items
    assert len(items) >= 15
    assert refused == []
    # The one thing the policy blocks: the logo ReDoc's sidebar always shows, from
    # its CDN (the page shows its alt text instead). No script is blocked.
    assert [error for error in page.errors if REDOC_LOGO not in error] == []
