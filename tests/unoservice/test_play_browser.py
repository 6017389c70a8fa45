"""The web client (/play/) in a real browser: a new player signs up in the page,
creates a one-round game against three bots and plays it to the end only by clicking
what a person would click, the page following the bots' moves live from the game's
stream.

The service is the server command as it ships (DEBUG off, its static files collected
as the Docker image collects them) with a worker whose bots play at once. Drives
Debian's headless Chromium with Playwright and saves screenshots of the table mid-game
at 1400x900 and 390x844 to ``artifacts/play-table-desk.png`` and
``artifacts/play-table-phone.png`` (or under ``$TEST_ARTIFACTS_DIR``), and of the
game's end to ``artifacts/play-end.png``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import SERVED_WITH_A_WORKER, artifacts_dir, chromium
from tests.served import ENV, Served, serving
from tests.support import ROOT

pytestmark = SERVED_WITH_A_WORKER

DESK = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}
# Generous for a loaded CI machine: a round against bots that do not think takes
# seconds, most of them the page's own clicks.
GAME_OVER_WITHIN = 120.0
CLICK_MS = 3_000


@pytest.fixture
def service(tmp_path: Path, celery_processes: Callable[[float], Any]) -> Iterator[Served]:
    """The served service, its static files collected into a folder of its own, with
    a worker whose bots play at once."""
    celery_processes(0.0)
    env = {"VAR_DIR": str(tmp_path / "var"), "BOT_THINK_SECONDS": "0"}
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=ROOT,
        env={**os.environ, **ENV, **env},
        check=True,
    )
    with serving(tmp_path, env) as served:
        yield served


@pytest.fixture
def page(service: Served, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    # Depends on the service: the browser, and its stream, close before it stops.
    with chromium(monkeypatch) as browser:
        opened = browser.new_page(viewport=DESK)
        opened.errors = []
        opened.on(
            "console",
            lambda message: opened.errors.append(message.text) if message.type == "error" else None,
        )
        opened.on("pageerror", lambda error: opened.errors.append(str(error)))
        yield opened


# What a person sees of the table, read from the page as it is shown.
SEEN = """() => {
  const enabled = (key) => {
    const b = document.querySelector(`.actions button[data-key="${key}"]`);
    return b && !b.disabled ? b : null;
  };
  const uno = enabled("uno");
  return {
    over: Boolean(document.querySelector(".results.over")),
    busy: document.querySelector(".table")?.getAttribute("aria-busy") === "true",
    dialog: document.getElementById("choice").open,
    playable: [...document.querySelectorAll(".hand button.card.playable")]
      .map((b) => b.dataset.card),
    hand: document.querySelectorAll(".hand .card").length,
    actions: ["draw", "pass", "choose-color", "accept", "challenge"].filter(enabled),
    uno: uno ? uno.getAttribute("aria-pressed") ?? "call" : null,
  };
}"""

WIDER_THAN_THE_VIEWPORT = """() => {
  const width = document.documentElement.clientWidth;
  const outside = [...document.querySelectorAll("body *")].filter((element) => {
    const box = element.getBoundingClientRect();
    return box.width > 0 && (box.left < -1 || box.right > width + 1);
  }).map((element) => element.className || element.tagName);
  return {scroll: document.documentElement.scrollWidth > width, outside};
}"""


def click(page: Any, selector: str) -> bool:
    """Click what `selector` finds; False when the table changed under the pointer."""
    try:
        page.click(selector, timeout=CLICK_MS)
    except Exception:  # Playwright's TimeoutError: the element went with a new view.
        return False
    return True


def fits(page: Any, viewport: dict[str, int]) -> None:
    page.set_viewport_size(viewport)
    page.wait_for_timeout(200)
    laid_out = page.evaluate(WIDER_THAN_THE_VIEWPORT)
    assert laid_out == {"scroll": False, "outside": []}, viewport


def play_one_click(page: Any, seen: dict[str, Any], said_uno: list[str]) -> bool:
    """The next click a person would make on what is `seen`; False when there is none
    to make (a bot is to play)."""
    if seen["dialog"]:
        return click(page, "#choice-buttons button")
    for action in ("choose-color", "accept"):
        if action in seen["actions"]:
            return click(page, f'.actions button[data-key="{action}"]')
    if seen["uno"] == "call":
        return click(page, '.actions button[data-key="uno"]')
    if seen["playable"]:
        if seen["hand"] == 2 and seen["uno"] == "false":
            said_uno.append(seen["playable"][0])
            return click(page, '.actions button[data-key="uno"]')
        card = seen["playable"][0]
        return click(page, f'.hand button.card.playable[data-card="{card}"]')
    for action in ("draw", "pass"):
        if action in seen["actions"]:
            return click(page, f'.actions button[data-key="{action}"]')
    return False


def test_a_new_player_plays_a_round_against_three_bots_by_clicking(service: Served, page: Any):
    page.goto(f"{service.url}/play/")
    page.fill("#name", "Ann")
    page.click("text=Start playing")
    page.select_option("#bots", "3")
    page.select_option("#strength", "greedy")
    page.fill("#target", "0")
    page.click("text=Create and start")
    page.wait_for_url("**/play/games/*", timeout=20_000)
    page.wait_for_selector(".hand .card", timeout=20_000)
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    token = page.evaluate("() => JSON.parse(localStorage.getItem('uno.player')).token")
    ann = service.client(token)

    clicks, said_uno, screenshots = 0, [], False
    deadline = time.monotonic() + GAME_OVER_WITHIN
    while True:
        seen = page.evaluate(SEEN)
        if seen["over"]:
            break
        assert time.monotonic() < deadline, f"the game is not over: {seen}"
        if not seen["busy"] and play_one_click(page, seen, said_uno):
            clicks += 1
        else:
            page.wait_for_timeout(50)
        if clicks >= 3 and not screenshots and not seen["dialog"]:
            fits(page, DESK)
            page.screenshot(path=str(artifacts_dir() / "play-table-desk.png"))
            fits(page, PHONE)
            page.screenshot(path=str(artifacts_dir() / "play-table-phone.png"))
            screenshots = True  # and play on at the phone's size

    game = ann.get(f"/games/{game_id}").body
    assert game["status"] == "finished"
    assert screenshots
    winner = game["seats"][game["winner"]]
    bot_name = f"Bot {game['winner'] + 1} ({winner['bot']})"
    winner_name = winner["player"]["name"] if winner["player"] else bot_name
    assert winner_name in page.inner_text(".results .winner")
    # Every turn of Ann's went by a click: she played or drew at least once.
    events = ann.get(f"/games/{game_id}/events").body["events"]
    moves = ("card_played", "cards_drawn")
    her_moves = [e for e in events if e["seat"] == 0 and e["type"] in moves]
    assert her_moves
    # She won only by saying UNO with her second-to-last card, as the page lets her.
    if game["winner"] == 0:
        assert said_uno
        assert any(e["type"] == "card_played" and e["data"].get("uno") for e in her_moves)
    fits(page, PHONE)
    page.screenshot(path=str(artifacts_dir() / "play-end.png"), full_page=True)

    # Back in the lobby, the game over is no longer among hers to go back to.
    page.click("text=Back to the lobby")
    page.wait_for_selector("#your-games-title")
    assert page.inner_text(".games-empty") == "You are in no game yet."
    assert page.errors == []
