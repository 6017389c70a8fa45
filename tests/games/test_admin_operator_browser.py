"""The operator's round of the admin in a real browser: from the home page to the
overview (health panel, three charts), the game list at 1400 px without a
horizontal scroll, a game's page with seats and rules in words, and abandoning a
game through its confirmation page.

Drives Debian's headless Chromium with Playwright and saves a screenshot of each
page under ``$SCREENSHOT_DIR`` (or the test's own temporary folder).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from games import overview
from games.admin import seat_name
from games.models import Event, Game
from tests.browser import OPERATOR, chromium, log_in_to_the_admin, make_operator
from tests.factories import play_out, seat_table, start_game
from unoservice import health

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def page(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    with chromium(monkeypatch) as browser:
        yield browser.new_page(viewport={"width": 1400, "height": 900})


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def tables(host: Any, guest: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, Game]:
    """The operator, a finished game, a running one under house rules, and a waiting
    one, made before the browser starts (see `make_operator`); a worker that answers
    the health check's ping."""
    monkeypatch.setattr(health.celery_app.control, "ping", lambda **_: [{"w": {"ok": "pong"}}])
    make_operator()
    return {
        "finished": play_out(start_game(host, "greedy", "random", seed=33), {0: host}),
        "running": start_game(
            guest, "expert", "greedy", seed=34, rules={"stacking": True, "jump_in": True}
        ),
        "waiting": seat_table(host, "random", max_players=4),
    }


def snap(page: Any, folder: Path, name: str) -> Path:
    path = folder / f"admin-{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 0
    assert path.read_bytes()[:8] == PNG_SIGNATURE
    return path


def test_an_operator_goes_round_the_admin_in_the_browser(live_server, tables, page, shots):
    running = tables["running"]
    log_in_to_the_admin(page, live_server.url, then="/admin/")
    page.wait_for_selector("#operations")
    assert "UNO service administration" in page.inner_text("#site-name")
    assert page.get_attribute("#user-tools a[href='/api/v1/docs/']", "href") == "/api/v1/docs/"
    snap(page, shots, "home")

    page.click("#overview-link")
    page.wait_for_selector("#health")
    checks = page.eval_on_selector_all(
        "#health tr", "rows => rows.map(r => [r.dataset.check, r.dataset.state])"
    )
    assert [name for name, _ in checks] == ["database", "broker", "worker", "beat", "open streams"]
    assert dict(checks)["database"] == "ok"
    bars = {
        css_id: page.locator(f"#{css_id} svg rect.bar").count()
        for css_id in ("games-per-day", "moves-per-hour", "win-rates")
    }
    assert bars == {
        "games-per-day": overview.DAYS,
        "moves-per-hour": overview.HOURS,
        "win-rates": 2,
    }
    snap(page, shots, "overview")

    page.goto(f"{live_server.url}/admin/games/game/")
    page.wait_for_selector("#result_list")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    # The list's own box scrolls sideways rather than the page: it must not either.
    assert page.evaluate(
        "(() => { const box = document.querySelector('#changelist .results');"
        " return box.scrollWidth <= box.clientWidth; })()"
    )
    headers = page.eval_on_selector_all(
        "#result_list thead th", "ths => ths.map(t => t.textContent.trim().toLowerCase())"
    )
    for column in ("winner", "duration", "idle for"):
        assert column in headers
    finished = tables["finished"]
    winner = seat_name(finished.seating[finished.winner])
    row = page.locator("#result_list tr", has_text=str(finished.pk)[:8])
    assert row.locator("td.field-winner_name").inner_text() == winner
    snap(page, shots, "games")

    page.goto(f"{live_server.url}/admin/games/game/{running.pk}/change/")
    page.wait_for_selector("#event-log")
    text = page.inner_text("#content")
    assert "bot (expert)" in text
    assert "Stacking of Draw Twos and Wild Draw Fours, Jump-in" in text
    assert "{'" not in text
    snap(page, shots, "game")

    page.goto(f"{live_server.url}/admin/games/game/")
    page.check(f"input[name=_selected_action][value='{running.pk}']")
    page.select_option("select[name=action]", "abandon_games")
    page.click("button[name=index]")
    page.wait_for_selector("#abandon-form")
    snap(page, shots, "abandon")
    page.fill("input[name=reason]", "table left running in a test")
    page.click("#abandon-apply")
    page.wait_for_selector("ul.messagelist")
    assert "1 game abandoned." in page.inner_text("ul.messagelist")
    snap(page, shots, "abandoned")

    last = Event.objects.filter(game_id=running.pk).order_by("-seq").first()
    assert last is not None
    assert last.type == "game_abandoned"
    assert last.data == {"reason": "table left running in a test", "by": OPERATOR}
