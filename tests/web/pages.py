"""The web client's pages as a person sees and uses them, for the browser tests of
/play/ (their fixtures are in conftest.py): a page of a person of its own, what a
person sees of the table, the clicks a person makes, whether a page fits its
viewport, and what axe-core (pinned in tests/clients/package.json) finds wrong in it
for a person using assistive technology."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from games.engine import CARDS
from tests.served import Client
from tests.support import ROOT

DESK = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}
# Generous for a loaded CI machine: a round against bots that do not think takes
# seconds, most of them the page's own clicks.
GAME_OVER_WITHIN = 120.0
CLICK_MS = 3_000
AXE = ROOT / "tests" / "clients" / "node_modules" / "axe-core" / "axe.min.js"

# axe's findings as plain data: each violation's rule, impact and where it is. What
# moves on the table (a card in flight, a mark fading in and out) is hidden from
# assistive technology and gone within a second: left out, as it would otherwise be
# judged half-transparent, mid-flight.
AXE_RUN = """async () => {
  const found = await axe.run({ exclude: [[".motion-layer"]] }, { resultTypes: ["violations"] });
  return found.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    targets: v.nodes.map((n) => n.target.join(" ")),
  }));
}"""


def new_page(browser: Any, **context: Any) -> Any:
    """A page of a browser profile of its own (its own localStorage: another person;
    `context`: more of Playwright's options for it, such as `reduced_motion`), whose
    console errors and uncaught exceptions are kept in `page.errors`."""
    opened = browser.new_context(viewport=DESK, **context).new_page()
    opened.errors = []
    opened.on(
        "console",
        lambda message: opened.errors.append(message.text) if message.type == "error" else None,
    )
    opened.on("pageerror", lambda error: opened.errors.append(str(error)))
    opened.requests = []
    opened.on("request", lambda request: opened.requests.append(request.url))
    return opened


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
    roundEnd: Boolean(document.querySelector("dialog.round-end[open]")),
    playable: [...document.querySelectorAll(".hand button.card.playable")]
      .map((b) => b.dataset.card),
    hand: document.querySelectorAll(".hand .card").length,
    actions: ["draw", "pass", "choose-color", "accept", "challenge"].filter(enabled),
    uno: uno ? uno.getAttribute("aria-pressed") ?? "call" : null,
    log: [...document.querySelectorAll(".log li")].map((li) => li.textContent),
  };
}"""

# What moves on the table is drawn on a layer fixed to the viewport and clipped to
# it (web/motion.js): a card in flight there when the viewport changes size cannot
# widen the page, and is gone a moment later.
WIDER_THAN_THE_VIEWPORT = """() => {
  const width = document.documentElement.clientWidth;
  const outside = [...document.querySelectorAll("body *")].filter((element) => {
    if (element.closest(".motion-layer")) return false;
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


# Nothing in flight on the table any more (web/motion.js): what a screenshot shows.
SETTLED = "() => !document.querySelector('.motion-layer *')"


def fits(page: Any, viewport: dict[str, int]) -> None:
    page.set_viewport_size(viewport)
    page.wait_for_timeout(200)
    page.wait_for_function(SETTLED, timeout=5_000)
    laid_out = page.evaluate(WIDER_THAN_THE_VIEWPORT)
    assert laid_out == {"scroll": False, "outside": []}, (viewport, laid_out)


def play_one_click(person: Player, seen: dict[str, Any]) -> bool:
    """The next click a person would make on what is `seen`; False when there is none
    to make (a bot is to play)."""

    def on(selector: str) -> bool:
        return press(person.page, selector, keyboard=person.keyboard)

    if seen["dialog"]:
        return on("#choice-buttons button")
    if seen["roundEnd"]:
        return on('dialog.round-end button[data-key="next-round"]')
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
    """A one-round game, from the lobby's full form (folded away under the one-tap
    choices)."""
    page.click(".more-ways > summary")
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


def streams_opened(page: Any) -> list[str]:
    """The game streams the page opened: each resumes right after the last event it
    read (the first after the events it read from /events)."""
    return [url for url in page.requests if "/games/" in url and "/stream?ticket=" in url]


def ann_and_bob(service: Any, page: Any, *, target: int, seed: int) -> tuple[str, Client, Client]:
    """Ann, signed up in `page`, hosts a two-player game dealt from `seed` that Bob
    joins through the API; started, it opens in her page. Returns the game's id and
    the API clients of both (the service runs with `CLIENT_SEEDS`)."""
    page.goto(f"{service.url}/play/")
    sign_up(page, "Ann")
    page.wait_for_selector("#your-games-title", timeout=20_000)
    ann = service.client(token_of(page))
    bob = service.client().sign_up("Bob")
    created = ann.post("/games", {"max_players": 2, "target_score": target, "seed": seed})
    assert created.status == 201, created.body
    game_id = created.body["id"]
    assert bob.post(f"/games/{game_id}/join").status == 200
    assert ann.post(f"/games/{game_id}/start").status == 200
    page.goto(f"{service.url}/play/games/{game_id}")
    return game_id, ann, bob


# Far more moves than a game of two takes: a loop that never gets there fails.
MOST_API_MOVES = 2_000


def api_move(
    view: dict[str, Any], *, keeping: int | None = None, prefer: tuple[str, ...] = ()
) -> dict[str, Any] | None:
    """A plain player's move through the API: a card of a kind in `prefer` if one
    can be played, else the first card that can be played but `keeping` (saying UNO
    with the second-to-last), else draw, keep or accept; None when it is not theirs
    to move."""
    legal = [m for m in view["you"]["legal_moves"] if m["action"] not in ("catch_uno", "call_uno")]
    plays = [m for m in legal if m["action"] == "play" and m["card"] != keeping]
    plays.sort(key=lambda m: CARDS[m["card"]].kind not in prefer)
    others = [m for m in legal if m["action"] != "play"]
    if plays:
        return {**plays[0], "uno": True} if len(view["you"]["hand"]) == 2 else plays[0]
    return others[0] if others else None


def play_until(
    players: list[Client],
    game_id: str,
    done: Callable[[dict[str, Any]], bool],
    *,
    keeping: int | None = None,
    prefer: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The players move through the API, each as `api_move` says, until the view
    satisfies `done`: that view."""
    for _ in range(MOST_API_MOVES):
        for client in players:
            view = view_of(client, game_id)
            if done(view):
                return view
            chosen = api_move(view, keeping=keeping, prefer=prefer)
            if chosen:
                answer = client.post(f"/games/{game_id}/moves", chosen)
                assert answer.status == 200, (chosen, answer.body)
                break
    raise AssertionError("the players did not get there")


def on_the_pile(client: Client, game_id: str, card: int, within: float = 20.0) -> None:
    """Wait until the service has `card` on the pile: the page shows a card played
    the moment it is clicked, before its move reaches the service."""
    deadline = time.monotonic() + within
    while view_of(client, game_id)["top_card"]["id"] != card:
        assert time.monotonic() < deadline, f"the card {card} never reached the pile"
        time.sleep(0.05)


def view_of(client: Client, game_id: str) -> dict[str, Any]:
    """The game's view as `client`'s player reads it from the API."""
    answer = client.get(f"/games/{game_id}")
    assert answer.status == 200, answer.body
    return dict(answer.body)


def token_of(page: Any) -> str:
    return str(page.evaluate("() => JSON.parse(localStorage.getItem('uno.player')).token"))


def violations(page: Any) -> list[dict[str, Any]]:
    """The serious and critical accessibility violations axe-core finds in the page.
    The page's Content-Security-Policy (script-src 'self') refuses an injected script
    tag; a script evaluated from outside the page, through the DevTools protocol, is
    not subject to it, so axe runs under the policy the page really has."""
    assert AXE.exists(), "axe-core is missing: npm ci --prefix tests/clients"
    if not page.evaluate("() => 'axe' in window"):
        page.evaluate(AXE.read_text())
    found = page.evaluate(AXE_RUN)
    return [v for v in found if v["impact"] in ("serious", "critical")]


def accessible(page: Any) -> None:
    found = violations(page)
    assert found == [], found
