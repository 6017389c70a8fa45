"""The web client (/play/) in a real browser: a new player signs up in the page,
creates a one-round game against three bots and plays it to the end only by clicking
what a person would click, the page following the bots' moves live from the game's
stream, and resuming it after the server process holding it shut down; a friend
joins a private game by its invite link, the two play it out (he with the keyboard
alone), each page showing the other's moves as they come, and meet again in its
rematch; two players asking for a quick match sit at the same table.

The service is the server command as it ships (DEBUG off, its static files collected
as the Docker image collects them) with a worker whose bots play at once. Drives
Debian's headless Chromium with Playwright and saves screenshots of the table mid-game
at 1400x900 and 390x844 to ``artifacts/play-table-desk.png`` and
``artifacts/play-table-phone.png`` (or under ``$TEST_ARTIFACTS_DIR``), of a wild's
colour choice (when one comes up) to ``artifacts/play-wild.png``, of the game's end
to ``artifacts/play-end.png`` and of a private game's invite to
``artifacts/play-invite.png``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import SERVED_WITH_A_WORKER, artifacts_dir, chromium
from tests.served import ENV, Client, Served, serving
from tests.support import ROOT

pytestmark = SERVED_WITH_A_WORKER

DESK = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}
# Generous for a loaded CI machine: a round against bots that do not think takes
# seconds, most of them the page's own clicks.
GAME_OVER_WITHIN = 120.0
CLICK_MS = 3_000


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
def service(
    tmp_path: Path, var_dir: Path, celery_processes: Callable[[float], Any]
) -> Iterator[Served]:
    """The served service with its static files, and a worker whose bots play at once."""
    celery_processes(0.0)
    with serving(tmp_path, {"VAR_DIR": str(var_dir), "BOT_THINK_SECONDS": "0"}) as served:
        yield served


@pytest.fixture
def browser(service: Served, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    # Depends on the service: the browser, and its streams, close before it stops.
    with chromium(monkeypatch) as running:
        yield running


def new_page(browser: Any) -> Any:
    """A page of a browser profile of its own (its own localStorage: another person),
    whose console errors and uncaught exceptions are kept in `page.errors`."""
    opened = browser.new_context(viewport=DESK).new_page()
    opened.errors = []
    opened.on(
        "console",
        lambda message: opened.errors.append(message.text) if message.type == "error" else None,
    )
    opened.on("pageerror", lambda error: opened.errors.append(str(error)))
    opened.requests = []
    opened.on("request", lambda request: opened.requests.append(request.url))
    return opened


@pytest.fixture
def page(browser: Any) -> Any:
    return new_page(browser)


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
    log: [...document.querySelectorAll(".log li")].map((li) => li.textContent),
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


def press(page: Any, selector: str, *, keyboard: bool = False) -> bool:
    """Click what `selector` finds, or with `keyboard` move the focus to it and press
    Enter; False when the table changed under the pointer."""
    try:
        if keyboard:
            page.focus(selector, timeout=CLICK_MS)
            page.keyboard.press("Enter")
        else:
            page.click(selector, timeout=CLICK_MS)
    except Exception:  # Playwright's TimeoutError: the element went with a new view.
        return False
    return True


def fits(page: Any, viewport: dict[str, int]) -> None:
    page.set_viewport_size(viewport)
    page.wait_for_timeout(200)
    laid_out = page.evaluate(WIDER_THAN_THE_VIEWPORT)
    assert laid_out == {"scroll": False, "outside": []}, viewport


def play_one_click(person: Player, seen: dict[str, Any]) -> bool:
    """The next click a person would make on what is `seen`; False when there is none
    to make (a bot is to play)."""

    def on(selector: str) -> bool:
        return press(person.page, selector, keyboard=person.keyboard)

    if seen["dialog"]:
        return on("#choice-buttons button")
    for action in ("choose-color", "challenge"):
        if action in seen["actions"]:
            return on(f'.actions button[data-key="{action}"]')
    if seen["uno"] == "call":
        return on('.actions button[data-key="uno"]')
    if seen["playable"]:
        if seen["hand"] == 2 and seen["uno"] == "false":
            person.said_uno.append(seen["playable"][0])
            return on('.actions button[data-key="uno"]')
        card = seen["playable"][0]
        return on(f'.hand button.card.playable[data-card="{card}"]')
    for action in ("draw", "pass"):
        if action in seen["actions"]:
            return on(f'.actions button[data-key="{action}"]')
    return False


def sign_up(page: Any, name: str) -> None:
    page.fill("#name", name)
    page.click("text=Start playing")


def create(page: Any, *, bots: int, friends: int = 0) -> None:
    """A one-round game, from the lobby's form."""
    page.select_option("#bots", str(bots))
    page.select_option("#strength", "greedy")
    page.select_option("#friends", str(friends))
    page.fill("#target", "0")
    page.click("text=Create and start")
    page.wait_for_url("**/play/games/*", timeout=20_000)


class Player:
    """One person at the table, their page and what they saw and did; with `keyboard`
    they play with the keyboard alone."""

    def __init__(self, page: Any, *, keyboard: bool = False) -> None:
        self.page = page
        self.keyboard = keyboard
        self.clicks = 0
        self.said_uno: list[str] = []
        self.log: set[str] = set()


def play_to_the_end(
    players: list[Player], watch: Callable[[Player, dict[str, Any]], None] | None = None
) -> None:
    """Each person clicks what they would click until every page shows the game's end;
    `watch` sees what each page shows before each click."""
    deadline = time.monotonic() + GAME_OVER_WITHIN
    while True:
        over = 0
        for person in players:
            seen = person.page.evaluate(SEEN)
            person.log.update(seen["log"])
            if seen["over"]:
                over += 1
                continue
            if watch:
                watch(person, seen)
            if not seen["busy"] and play_one_click(person, seen):
                person.clicks += 1
        if over == len(players):
            return
        assert time.monotonic() < deadline, "the game is not over"
        players[0].page.wait_for_timeout(50)


def the_round_went_by_clicks(player: Client, game_id: str, seat: int, person: Player) -> None:
    """The game is over, the page names its winner, and the seat moved by clicks."""
    game = player.get(f"/games/{game_id}").body
    assert game["status"] == "finished"
    winner = game["seats"][game["winner"]]
    bot_name = f"Bot {game['winner'] + 1} ({winner['bot']})"
    winner_name = winner["player"]["name"] if winner["player"] else bot_name
    assert winner_name in person.page.inner_text(".results .winner")
    # Every turn of the seat's went by a click: it played or drew at least once.
    events = player.get(f"/games/{game_id}/events").body["events"]
    moves = ("card_played", "cards_drawn")
    its_moves = [e for e in events if e["seat"] == seat and e["type"] in moves]
    assert its_moves
    # It won only by saying UNO with its second-to-last card, as the page lets one.
    if game["winner"] == seat:
        assert person.said_uno
        assert any(e["type"] == "card_played" and e["data"].get("uno") for e in its_moves)


def resumed_streams(page: Any) -> list[str]:
    return [url for url in page.requests if "/stream?ticket=" in url and "&after=" in url]


def token_of(page: Any) -> str:
    return str(page.evaluate("() => JSON.parse(localStorage.getItem('uno.player')).token"))


def test_a_new_player_plays_a_round_against_three_bots_by_clicking(service: Served, page: Any):
    page.goto(f"{service.url}/play/")
    sign_up(page, "Ann")
    create(page, bots=3)
    page.wait_for_selector(".hand .card", timeout=20_000)
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    ann = Player(page)
    screenshots: list[str] = []

    def mid_game(person: Player, seen: dict[str, Any]) -> None:
        if seen["dialog"] and "wild" not in screenshots:
            fits(page, page.viewport_size)
            page.screenshot(path=str(artifacts_dir() / "play-wild.png"))
            screenshots.append("wild")
        if person.clicks >= 1 and "table" not in screenshots and not seen["dialog"]:
            fits(page, DESK)
            page.screenshot(path=str(artifacts_dir() / "play-table-desk.png"))
            fits(page, PHONE)
            page.screenshot(path=str(artifacts_dir() / "play-table-phone.png"))
            screenshots.append("table")  # and play on at the phone's size
            # The server process holding the stream shuts down: the page takes a new
            # ticket and resumes its stream, from another process, after the last
            # event it saw.
            (worker,) = service.worker_pids()
            os.kill(worker, signal.SIGTERM)
            deadline = time.monotonic() + 30
            while not resumed_streams(page):
                assert time.monotonic() < deadline, page.requests
                page.wait_for_timeout(100)

    play_to_the_end([ann], mid_game)
    assert "table" in screenshots
    assert resumed_streams(page)
    the_round_went_by_clicks(service.client(token_of(page)), game_id, 0, ann)
    fits(page, PHONE)
    page.screenshot(path=str(artifacts_dir() / "play-end.png"), full_page=True)

    # Back in the lobby, the game over is no longer among hers to go back to.
    page.click("text=Back to the lobby")
    page.wait_for_selector("#your-games-title")
    assert page.inner_text(".games-empty") == "You are in no game yet."
    assert page.errors == []


def test_a_friend_joins_a_private_game_by_its_link_and_both_play_it_and_its_rematch(
    service: Served, browser: Any
):
    host, guest = new_page(browser), new_page(browser)
    host.goto(f"{service.url}/play/")
    sign_up(host, "Ann")
    create(host, bots=1, friends=1)
    link = host.input_value("#invite-link", timeout=20_000)
    assert link.startswith(f"{service.url}/play/join/")
    fits(host, PHONE)
    host.screenshot(path=str(artifacts_dir() / "play-invite.png"))
    fits(host, DESK)

    # The friend opens the link, signs up and lands at the table; the host sees them
    # sit down without reloading.
    guest.goto(link)
    sign_up(guest, "Bob")
    guest.wait_for_url("**/play/games/*", timeout=20_000)
    host.wait_for_selector('.seat-name:text-is("Bob")', timeout=20_000)
    assert guest.url == host.url
    assert "Waiting for Ann to start the game." in guest.inner_text(".waiting")
    host.click('button[data-key="start"]')

    # Bob plays with the keyboard alone.
    ann, bob = Player(host), Player(guest, keyboard=True)
    play_to_the_end([ann, bob])
    game_id = host.url.rstrip("/").rsplit("/", 1)[1]
    the_round_went_by_clicks(service.client(token_of(host)), game_id, 0, ann)
    the_round_went_by_clicks(service.client(token_of(guest)), game_id, 2, bob)
    # Each page showed the other's moves as they came, from the game's stream.
    assert any(line.startswith("Bob ") for line in ann.log), ann.log
    assert any(line.startswith("Ann ") for line in bob.log), bob.log

    # Ann asks for a rematch; Bob's page hears of it, and he joins her there.
    host.click('button[data-key="rematch"]')
    host.wait_for_url(lambda url: game_id not in url, timeout=20_000)
    guest.wait_for_selector("text=Ann asks for a rematch.", timeout=40_000)
    guest.click('button[data-key="rematch"]')
    guest.wait_for_url(host.url, timeout=20_000)
    host.wait_for_selector('.seat-name:text-is("Bob")', timeout=20_000)
    assert host.errors == []
    assert guest.errors == []


def test_two_players_asking_for_a_quick_match_sit_at_the_same_table(service: Served, browser: Any):
    first, second = new_page(browser), new_page(browser)
    for page, name in ((first, "Ann"), (second, "Bob")):
        page.goto(f"{service.url}/play/")
        sign_up(page, name)
        page.select_option("#qm-players", "2")
        page.select_option("#qm-target", "0")
        page.click("text=Find a game")
        page.wait_for_url("**/play/games/*", timeout=20_000)
    assert first.url == second.url
    # The second to ask filled the game, which started by itself.
    for page in (first, second):
        page.wait_for_selector(".hand .card", timeout=20_000)
        assert page.inner_text(".seats").count("7 cards") >= 1
    assert first.errors == []
    assert second.errors == []
