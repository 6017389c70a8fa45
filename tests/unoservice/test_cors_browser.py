"""A web page on another origin plays a game through the served service, in a real
browser (docs/api.md, "Web clients"): a page of an origin let in follows its game
from the ticket to `end` with the browser example of docs/api.md (fetch and
EventSource) and sends its moves with fetch; a page of an origin not let in is
refused by the browser.

The service is the server command (tests/served.py) with a worker for the bots; each
page is a static file served by a small HTTP server of its own, on a port of its
own: another origin. Drives Debian's headless Chromium with Playwright and saves a
screenshot to ``artifacts/cors-page.png`` (or under ``$TEST_ARTIFACTS_DIR``).
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.browser import (
    SERVED_WITH_A_WORKER,
    artifacts_dir,
    chromium,
    served_with_a_worker,
    wait_for_true,
)
from tests.served import Client, Served
from tests.support import ROOT

pytestmark = SERVED_WITH_A_WORKER

# Generous for a loaded CI machine: a one-round game against a bot that does not
# think takes a few seconds.
GAME_OVER_WITHIN_MS = 180_000


def browser_example() -> str:
    """The JavaScript of docs/api.md's browser example (walk-through, step 7), as
    published: the page runs exactly what the docs show."""
    text = (ROOT / "docs" / "api.md").read_text()
    step = text.index("**7. In a browser**")
    start = text.index("```js\n", step) + len("```js\n")
    return text[start : text.index("```", start)]


# The page around the example: what a game's page does with what comes (`on`), and
# its moves, sent back from `legal_moves` with fetch.
PAGE_SCRIPT = """
const query = new URLSearchParams(location.search);
const api = query.get("api"), gameId = query.get("game"), token = query.get("token");
const seen = window.seen = {views: 0, events: 0, moves: 0, refusedMoves: [],
                            lastView: null, end: null, stopped: null};
let latest = null, sending = false;

async function play() {
  const view = latest;
  const legal = (view && view.status === "playing" && view.you) ? view.you.legal_moves : [];
  if (sending || legal.length === 0) return;
  const move = legal.find((m) => m.action === "play") ||
               legal.find((m) => m.action === "draw") || legal[0];
  const body = {version: view.version, ...move};
  if (move.action === "play" && view.you.hand.length === 2) body.uno = true;
  sending = true;
  try {
    const res = await fetch(`${api}/games/${gameId}/moves`, {
      method: "POST",
      headers: {Authorization: `Bearer ${token}`, "Content-Type": "application/json"},
      body: JSON.stringify(body),
    });
    if (res.ok) seen.moves += 1; else seen.refusedMoves.push(res.status);
  } catch (error) {
    seen.refusedMoves.push(String(error));
  }
  sending = false;
  if (latest !== view) play();  // a view came while the move was on its way
}

follow(api, gameId, token, {
  view(view) {
    seen.views += 1;
    seen.lastView = {version: view.version, last_seq: view.last_seq, status: view.status};
    document.getElementById("table").textContent =
      `version ${view.version}, seq ${view.last_seq}, ${view.status}`;
    latest = view;
    play();
  },
  event(event) { seen.events += 1; },
  end(end) {
    seen.end = end;
    document.getElementById("table").textContent += ` - over: ${JSON.stringify(end)}`;
  },
  stop(status, error) { seen.stopped = {status, error}; },
});
"""


def page_html() -> str:
    return (
        '<!doctype html>\n<html><head><meta charset="utf-8"><title>UNO elsewhere</title>'
        '</head>\n<body><h1>A game followed from another origin</h1><p id="table"></p>\n'
        f"<script>\n{browser_example()}\n</script>\n<script>\n{PAGE_SCRIPT}\n</script>\n"
        "</body></html>\n"
    )


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def page_server(folder: Path) -> Iterator[str]:
    """The files of `folder` served on a port of their own; yields its origin."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The page, served from two origins: (let in, not let in)."""
    folder = tmp_path_factory.mktemp("site")
    (folder / "game.html").write_text(page_html())
    with page_server(folder) as allowed, page_server(folder) as elsewhere:
        yield allowed, elsewhere


@pytest.fixture(scope="module")
def service_process(
    tmp_path_factory: pytest.TempPathFactory, django_db_setup: None, pages: tuple[str, str]
) -> Iterator[Served]:
    """The served service letting in the first page's origin, with a worker whose
    bots play at once; one for the module."""
    env = {"CORS_ALLOWED_ORIGINS": pages[0]}
    with served_with_a_worker(tmp_path_factory.mktemp("service"), env) as served:
        yield served


@pytest.fixture
def service(service_process: Served, transactional_db: None) -> Served:
    return service_process


@pytest.fixture
def browser(service: Served, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    # Depends on the service: the browser, and its streams, close before it stops.
    with chromium(monkeypatch) as running:
        yield running


def game_against_a_bot(service: Served) -> tuple[Client, str]:
    """A new player's started one-round game against a greedy bot: (player, game id)."""
    player = service.client().sign_up("Ann")
    created = player.post("/games", {"max_players": 2, "target_score": 0})
    assert created.status == 201, created.body
    game_id = created.body["id"]
    assert player.post(f"/games/{game_id}/bots", {"strategy": "greedy"}).status == 201
    started = player.post(f"/games/{game_id}/start")
    assert started.status == 200, started.body
    return player, game_id


# Before the page's scripts: the pauses the page waits (`window.waits`), and, where
# a test fixes it, the jitter's draw.
RECORD_WAITS = """
window.waits = [];
const setTimeoutOfTheBrowser = window.setTimeout;
window.setTimeout = (work, ms, ...rest) => {
  window.waits.push(ms);
  return setTimeoutOfTheBrowser(work, ms, ...rest);
};
"""


def open_page(
    browser: Any, origin: str, service: Served, game_id: str, token: str, *, draw: float = -1
) -> Any:
    """The game's page of `origin`, following `game_id` with `token`; its console
    messages are kept in `page.console`. With `draw`, Math.random() returns it."""
    page = browser.new_page(viewport={"width": 1000, "height": 600})
    page.console = []
    page.on("console", lambda message: page.console.append(message.text))
    page.add_init_script(RECORD_WAITS)
    if draw >= 0:
        page.add_init_script(f"Math.random = () => {draw};")
    api = f"{service.url}/api/v1"
    page.goto(f"{origin}/game.html?api={api}&game={game_id}&token={token}")
    return page


def ticket_requests(page: Any) -> int:
    return int(
        page.evaluate(
            """() => performance.getEntriesByType("resource")
                .filter((entry) => entry.name.endsWith("/stream-ticket")).length"""
        )
    )


def test_a_page_of_an_origin_let_in_follows_its_game_from_the_ticket_to_the_end(
    service: Served, pages: tuple[str, str], browser: Any
):
    allowed, _ = pages
    player, game_id = game_against_a_bot(service)
    page = open_page(browser, allowed, service, game_id, str(player.token))

    wait_for_true(page, "window.seen.end !== null", timeout_ms=GAME_OVER_WITHIN_MS)
    seen = page.evaluate("window.seen")
    game = player.get(f"/games/{game_id}").body
    assert game["status"] == "finished"
    assert seen["end"] == {
        "status": "finished",
        "winner": game["winner"],
        "last_seq": game["last_seq"],
    }
    assert seen["lastView"]["last_seq"] == game["last_seq"]
    assert seen["lastView"]["status"] == "finished"
    assert seen["moves"] >= 1
    assert seen["events"] >= 1  # card_played, listened for as the example does
    assert seen["stopped"] is None
    assert not [text for text in page.console if "CORS" in text]

    # Headers a page reads beyond the safe ones, exposed to it.
    read = page.evaluate(
        """async ([api, game, token]) => {
            const res = await fetch(`${api}/games/${game}`,
                                    {headers: {Authorization: `Bearer ${token}`}});
            return {requestId: res.headers.get("X-Request-ID"), ok: res.ok};
        }""",
        [f"{service.url}/api/v1", game_id, player.token],
    )
    assert read["ok"]
    assert read["requestId"]

    screenshot = artifacts_dir() / "cors-page.png"
    page.screenshot(path=str(screenshot))
    assert screenshot.stat().st_size > 2_000


@pytest.mark.parametrize(
    ("token_of_player", "game", "status"),
    [(False, "theirs", 401), (True, "none", 404)],
    ids=["a token that does not work", "a game that does not exist"],
)
def test_the_browser_example_stops_where_trying_again_cannot_help(
    service: Served, pages: tuple[str, str], browser: Any, token_of_player, game, status
):
    allowed, _ = pages
    player, game_id = game_against_a_bot(service)
    token = str(player.token) if token_of_player else "not-a-token"
    followed = game_id if game == "theirs" else "00000000-0000-0000-0000-000000000000"
    page = open_page(browser, allowed, service, followed, token)

    wait_for_true(page, "window.seen.stopped !== null", timeout_ms=30_000)
    page.wait_for_timeout(2_000)  # long enough for a retry, had there been one
    seen = page.evaluate("window.seen")
    assert seen["stopped"]["status"] == status
    assert seen["stopped"]["error"]["code"] == {401: "not_authenticated", 404: "not_found"}[status]
    assert ticket_requests(page) == 1
    assert page.evaluate("window.waits") == []


def test_a_page_of_an_origin_not_let_in_is_refused_by_the_browser(
    service: Served, pages: tuple[str, str], browser: Any
):
    _, elsewhere = pages
    player, game_id = game_against_a_bot(service)
    # Each pause then lasts half the delay of its turn.
    page = open_page(browser, elsewhere, service, game_id, str(player.token), draw=0.5)

    # The example's ticket request fails as a network error: it tries again, after
    # pauses that grow (1 s, 2 s, 4 s, ... 30 s at most, each jittered).
    wait_for_true(page, "window.waits.length >= 4", timeout_ms=30_000)
    seen = page.evaluate("window.seen")
    assert seen["views"] == 0
    assert seen["stopped"] is None
    assert page.evaluate("window.waits")[:4] == [500, 1000, 2000, 4000]
    assert ticket_requests(page) >= 4
    assert any("blocked by CORS policy" in text for text in page.console), page.console

    api = f"{service.url}/api/v1"
    fetched = page.evaluate(
        """async ([api, game, token]) => {
            try {
                await fetch(`${api}/games/${game}`, {headers: {Authorization: `Bearer ${token}`}});
                return "read";
            } catch (error) {
                return error.name;
            }
        }""",
        [api, game_id, player.token],
    )
    assert fetched == "TypeError"

    # An EventSource with a ticket got elsewhere: the stream is refused to the page.
    ticket = player.post(f"/games/{game_id}/stream-ticket")
    assert ticket.status == 201
    stream_url = f"{api}/games/{game_id}/stream?ticket={ticket.body['ticket']}"
    outcome = page.evaluate(
        """(url) => new Promise((resolve) => {
            const source = new EventSource(url);
            source.addEventListener("game", () => { source.close(); resolve("view"); });
            source.onerror = () => { resolve(source.readyState === EventSource.CLOSED
                                             ? "closed" : "error"); source.close(); };
        })""",
        stream_url,
    )
    assert outcome == "closed"
