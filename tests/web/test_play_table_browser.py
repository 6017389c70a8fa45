"""The web client's table as a game, in a real browser: a played card travels from
the hand to the pile (and, for a person who asks their system for less motion, is
there at once); the hand is sorted by colour unless the player turns that off; a
round's end stays over the table with the winning card and every hand's points
until "Next round"; a reload shows the same log as before it; Leave ends the seat as
the API says; on a phone a new player is at a table against bots one tap from the
lobby, and finds it in the lobby's list, told apart from others, to leave; a
waiting room counts its free seats and starts with bots in them; ten seats fit a
phone; a drawn card is marked until the player's next move; and with the 112-card
deck, chosen in the lobby's form, the table says what the Wild Customizable does, and
a Wild Shuffle Hands played by clicking deals every hand anew, as the API says.

Ann plays in the page; Bob through the API. The deals come from seeds (the service
runs with `CLIENT_SEEDS`), found with the rules engine, which deals as the service
does. Saves the frames around the click (``artifacts/table-moving-0ms.png`` and
``-200ms``, ``table-still-...`` with less motion), ``artifacts/table-round-end-desk.png``,
``artifacts/table-ten-<phone|desk>.png`` and ``artifacts/table-modern-deck-<phone|desk>.png``
(or under ``$TEST_ARTIFACTS_DIR``).
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from games.engine import CARDS, GameConfig, hand_points, legal_moves, new_game
from tests.browser import SERVED_WITH_A_WORKER, artifacts_dir
from tests.served import Client, Served
from tests.support import ROOT
from tests.web.pages import (
    DESK,
    PHONE,
    SETTLED,
    Player,
    accessible,
    ann_and_bob,
    create,
    fits,
    new_page,
    on_the_pile,
    play_to_the_end,
    play_until,
    sign_up,
    token_of,
    view_of,
)

pytestmark = SERVED_WITH_A_WORKER

ANN, BOB = 0, 1
SHOWN_MS = 20_000
# The frames around a click: when the click lands, and this long after it.
FRAME_MS = 200


@pytest.fixture(scope="module")
def play_env() -> dict[str, str]:
    return {"CLIENT_SEEDS": "true"}


def ann_opens_with_a_number(target: int) -> int:
    """A seed of a two-player game (to `target` points) where Ann plays first and can
    play a number card, so that her click hands the turn to Bob."""
    for seed in range(10_000):
        state, _ = new_game(GameConfig(2, target), seed)
        if state.current != ANN or state.pending is not None:
            continue
        plays = [m for m in legal_moves(state, ANN) if m.card is not None]
        if any(CARDS[m.card].kind == "number" for m in plays):
            return seed
    raise AssertionError("no seed deals that opening")


def a_game_with_bob(service: Served, page: Any, *, target: int) -> tuple[str, Client, Client]:
    """Ann (signed up in the page) hosts a game with Bob, started and open in her page."""
    seed = ann_opens_with_a_number(target)
    game_id, ann, bob = ann_and_bob(service, page, target=target, seed=seed)
    page.wait_for_selector(".hand button.card.playable", timeout=SHOWN_MS)
    return game_id, ann, bob


def a_number_to_play(view: dict[str, Any]) -> int:
    return next(
        m["card"]
        for m in view["you"]["legal_moves"]
        if m["action"] == "play" and CARDS[m["card"]].kind == "number"
    )


def pile_and_hand(page: Any) -> dict[str, float]:
    """The part of the page that holds the pile and the hand."""
    pile = page.locator(".felt .pile").bounding_box()
    hand = page.locator(".hand").bounding_box()
    left, top = min(pile["x"], hand["x"]), min(pile["y"], hand["y"])
    right = max(pile["x"] + pile["width"], hand["x"] + hand["width"])
    bottom = max(pile["y"] + pile["height"], hand["y"] + hand["height"])
    return {"x": left, "y": top, "width": right - left, "height": bottom - top}


def frames_of_a_click(page: Any, selector: str, name: str) -> tuple[bytes, bytes]:
    """The pile and the hand as the click lands and `FRAME_MS` after it, saved as
    ``table-<name>-0ms.png`` and ``table-<name>-200ms.png``."""
    clip = pile_and_hand(page)
    page.click(selector)
    clicked = time.monotonic()
    landed = page.screenshot(clip=clip, animations="allow")
    page.wait_for_timeout(max(0.0, FRAME_MS - (time.monotonic() - clicked) * 1000))
    later = page.screenshot(clip=clip, animations="allow")
    for frame, at in ((landed, 0), (later, FRAME_MS)):
        (artifacts_dir() / f"table-{name}-{at}ms.png").write_bytes(frame)
    return landed, later


def test_a_played_card_travels_from_the_hand_to_the_pile(service: Served, browser: Any):
    page = new_page(browser)
    game_id, ann, _ = a_game_with_bob(service, page, target=0)
    card = a_number_to_play(view_of(ann, game_id))

    landed, later = frames_of_a_click(
        page, f'.hand button.card.playable[data-card="{card}"]', "moving"
    )

    assert landed != later
    page.wait_for_selector(f'.pile .top-card[data-card="{card}"]:not(.landing)', timeout=SHOWN_MS)
    on_the_pile(ann, game_id, card)
    assert page.errors == []


def test_with_less_motion_asked_for_the_card_is_on_the_pile_at_once(service: Served, browser: Any):
    page = new_page(browser, reduced_motion="reduce")
    game_id, ann, _ = a_game_with_bob(service, page, target=0)
    card = a_number_to_play(view_of(ann, game_id))
    assert page.title() == "● Your turn · UNO"

    landed, later = frames_of_a_click(
        page, f'.hand button.card.playable[data-card="{card}"]', "still"
    )

    assert landed == later
    assert page.is_visible(f'.pile .top-card[data-card="{card}"]')
    on_the_pile(ann, game_id, card)
    page.wait_for_function("() => document.title === 'UNO'")  # Bob's turn now
    assert page.errors == []


SHOWN_HAND = """() => [...document.querySelectorAll(".hand .card")]
  .map((b) => Number(b.dataset.card))"""
COLORS = ["red", "yellow", "green", "blue", None]
KINDS = ["number", "skip", "reverse", "draw_two", "wild", "wild_draw_four"]


def by_colour_and_value(card: int) -> tuple[int, int, int, int]:
    c = CARDS[card]
    return (COLORS.index(c.color), KINDS.index(c.kind), c.number or 0, card)


def test_the_hand_is_sorted_by_colour_and_value_unless_the_player_turns_it_off(
    service: Served, browser: Any
):
    page = new_page(browser)
    game_id, ann, _ = a_game_with_bob(service, page, target=0)
    dealt = [c["id"] for c in view_of(ann, game_id)["you"]["hand"]]

    assert page.evaluate(SHOWN_HAND) == sorted(dealt, key=by_colour_and_value)
    page.uncheck('input[data-key="sort-hand"]')
    assert page.evaluate(SHOWN_HAND) == dealt
    page.reload()
    page.wait_for_selector(".hand .card", timeout=SHOWN_MS)
    assert page.evaluate(SHOWN_HAND) == dealt  # the choice is kept
    assert page.errors == []


ROUND_END = """() => {
  const dialog = document.querySelector("dialog.round-end");
  if (!dialog || !dialog.open) return null;
  return {
    card: Number(dialog.querySelector(".winning-card")?.dataset.card),
    points: Object.fromEntries([...dialog.querySelectorAll("tbody tr")]
      .map((row) => [row.dataset.seat, row.querySelector(".hand-points").textContent])),
    countdown: dialog.querySelector(".countdown").textContent,
  };
}"""

LOG = """() => [...document.querySelectorAll(".log li")].map((li) => li.textContent)"""


def test_a_round_s_end_stays_over_the_table_and_a_reload_keeps_the_log(
    service: Served, browser: Any
):
    page = new_page(browser)
    game_id, ann, bob = a_game_with_bob(service, page, target=500)

    view = play_until([ann, bob], game_id, lambda v: v["round"] >= 2 or v["status"] != "playing")
    assert view["status"] == "playing", "the first round ended the game"
    events = ann.get(f"/games/{game_id}/events").body["events"]
    (ended,) = [e for e in events if e["type"] == "round_ended"]
    last_card = [e for e in events if e["type"] == "card_played"][-1]["data"]["card"]["id"]
    page.wait_for_selector("dialog.round-end[open]", timeout=SHOWN_MS)
    shown = page.evaluate(ROUND_END)
    assert shown["card"] == last_card
    winner = ended["seat"]
    worth = {
        seat: f"+{ended['data']['points']}"
        if int(seat) == winner
        else str(hand_points([c["id"] for c in hand]))
        for seat, hand in ended["data"]["hands"].items()
    }
    assert shown["points"] == worth
    fits(page, DESK)
    page.screenshot(path=str(artifacts_dir() / "table-round-end-desk.png"))
    accessible(page)

    # It stays, counting down, until the player goes on.
    page.wait_for_timeout(1500)
    still = page.evaluate(ROUND_END)
    assert still is not None
    assert still["countdown"] != shown["countdown"]
    page.click('dialog.round-end button[data-key="next-round"]')
    assert page.evaluate(ROUND_END) is None

    # A reload shows the log as it was, oldest first; newest first on asking.
    before = page.evaluate(LOG)
    assert before[0] == "Ann sat down."
    page.reload()
    page.wait_for_selector(".log li", timeout=SHOWN_MS)
    assert page.evaluate(LOG) == before
    assert page.evaluate("() => document.querySelector('dialog.round-end').open") is False
    page.click('button[data-key="log-order"]')
    assert page.evaluate(LOG) == list(reversed(before))
    assert page.errors == []


def test_leave_hands_the_seat_to_a_bot_as_the_api_says(service: Served, browser: Any):
    page = new_page(browser)
    game_id, ann, bob = a_game_with_bob(service, page, target=500)
    rated = view_of(ann, game_id)["rated"]

    page.click('button[data-key="leave"]')
    page.wait_for_selector("#choice[open]")
    question = page.inner_text("#choice-title")
    assert "A bot plays your seat" in question
    assert ("forfeit" in question) == rated
    accessible(page)
    page.click("#choice-buttons button")
    page.wait_for_selector("#your-games-title", timeout=SHOWN_MS)
    assert "You left the game." in page.inner_text("main")

    seen_by_bob = view_of(bob, game_id)
    assert seen_by_bob["status"] == "playing"
    assert seen_by_bob["seats"][ANN]["bot"] == "greedy"
    assert view_of(ann, game_id)["you"] is None
    told = [(e["type"], e["seat"]) for e in bob.get(f"/games/{game_id}/events").body["events"]]
    left = told.index(("player_left", ANN))
    assert told[left + 1] == ("seat_taken_by_bot", ANN)
    assert page.inner_text(".games-empty") == "You are in no game yet."
    assert page.errors == []


def test_a_new_player_on_a_phone_plays_against_bots_in_one_tap_and_can_leave_from_the_list(
    service: Served, browser: Any
):
    page = new_page(browser)
    page.set_viewport_size(PHONE)
    page.goto(f"{service.url}/play/")
    sign_up(page, "Ann")
    tap = page.locator('button[data-key="play-bots"]')
    tap.wait_for(timeout=SHOWN_MS)
    # On the first screen, no scrolling: below it only what the rest of the lobby holds.
    assert tap.bounding_box()["y"] + tap.bounding_box()["height"] <= PHONE["height"]
    assert "do not count for your rating" in page.inner_text("#play-bots-help")

    tap.click()
    page.wait_for_selector(".hand .card", timeout=SHOWN_MS)
    ann = service.client(token_of(page))
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    view = view_of(ann, game_id)
    assert view["status"] == "playing"
    assert [s["bot"] for s in view["seats"]] == [None, "greedy", "greedy", "greedy"]
    assert view["target_score"] == 200
    assert not view["rated"]

    # Back in the lobby, the game says whom it is against, which round and whose turn.
    page.click("a.brand")
    line = page.locator(f'.games.mine li[data-game="{game_id}"]')
    line.wait_for(timeout=SHOWN_MS)
    said = line.inner_text()
    assert "Against Bot 2 (greedy), Bot 3 (greedy), Bot 4 (greedy)" in said
    assert "Round 1" in said
    fits(page, PHONE)
    accessible(page)
    line.locator("button", has_text="Leave").click()
    page.wait_for_selector("#choice[open]")
    page.click("#choice-buttons button")
    page.wait_for_selector(".games-empty", timeout=SHOWN_MS)
    assert view_of(ann, game_id)["you"] is None
    assert page.errors == []


def test_a_waiting_room_counts_the_free_seats_and_starts_with_bots_in_them(
    service: Served, browser: Any
):
    page = new_page(browser)
    page.goto(f"{service.url}/play/")
    sign_up(page, "Ann")
    create(page, bots=1, friends=2)
    page.wait_for_selector(".waiting", timeout=SHOWN_MS)
    assert "2 of 4 seats taken, 2 free." in page.inner_text(".waiting")

    page.click('button[data-key="start-with-bots"]')
    page.wait_for_selector(".hand .card", timeout=SHOWN_MS)
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    view = view_of(service.client(token_of(page)), game_id)
    assert view["status"] == "playing"
    assert [s["bot"] for s in view["seats"]] == [None, "greedy", "greedy", "greedy"]
    assert page.errors == []


def test_a_table_of_ten_fits_a_phone_and_a_desk(service: Served, browser: Any):
    page = new_page(browser)
    page.goto(f"{service.url}/play/")
    sign_up(page, "Ann")
    create(page, bots=9)
    page.wait_for_selector(".hand .card", timeout=SHOWN_MS)
    assert page.locator(".felt .seat").count() == 10

    for size, viewport in (("phone", PHONE), ("desk", DESK)):
        fits(page, viewport)
        page.screenshot(path=str(artifacts_dir() / f"table-ten-{size}.png"))
        boxes = page.evaluate(SEAT_BOXES)
        overlapping = [
            (a["seat"], b["seat"])
            for i, a in enumerate(boxes)
            for b in boxes[i + 1 :]
            if a["left"] < b["right"]
            and b["left"] < a["right"]
            and a["top"] < b["bottom"]
            and b["top"] < a["bottom"]
        ]
        assert overlapping == [], (size, overlapping)
    accessible(page)
    assert page.errors == []


SEAT_BOXES = """() => [...document.querySelectorAll(".felt .seat")].map((seat) => {
  const box = seat.getBoundingClientRect();
  return {seat: seat.dataset.seat, left: box.left, right: box.right, top: box.top,
          bottom: box.bottom};
})"""


CARD_LOOKS = """() => [...document.querySelectorAll(".hand .card")].map((card) => ({
  card: Number(card.dataset.card), drawn: card.classList.contains("drawn"),
  opacity: getComputedStyle(card).opacity,
}))"""


def test_a_drawn_card_is_marked_until_the_players_next_move_and_no_card_is_faded_out(
    service: Served, browser: Any
):
    page = new_page(browser)
    game_id, ann, bob = a_game_with_bob(service, page, target=0)

    page.click('button[data-key="draw-pile"]')
    page.wait_for_selector(".hand .card.drawn", timeout=SHOWN_MS)
    events = ann.get(f"/games/{game_id}/events?after=0").body["events"]
    (drawn,) = [e for e in events if e["type"] == "cards_drawn" and e["seat"] == ANN]
    looks = page.evaluate(CARD_LOOKS)
    assert [c["card"] for c in looks if c["drawn"]] == [c["id"] for c in drawn["data"]["cards"]]
    # Cards that cannot be played are told by their place and shade, never faded out.
    assert {c["opacity"] for c in looks} == {"1"}

    # The drawn card could not be played, so the draw passed her turn by itself: the
    # mark stays while Bob plays, and goes with her own next move.
    assert (events[-1]["type"], events[-1]["seat"]) == ("turn_passed", ANN)
    (card,) = [c["id"] for c in drawn["data"]["cards"]]
    view = play_until([ann, bob], game_id, lambda v: v["current_seat"] == ANN)
    page.wait_for_selector(f'.pile .top-card[data-card="{view["top_card"]["id"]}"]')
    assert page.locator(f'.hand .card.drawn[data-card="{card}"]').count() == 1
    plays = [m for m in view["you"]["legal_moves"] if m["action"] == "play"]
    if plays:
        page.click(f'.hand button.card.playable[data-card="{plays[0]["card"]}"]')
    else:
        page.click('button[data-key="draw-pile"]')
    page.wait_for_selector(f'.hand .card.drawn[data-card="{card}"]', state="detached")
    assert page.errors == []


def test_a_finished_game_s_deal_checks_out_in_the_browser_by_its_own_implementation(
    service: Served, page: Any
) -> None:
    # The web client's verifier is its own implementation of docs/fairness.md: first
    # the document's test vectors, computed in the page with Web Crypto.
    page.goto(f"{service.url}/play/")
    sign_up(page, "Ann")
    page.wait_for_selector("#your-games-title", timeout=SHOWN_MS)
    vectors = documented_vectors()
    computed = page.evaluate(VECTORS_IN_THE_PAGE, vectors)
    assert computed["commitments"] == [c["commitment"] for c in vectors["commitments"]]
    assert computed["round_seeds"] == [c["round_seed"] for c in vectors["round_seeds"]]
    assert computed["below"] == vectors["below"]["values"]
    assert computed["shuffles"] == [c["order"] for c in vectors["shuffles"]]
    assert computed["first_dealer"] == vectors["first_dealer"]["dealer"]
    # Then a whole game, dealt from seeds the page drew for Ann and Bob's own.
    ann = service.client(token_of(page))
    bob = service.client().sign_up("Bob")
    created = ann.post("/games", {"max_players": 2, "target_score": 0})
    assert created.body["deal_algorithm"] == "uno-deal/1"
    game_id = created.body["id"]
    assert bob.post(f"/games/{game_id}/join", {"client_seed": BOB_SEED}).status == 200
    page.goto(f"{service.url}/play/games/{game_id}")
    page.click("button[data-key=start]")  # the page sends a seed it drew itself
    page.wait_for_selector(".felt", timeout=SHOWN_MS)
    ann_seed = view_of(ann, game_id)["you"]["client_seed"]
    assert len(ann_seed) == 32
    assert ann_seed != created.body["you"]["client_seed"]
    play_until([ann, bob], game_id, lambda view: view["status"] == "finished")
    page.click("button.check-deal", timeout=SHOWN_MS)
    page.wait_for_selector(".deal-check-verdict.holds", timeout=SHOWN_MS)
    steps = page.locator(".deal-check-steps li").all_inner_texts()
    assert len(steps) == 4, steps
    final = view_of(ann, game_id)
    assert steps[-1].endswith(", ".join(str(seat["score"]) for seat in final["seats"]) + ".")
    page.locator(".deal-check").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts_dir() / "deal-check-desk.png"))
    log = ann.get(f"/games/{game_id}/log").body
    assert log["deal"]["client_seeds"] == [ann_seed, BOB_SEED]
    # A log with one client seed changed fails, naming the round whose seed breaks.
    failed = page.evaluate(CHECK_A_CHANGED_LOG, log)
    assert failed == "round 1's seed", failed


BOB_SEED = "b0b5"


def documented_vectors() -> dict[str, Any]:
    text = (ROOT / "docs" / "fairness.md").read_text()
    return dict(json.loads(text.split("```json\n", 1)[1].split("\n```", 1)[0]))


VECTORS_IN_THE_PAGE = """async (v) => {
  const m = await import('/static/play/verify.js');
  const below = new m.Stream(v.below.round_seed, v.below.label, v.below.index);
  const values = [];
  for (const _ of v.below.values) values.push(await below.below(v.below.bound));
  const shuffles = [];
  for (const s of v.shuffles) {
    const cards = Array.from({length: s.cards}, (_, i) => i);
    shuffles.push(await m.shuffled(cards, s.round_seed, s.index));
  }
  return {
    commitments: await Promise.all(v.commitments.map((c) => m.commitment(c.server_seed))),
    round_seeds: await Promise.all(v.round_seeds.map(
      (c) => m.roundSeed(c.server_seed, c.client_seeds, c.round))),
    below: values,
    shuffles,
    first_dealer: await m.firstDealer(v.first_dealer.round_seed, v.first_dealer.players),
  };
}"""

CHECK_A_CHANGED_LOG = """async (log) => {
  const m = await import('/static/play/verify.js');
  log.deal.client_seeds[1] = "b0b0";
  try { await m.checkLog(log); return "passed"; } catch (e) { return e.step || String(e); }
}"""


def ann_signed_up(service: Served, page: Any) -> Any:
    """Ann, signed up in the page and at her lobby: her client of the API."""
    page.goto(f"{service.url}/play/")
    sign_up(page, "Ann")
    page.wait_for_selector("#your-games-title", timeout=SHOWN_MS)
    return service.client(token_of(page))


def test_a_partners_round_is_played_by_clicking_with_the_partner_s_hand_in_sight(
    service: Served, page: Any
) -> None:
    ann = ann_signed_up(service, page)
    body = {"max_players": 4, "target_score": 0, "mode": "partners", "partners_see_hands": True}
    game_id = ann.post("/games", body).body["id"]
    for _ in range(3):
        assert ann.post(f"/games/{game_id}/bots", {"strategy": "greedy"}).status == 201
    assert ann.post(f"/games/{game_id}/start").status == 200
    page.goto(f"{service.url}/play/games/{game_id}")
    page.wait_for_selector(".felt .seat.partner", timeout=SHOWN_MS)
    badges = page.locator(".felt .seat .badge.team").all_inner_texts()
    assert sorted(badges) == ["Partner", "Team A", "Team B", "Team B"]  # yours, A
    partner = page.locator(".felt .seat.partner")
    assert partner.get_attribute("data-seat") == "2"
    shown = partner.locator(".partner-hand .card").count()
    assert shown == view_of(ann, game_id)["seats"][2]["card_count"]
    page.screenshot(path=str(artifacts_dir() / "table-partners-desk.png"))
    play_to_the_end([Player(page)])
    final = view_of(ann, game_id)
    assert final["status"] == "finished"
    scores = [seat["score"] for seat in final["seats"]]
    assert (scores[0], scores[1]) == (scores[2], scores[3])
    # The deal's check adds a partners round up as the team scored it.
    page.click("button.check-deal", timeout=SHOWN_MS)
    page.wait_for_selector(".deal-check-verdict.holds", timeout=SHOWN_MS)


WILD_SHUFFLE_HANDS = 108
# The 112-card deck, with a Wild Customizable that makes everyone else draw a card.
MODERN = {"deck": "modern_112", "wild_customizable": "everyone_draws_one"}


def ann_opens_holding_the_shuffle(seats: int) -> int:
    """A seed of a one-round game of `seats` with the 112-card deck where Ann plays
    first, nothing pending, and holds the Wild Shuffle Hands."""
    config = GameConfig(seats, 0, deck="modern_112", wild_customizable="everyone_draws_one")
    for seed in range(10_000):
        state, _ = new_game(config, seed)
        opening = state.current == ANN and state.pending is None
        if opening and WILD_SHUFFLE_HANDS in state.hands[ANN]:
            return seed
    raise AssertionError("no seed deals that opening")


def until_ann_is_to_act(ann: Client, game_id: str, within: float = 20.0) -> dict[str, Any]:
    """The view once the bots have played round to Ann again: it holds still then."""
    deadline = time.monotonic() + within
    while (view := view_of(ann, game_id))["current_seat"] != ANN:
        assert time.monotonic() < deadline, "the bots never came round to Ann"
        time.sleep(0.05)
    return view


def cards_said(n: int) -> str:
    return "1 card" if n == 1 else f"{n} cards"


# What moves on the table from now on (web/motion.js draws it on its layer and takes
# it away within a second or two): the marks said, and how many cards flew face up.
WATCH_THE_MOTION = """() => {
  window.moved = {marks: [], faces: 0};
  new MutationObserver((changes) => {
    for (const added of changes.flatMap((change) => [...change.addedNodes])) {
      if (added.matches(".table-mark")) window.moved.marks.push(added.textContent);
      else if (added.matches(".card:not(.card-back)")) window.moved.faces += 1;
    }
  }).observe(document.querySelector(".motion-layer"), {childList: true});
}"""

SHOWN_TABLE = """() => ({
  hand: [...document.querySelectorAll(".hand .card")].map((b) => Number(b.dataset.card)),
  hidden: document.querySelectorAll(".hand .card.landing").length,
  counts: [...document.querySelectorAll(".felt .seat .seat-cards")].map((s) => s.textContent),
})"""


def test_a_wild_shuffle_hands_played_by_clicking_deals_every_hand_anew(
    service: Served, page: Any
) -> None:
    ann = ann_signed_up(service, page)
    seed = ann_opens_holding_the_shuffle(3)
    created = ann.post("/games", {"max_players": 3, "target_score": 0, "seed": seed, **MODERN})
    assert created.status == 201, created.body
    game_id = created.body["id"]
    for _ in range(2):
        assert ann.post(f"/games/{game_id}/bots", {"strategy": "greedy"}).status == 201
    assert ann.post(f"/games/{game_id}/start").status == 200
    page.goto(f"{service.url}/play/games/{game_id}")
    card = page.locator(f'.hand button.card.playable[data-card="{WILD_SHUFFLE_HANDS}"]')
    card.wait_for(timeout=SHOWN_MS)
    assert card.text_content().startswith("Play Wild Shuffle Hands")
    assert page.inner_text(".deck-note") == "★ Wild Customizable: everyone else draws a card."

    page.evaluate(WATCH_THE_MOTION)
    card.click()
    page.click('#choice-buttons button[data-value="green"]')
    page.wait_for_selector(".log li >> text=Ann (you) shuffled every hand", timeout=SHOWN_MS)

    events = ann.get(f"/games/{game_id}/events").body["events"]
    (shuffled,) = [e for e in events if e["type"] == "hands_shuffled"]
    assert shuffled["seat"] == ANN
    dealt = shuffled["data"]["hand"]
    assert len(dealt) == shuffled["data"]["counts"][ANN]
    # The shuffle showed as it happened: its mark over the middle, and her new hand
    # dealt to her face up (after the card she played, which flew to the pile).
    moved = page.evaluate("() => window.moved")
    assert "⟲ Hands shuffled" in moved["marks"]
    assert moved["faces"] >= 1 + len(dealt)
    view = until_ann_is_to_act(ann, game_id)
    page.wait_for_function(SETTLED, timeout=SHOWN_MS)
    expected = {
        "hand": sorted(c["id"] for c in view["you"]["hand"]),
        "hidden": 0,
        "counts": [cards_said(s["card_count"]) for s in view["seats"]],
    }
    page.wait_for_function(
        f"""(expected) => {{
          const shown = ({SHOWN_TABLE})();
          shown.hand.sort((a, b) => a - b);
          return JSON.stringify(shown) === JSON.stringify(expected);
        }}""",
        arg=expected,
        timeout=SHOWN_MS,
    )
    assert page.errors == []


WILD_CUSTOMIZABLES = (109, 110, 111)
# Whether the hand shown holds the cards `expected` (their ids, in order), whatever
# order it shows them in.
HAND_SHOWN_IS = """(expected) => JSON.stringify([...document.querySelectorAll(".hand .card")]
  .map((b) => Number(b.dataset.card)).sort((a, b) => a - b)) === JSON.stringify(expected)"""
CHOICE_BUTTONS = """() => [...document.querySelectorAll("#choice-buttons button")]
  .map((b) => [b.dataset.value, b.textContent])"""


def ann_opens_holding_a_customizable(effect: str) -> tuple[int, int]:
    """A seed of a one-round game of three with the 112-card deck whose Wild
    Customizable does `effect`, where Ann plays first, nothing pending, holding one;
    and that card."""
    config = GameConfig(3, 0, deck="modern_112", wild_customizable=effect)
    for seed in range(10_000):
        state, _ = new_game(config, seed)
        held = [c for c in state.hands[ANN] if c in WILD_CUSTOMIZABLES]
        if state.current == ANN and state.pending is None and held:
            return seed, held[0]
    raise AssertionError("no seed deals that opening")


@pytest.mark.parametrize("effect", ["discard_color", "swap_hands"])
def test_a_wild_customizable_asks_for_what_its_effect_needs(
    service: Served, page: Any, effect: str
) -> None:
    ann = ann_signed_up(service, page)
    seed, card = ann_opens_holding_a_customizable(effect)
    body = {"max_players": 3, "target_score": 0, "seed": seed, "deck": "modern_112"}
    game_id = ann.post("/games", {**body, "wild_customizable": effect}).body["id"]
    for _ in range(2):
        assert ann.post(f"/games/{game_id}/bots", {"strategy": "greedy"}).status == 201
    assert ann.post(f"/games/{game_id}/start").status == 200
    hand = view_of(ann, game_id)["you"]["hand"]
    page.goto(f"{service.url}/play/games/{game_id}")

    page.click(f'.hand button.card.playable[data-card="{card}"]', timeout=SHOWN_MS)
    page.wait_for_selector("#choice[open]")
    if effect == "discard_color":
        # The colour named is also the colour discarded: each says how many would go.
        assert page.inner_text("#choice-title") == (
            "Choose a colour: every card of it left in your hand is discarded too"
        )
        held = {c: sum(1 for h in hand if h["color"] == c) for c in COLORS if c}
        color = max(held, key=held.__getitem__)
        shown = dict(page.evaluate(CHOICE_BUTTONS))
        n = held[color]
        assert shown[color] == f"{color.title()} (discard {n} card{'s' if n > 1 else ''})"
        page.click(f'#choice-buttons button[data-value="{color}"]')
        page.wait_for_selector(".log li >> text=Ann (you) discarded", timeout=SHOWN_MS)
    else:
        # A colour, then whom to swap hands with.
        assert page.inner_text("#choice-title") == "Choose a colour"
        page.click('#choice-buttons button[data-value="blue"]')
        page.wait_for_selector("#choice-title >> text=Swap hands with")
        assert [label for _, label in page.evaluate(CHOICE_BUTTONS)] == [
            "Bot 2 (greedy)",
            "Bot 3 (greedy)",
        ]
        page.click('#choice-buttons button[data-value="2"]')
        page.wait_for_selector(
            ".log li >> text=Ann (you) swapped hands with Bot 3 (greedy)", timeout=SHOWN_MS
        )
    view = until_ann_is_to_act(ann, game_id)
    page.wait_for_function(
        HAND_SHOWN_IS, arg=sorted(c["id"] for c in view["you"]["hand"]), timeout=SHOWN_MS
    )
    assert page.errors == []


def test_the_lobby_creates_a_112_card_game_whose_table_says_what_its_wild_customizable_does(
    service: Served, page: Any
) -> None:
    page.goto(f"{service.url}/play/")
    sign_up(page, "Ann")
    page.click(".more-ways > summary")
    # The 112-card deck's options show only once it is chosen.
    assert not page.is_visible("#customizable")
    page.select_option("#deck", "modern_112")
    page.select_option("#customizable", "discard_color")
    page.select_option("#shuffle-last", "wins")
    accessible(page)
    page.select_option("#bots", "5")
    page.select_option("#strength", "greedy")
    page.fill("#target", "0")
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/games")) as sent:
        page.click("text=Create and start")
    body = json.loads(sent.value.post_data)
    assert (body["deck"], body["wild_customizable"], body["shuffle_hands_last_card"]) == (
        "modern_112",
        "discard_color",
        "wins",
    )
    page.wait_for_url("**/play/games/*", timeout=SHOWN_MS)
    page.wait_for_selector(".deck-note", timeout=SHOWN_MS)
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    view = view_of(service.client(token_of(page)), game_id)
    assert (view["deck"], view["wild_customizable"], view["shuffle_hands_last_card"]) == (
        "modern_112",
        "discard_color",
        "wins",
    )
    assert page.inner_text(".deck-note") == (
        "★ Wild Customizable: its player also discards every card of the colour named."
    )
    for size, viewport in (("phone", PHONE), ("desk", DESK)):
        fits(page, viewport)
        page.screenshot(path=str(artifacts_dir() / f"table-modern-deck-{size}.png"))
    accessible(page)
    assert page.errors == []
