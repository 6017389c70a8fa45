"""The web client's views beyond the table, in a real browser: a second person finds a
public game among the games to watch and follows it live as a spectator, with no
hand of their own; once it is over its player finds it in her profile's history,
where her rating is one number, provisional, with mu and sigma folded away until
she asks, opens its replay and moves through it with the slider (by keyboard and by
clicks), the page showing the table the API's replay gives for each event; and she
opens the leaderboard. The replay of a game of several rounds marks where each
round starts along its slider, and its round picker jumps to the round chosen and
follows the slider. Each of those pages fits a desk's and a phone's screen, and
axe-core finds no serious or critical accessibility violation in it.

Her moves go through the API (a person sits at the table, the bots play at once), so
that the test spends its time on the pages it is about. Saves screenshots at 390x844
of the spectator's table, the replay, the profile, the leaderboard and the replay of
several rounds to ``artifacts/play-watch.png``, ``artifacts/play-replay.png``,
``artifacts/play-profile.png``, ``artifacts/play-leaderboard.png`` and
``artifacts/play-replay-rounds.png`` (or under ``$TEST_ARTIFACTS_DIR``).
"""

from __future__ import annotations

import math
import re
import time
from typing import Any

from tests.browser import SERVED_WITH_A_WORKER, artifacts_dir
from tests.served import Client, Served
from tests.web.pages import DESK, PHONE, accessible, fits, new_page, sign_up, token_of

pytestmark = SERVED_WITH_A_WORKER

GAME_OVER_WITHIN = 120.0
# The moves a player makes when they have a choice: a card first, drawing last.
PREFERRED = ("play", "choose_color", "accept", "call_uno", "draw", "pass")

# The replay as the page shows it once the table of the slider's event has come.
SHOWN = """() => {
  const table = document.querySelector(".replay-table");
  const slider = document.getElementById("replay-seq");
  if (!table || table.getAttribute("aria-busy") !== "false" || table.dataset.seq !== slider.value) {
    return null;
  }
  const top = table.querySelector(".top-card");
  const codes = (seat) =>
    [...seat.querySelectorAll(".replay-hand .card")].map((c) => c.dataset.code);
  return {
    seq: Number(table.dataset.seq),
    top: top ? top.dataset.code : null,
    hands: Object.fromEntries([...table.querySelectorAll(".replay-seat")]
      .map((seat) => [seat.dataset.seat, codes(seat)])),
    said: document.getElementById("replay-event").textContent,
  };
}"""


def a_move(player: Client, game_id: str) -> bool:
    """The player's move, when the game waits for one: False when it does not."""
    game = player.get(f"/games/{game_id}").body
    moves = game["you"]["legal_moves"] if game["status"] == "playing" else []
    for action in PREFERRED:
        chosen = [move for move in moves if move["action"] == action]
        if chosen:
            # 409: a bot moved first (a catch); the next look decides afresh.
            assert player.post(f"/games/{game_id}/moves", chosen[0]).status in (200, 409)
            return True
    return False


def play_to_the_end(player: Client, game_id: str) -> None:
    deadline = time.monotonic() + GAME_OVER_WITHIN
    while player.get(f"/games/{game_id}").body["status"] == "playing":
        assert time.monotonic() < deadline, "the game is not over"
        if not a_move(player, game_id):
            time.sleep(0.05)  # the bots' turn: look again


def play_until_round(player: Client, game_id: str, round_number: int) -> None:
    deadline = time.monotonic() + GAME_OVER_WITHIN
    while player.get(f"/games/{game_id}").body["round"] < round_number:
        assert time.monotonic() < deadline, f"round {round_number} is not dealt"
        if not a_move(player, game_id):
            time.sleep(0.05)


def shown_rating(ordinal: float) -> str:
    """A rating as the pages show it: the ordinal in hundredths, rounded half up."""
    points = math.floor(ordinal * 100 + 0.5)
    return f"\u2212{-points}" if points < 0 else str(points)


def log_lines(page: Any) -> int:
    return int(page.locator(".log li").count())


def the_replay_shows_the_apis_table(page: Any, player: Client, game_id: str) -> dict[str, Any]:
    page.wait_for_function(SHOWN, timeout=20_000)
    shown = page.evaluate(SHOWN)
    table = player.get(f"/games/{game_id}/replay?seq={shown['seq']}").body
    assert shown["top"] == table["top_card"]["code"]
    hands = {seat: [card["code"] for card in cards] for seat, cards in table["hands"].items()}
    assert shown["hands"] == hands
    assert shown["said"]
    return dict(shown)


def test_a_spectator_follows_a_game_live_and_its_player_replays_it_from_her_history(
    service: Served, browser: Any
):
    ann_page, bob_page = new_page(browser), new_page(browser)
    ann_page.goto(f"{service.url}/play/")
    sign_up(ann_page, "Ann")
    ann_page.wait_for_selector("#your-games-title")
    ann = service.client(token_of(ann_page))
    game_id = ann.post("/games", {"max_players": 4, "target_score": 0}).body["id"]
    for _ in range(3):
        assert ann.post(f"/games/{game_id}/bots", {"strategy": "greedy"}).status == 201
    assert ann.post(f"/games/{game_id}/start").status == 200

    # Bob finds her game among the games to watch, and watches it: no hand, no
    # actions, and a status that says he is watching.
    bob_page.goto(f"{service.url}/play/")
    sign_up(bob_page, "Bob")
    bob_page.click(f'.watch a[href="/play/games/{game_id}"]')
    bob_page.wait_for_selector(".status:has-text('You are watching.')", timeout=20_000)
    # Her name comes with her tag, which tells her apart from any other Ann.
    ann_id = ann.get("/players/me").body["id"]
    ann_tag = ann.get(f"/players/{ann_id}").body["tag"]
    assert bob_page.locator(".seat-name").all_inner_texts().count(f"Ann#{ann_tag}") == 1
    assert bob_page.locator(".hand, .actions").count() == 0
    fits(bob_page, DESK)
    fits(bob_page, PHONE)
    bob_page.screenshot(path=str(artifacts_dir() / "play-watch.png"))
    accessible(bob_page)

    # Each of Ann's moves reaches his page as it happens.
    for _ in range(3):
        before = log_lines(bob_page)
        while not a_move(ann, game_id):
            time.sleep(0.05)
        bob_page.wait_for_function(
            f"() => document.querySelectorAll('.log li').length > {before}", timeout=20_000
        )
    assert bob_page.locator(".log li", has_text="Ann ").count() >= 1
    play_to_the_end(ann, game_id)
    bob_page.wait_for_selector('.results.over a[data-key="replay"]', timeout=20_000)
    assert bob_page.locator(".hand").count() == 0

    # Ann's profile lists the game, with its replay.
    ann_page.click("nav >> text=Your profile")
    ann_page.wait_for_selector(".history-game")
    history = ann.get("/players/me/games").body
    assert history["count"] == 1
    assert ann_page.locator(".history-game").count() == 1
    assert ann_page.locator("#profile-title").inner_text() == "Ann"
    assert "fewer than two people" in ann_page.inner_text(".history-game")

    # Her rating is one number, provisional until she has what the leaderboard asks
    # for; the page says what counts for it, and keeps mu and sigma folded away.
    profile = ann.get(f"/players/{ann_id}").body
    assert profile["provisional"]
    assert profile["rating"]["games"] == 0
    assert ann_page.locator(".rating-value").all_inner_texts() == [
        shown_rating(profile["rating"]["ordinal"])
    ]
    assert ann_page.inner_text(".standing") == (
        f"Provisional until {5 - profile['rating']['games']} more rated games"
        f" and {3 - profile['opponents']} more different opponents."
    )
    assert "Games against bots alone do not" in ann_page.inner_text(".rating-counts")
    greek = ann_page.get_by_text(re.compile("[\u03bc\u03c3]"))
    assert greek.count() >= 3
    assert not any(greek.nth(i).is_visible() for i in range(greek.count()))
    assert "25.00" not in ann_page.inner_text("main")
    fits(ann_page, DESK)
    fits(ann_page, PHONE)
    ann_page.screenshot(path=str(artifacts_dir() / "play-profile.png"), full_page=True)
    fits(ann_page, DESK)
    accessible(ann_page)
    ann_page.get_by_text("How the rating is worked out").click()
    assert all(greek.nth(i).is_visible() for i in range(greek.count()))
    assert ann_page.locator(".rating-how dd").all_inner_texts() == [
        f"{profile['rating'][key]:.2f}" for key in ("mu", "sigma", "ordinal")
    ]
    fits(ann_page, PHONE)
    fits(ann_page, DESK)
    accessible(ann_page)
    ann_page.click(f'.history-game[data-game="{game_id}"] >> text=Replay')
    ann_page.wait_for_url(f"**/play/games/{game_id}/replay*")

    # It opens at the deal; the slider moves by keyboard, by its buttons and by a click
    # on it, the table following, read only for where it settles.
    last = len(ann.get(f"/games/{game_id}/log").body["events"])
    first = the_replay_shows_the_apis_table(ann_page, ann, game_id)
    ann_page.focus("#replay-seq")
    for _ in range(3):
        ann_page.keyboard.press("ArrowRight")
    assert the_replay_shows_the_apis_table(ann_page, ann, game_id)["seq"] == first["seq"] + 3
    asked = [url for url in ann_page.requests if "/replay?seq=" in url]
    assert not any(url.endswith(f"seq={first['seq'] + 1}") for url in asked), asked
    ann_page.click("button[data-key='next']")
    assert the_replay_shows_the_apis_table(ann_page, ann, game_id)["seq"] == first["seq"] + 4
    box = ann_page.locator("#replay-seq").bounding_box()
    ann_page.mouse.click(box["x"] + box["width"] * 0.9, box["y"] + box["height"] / 2)
    clicked = the_replay_shows_the_apis_table(ann_page, ann, game_id)["seq"]
    assert first["seq"] + 4 < clicked <= last
    fits(ann_page, DESK)
    fits(ann_page, PHONE)
    ann_page.screenshot(path=str(artifacts_dir() / "play-replay.png"), full_page=True)
    accessible(ann_page)

    # The leaderboard shows the API's rows (none yet: one person against bots is
    # never rated), each a link to a profile.
    ann_page.click("nav >> text=Leaderboard")
    ann_page.wait_for_selector("#leaderboard-title")
    board = ann.get("/leaderboard").body
    rows = ann_page.locator("table.list tbody tr a[href^='/play/players/']")
    assert rows.count() == len(board["results"])
    if not board["results"]:
        assert ann_page.inner_text(".leaderboard-empty") == "No one has the record for a rank yet."
    fits(ann_page, DESK)
    fits(ann_page, PHONE)
    ann_page.screenshot(path=str(artifacts_dir() / "play-leaderboard.png"), full_page=True)
    accessible(ann_page)
    assert ann_page.errors == []
    assert bob_page.errors == []


def test_the_replay_marks_where_each_round_starts_and_jumps_to_the_round_chosen(
    service: Served, browser: Any
):
    page = new_page(browser)
    page.goto(f"{service.url}/play/")
    sign_up(page, "Ann")
    page.wait_for_selector("#your-games-title")
    ann = service.client(token_of(page))
    game_id = ann.post("/games", {"max_players": 2, "target_score": 10000}).body["id"]
    assert ann.post(f"/games/{game_id}/bots", {"strategy": "greedy"}).status == 201
    assert ann.post(f"/games/{game_id}/start").status == 200
    # Three rounds dealt, then she leaves: the game, with no person left, is
    # abandoned, and an abandoned game is replayed as a finished one is.
    play_until_round(ann, game_id, 3)
    assert ann.post(f"/games/{game_id}/leave").status == 200
    log = ann.get(f"/games/{game_id}/log").body
    assert log["game"]["status"] == "abandoned"
    last = len(log["events"])
    starts = [event["seq"] for event in log["events"] if event["type"] == "round_started"]
    assert len(starts) == 3

    page.goto(f"{service.url}/play/games/{game_id}/replay")
    assert the_replay_shows_the_apis_table(page, ann, game_id)["seq"] == starts[0]

    # One mark per round, at its first event, in order along the slider and within it.
    marks = page.locator(".replay-mark")
    assert [int(seq) for seq in marks.evaluate_all("ms => ms.map((m) => m.dataset.seq)")] == starts
    assert marks.all_inner_texts() == ["1", "2", "3"]
    for viewport in (DESK, PHONE):
        fits(page, viewport)
        track = page.locator("#replay-seq").bounding_box()
        boxes = [mark.bounding_box() for mark in marks.all()]
        centres = [box["x"] + box["width"] / 2 for box in boxes]
        assert centres == sorted(centres)
        assert track["x"] <= centres[0]
        assert centres[-1] <= track["x"] + track["width"]
        for seq, centre in zip(starts, centres, strict=True):
            along = (seq - 1) / (last - 1)
            assert abs(centre - (track["x"] + along * track["width"])) < 12, viewport

    # The picker, labelled "Round", jumps the slider to the round chosen; the table
    # follows, and a screen reader hears the round with the event.
    rounds = page.get_by_label("Round", exact=True)
    assert rounds.evaluate("(s) => [...s.options].map((o) => o.text)") == [
        "Before the deal",
        "1 of 3",
        "2 of 3",
        "3 of 3",
    ]
    rounds.select_option(label="2 of 3")
    assert page.input_value("#replay-seq") == str(starts[1])
    assert the_replay_shows_the_apis_table(page, ann, game_id)["seq"] == starts[1]
    valuetext = page.get_attribute("#replay-seq", "aria-valuetext")
    assert valuetext.startswith(f"Round 2, event {starts[1]} of {last}: "), valuetext
    assert page.locator(".replay-mark.current").inner_text() == "2"

    # It follows the slider: to the last event, in the last round, by keyboard alone;
    # and back one round from the keyboard on the picker.
    page.focus("#replay-seq")
    page.keyboard.press("End")
    assert the_replay_shows_the_apis_table(page, ann, game_id)["seq"] == last
    assert rounds.input_value() == str(starts[2])
    page.focus("#replay-round")
    page.keyboard.press("ArrowUp")
    assert the_replay_shows_the_apis_table(page, ann, game_id)["seq"] == starts[1]
    assert rounds.input_value() == str(starts[1])
    page.focus("#replay-seq")
    page.keyboard.press("ArrowLeft")
    assert the_replay_shows_the_apis_table(page, ann, game_id)["seq"] == starts[1] - 1
    assert rounds.input_value() == str(starts[0])

    fits(page, DESK)
    fits(page, PHONE)
    page.screenshot(path=str(artifacts_dir() / "play-replay-rounds.png"), full_page=True)
    accessible(page)
    assert page.errors == []
