"""The admin follows a running game live, in a real browser: a staff member logs in,
opens a running game's page, a player moves through the API, and the page shows the
new events and version by itself, without reloading; when the game is abandoned the
page says so and stops listening.

Served by the real ASGI server (the stream is served only there), opened with the
staff member's admin session. Drives Debian's headless Chromium with Playwright and
saves a screenshot to ``artifacts/admin-live.png`` (or under ``$TEST_ARTIFACTS_DIR``).
"""

from __future__ import annotations

import json
import math
import threading
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
from django.db import connections
from django.urls import reverse

from games import services
from games.admin import LOG_PAGE_SIZE
from games.models import Game
from tests.browser import (
    artifacts_dir,
    chromium,
    log_in_to_the_admin,
    make_operator,
    wait_for_true,
)
from tests.factories import Persona, human_to_act_game, play_out, start_game
from tests.games.live import conftest as live_conftest
from tests.games.live.conftest import LiveServer

# The real ASGI server, from the stream tests' conftest (not an ancestor of this file).
live = live_conftest.live

T = TypeVar("T")
# Generous for a loaded CI machine; the hub hears a change within a fraction of this.
SHOWN_WITHIN_MS = 10_000


@pytest.fixture
def page(live: LiveServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    # Depends on `live` so that the browser closes, and its stream with it, before the
    # server stops.
    with chromium(monkeypatch) as browser:
        yield browser.new_page(viewport={"width": 1366, "height": 1200})


@pytest.fixture
def running(host: Persona, guest: Persona) -> Game:
    """The operator and a two-human game where the host is to act, made before the
    browser starts (see `off_the_browser`)."""
    make_operator()
    return human_to_act_game(host, guest, turn_timeout=600)


def off_the_browser(work: Callable[[], T]) -> T:
    """Run `work` on a thread of its own and close its database connections there:
    while Playwright's loop runs in the test's thread, the ORM would open a connection
    that outlives the test."""
    result: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(work())
        except BaseException as error:
            failure.append(error)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=30)
    if failure:
        raise failure[0]
    return result[0]


def api(live: LiveServer, persona: Persona, path: str, body: Any = None) -> dict[str, Any]:
    """A request to the real server, as a player's client sends it."""
    request = urllib.request.Request(
        f"{live.url}/api/v1{path}",
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {persona.token}", "Content-Type": "application/json"},
        method="GET" if body is None else "POST",
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        parsed: dict[str, Any] = json.loads(answer.read())
        return parsed


def shown(page: Any) -> dict[str, Any]:
    return page.evaluate(
        """() => {
            const rows = document.querySelectorAll("#event-log tbody tr");
            return {
                lastSeq: Number(document.getElementById("game-live").dataset.lastSeq),
                lastRow: rows.length ? Number(rows[rows.length - 1].dataset.seq) : null,
                version: document.querySelector(".field-version .readonly").textContent.trim(),
                status: document.querySelector(".field-status_shown .readonly").textContent.trim(),
                heading: document.querySelector("#event-log h2").textContent,
                badge: document.getElementById("game-live-status").dataset.state,
                sameDocument: window.sameDocument === true,
                navigations: performance.getEntriesByType("navigation").length,
            };
        }"""
    )


@pytest.mark.django_db
def test_only_a_game_still_changing_is_followed_and_its_log_can_open_on_the_newest_page(
    admin_client, host: Persona, guest: Persona
):
    finished = play_out(start_game(host, "greedy", "random", seed=31), {0: host})
    running = human_to_act_game(host, guest)
    page = admin_client.get(reverse("admin:games_game_change", args=[running.pk])).content
    assert f'"/api/v1/games/{running.pk}/stream"'.encode() in page
    assert b"games/admin/live.js" in page
    url = reverse("admin:games_game_change", args=[finished.pk])
    done = admin_client.get(url).content.decode()
    assert "games/admin/live.js" not in done
    pages = math.ceil(finished.last_seq / LOG_PAGE_SIZE)
    assert pages > 1
    newest = admin_client.get(url, {"log_page": "last"}).content.decode()
    assert f"page {pages} of {pages}" in newest
    assert f'data-seq="{finished.last_seq}"' in newest


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_running_games_admin_page_follows_its_moves_live(
    live: LiveServer, running: Game, host: Persona, page: Any
):
    game_id = str(running.pk)
    change_path = f"/admin/games/game/{game_id}/change/"

    log_in_to_the_admin(page, live.url, then=change_path)
    page.wait_for_selector("#game-live")
    # Live once the stream's first view has come through the staff session.
    wait_for_true(
        page,
        "document.getElementById('game-live-status').dataset.state === 'live'",
        timeout_ms=SHOWN_WITHIN_MS,
    )
    before = shown(page)
    assert before["lastSeq"] == running.last_seq
    assert before["lastRow"] == running.last_seq
    assert before["version"] == str(running.version)
    assert before["status"] == "Playing"
    # Gone if anything reloads the document.
    page.evaluate("window.sameDocument = true")

    def draw() -> dict[str, Any]:
        view = api(live, host, f"/games/{game_id}")
        legal = view["you"]["legal_moves"]
        move = next((m for m in legal if m["action"] == "draw"), legal[0])
        return api(live, host, f"/games/{game_id}/moves", {**move, "version": view["version"]})

    moved = off_the_browser(draw)["game"]
    new_seq = moved["last_seq"]
    assert new_seq > running.last_seq
    wait_for_true(
        page,
        f"Number(document.getElementById('game-live').dataset.lastSeq) >= {new_seq}",
        timeout_ms=SHOWN_WITHIN_MS,
    )
    after = shown(page)
    assert after["lastRow"] == new_seq
    assert after["version"] == str(moved["version"])
    assert after["heading"] == f"Event log ({new_seq} events)"
    assert after["badge"] == "live"
    assert after["sameDocument"]
    assert after["navigations"] == 1
    log_text = page.inner_text("#event-log tbody")
    assert "cards_drawn" in log_text

    screenshot = artifacts_dir() / "admin-live.png"
    page.screenshot(path=str(screenshot), full_page=True)
    assert screenshot.stat().st_size > 10_000

    # The end: the page shows the final state and stops listening.
    off_the_browser(lambda: services.game_abandon(game_id=game_id, reason="test over"))
    wait_for_true(
        page,
        "document.getElementById('game-live-status').dataset.state === 'over'",
        timeout_ms=SHOWN_WITHIN_MS,
    )
    final = shown(page)
    assert final["status"] == "Abandoned"
    assert "game_abandoned" in page.inner_text("#event-log tbody")
    assert page.inner_text("#game-live-status") == "■ game over"
    assert final["sameDocument"]
    assert final["navigations"] == 1
    assert page.inner_text("#content > h2").endswith("(abandoned)")
    # Closed, not left to reconnect after `retry` (2 s) to an ended game: the browser
    # records a stream once its response has ended, so a reconnection would add one.
    page.wait_for_timeout(3000)
    streams = page.evaluate(
        """() => performance.getEntriesByType("resource")
            .filter((entry) => entry.name.endsWith("/stream")).length"""
    )
    assert streams == 1
