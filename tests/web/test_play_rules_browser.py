"""The web client's table (/play/) in a real browser where the rules ask more of a
person than playing and drawing: under Seven-O a 7 asks whom to swap hands with and
a 0 passes every hand on; a forgotten UNO can be caught; and a seat a bot took after
the player's turns ran out can be taken back.

Ann plays in the page; Bob and Cat play through the API. The deals come from seeds
(the service runs with `CLIENT_SEEDS`), found here with the rules engine, which
deals and plays exactly as the service does, so that each test meets its situation
within a few turns. Saves a screenshot of the Seven-O choice to
``artifacts/play-seven-o.png`` (or under ``$TEST_ARTIFACTS_DIR``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from games.engine import GameConfig, Rules, apply, legal_moves, new_game, parse_move
from games.engine.cards import KIND_OF, NUMBER, NUMBER_OF
from tests.browser import SERVED_WITH_A_WORKER, artifacts_dir
from tests.served import Client, Served
from tests.web.pages import new_page, sign_up, token_of

pytestmark = SERVED_WITH_A_WORKER

ANN, BOB, CAT = 0, 1, 2
SEVEN_O = {"max_players": 3, "target_score": 0, "rules": {"seven_o": True}}
# Turns of the scripted game after the 7 and the 0 within which Bob forgets his UNO.
TURNS_TO_THE_CATCH = 30
SHOWN_WITHIN = 20.0
# A deal on which the bot does not go out before three of Ann's turns have run out.
SEED_FOR_THE_TIMEOUTS = 7


@pytest.fixture(scope="module")
def play_env() -> dict[str, str]:
    return {"CLIENT_SEEDS": "true"}


def number(card: int | None) -> int | None:
    """The number on a card, None for an action card or a move without a card."""
    return NUMBER_OF[card] if card is not None and KIND_OF[card] == NUMBER else None


def scripted(seat: int, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """The move a seat makes in the Seven-O game once the 7 and the 0 are down: Bob
    plays his first playable card that is neither a 7 nor a 0 (a 7 would give his
    hand away) and never says UNO; Ann and Cat only draw, keep what they drew and
    accept a Wild Draw Four, so that Bob alone comes down to one card."""
    by = {move["action"]: move for move in reversed(legal)}  # the first of each action
    for action in ("accept", "choose_color"):
        if action in by:
            return by[action]
    if seat == BOB:
        plays = [m for m in legal if m["action"] == "play" and number(m["card"]) not in (0, 7)]
        if plays:
            return plays[0]
    return by.get("pass") or by["draw"]


def engine_moves(state: Any, seat: int) -> list[dict[str, Any]]:
    return [move.to_json() for move in legal_moves(state, seat)]


def a_seven_o_seed() -> int:
    """A seed of the Seven-O game where Ann plays first and holds a 7 she can swap
    with Bob; Bob, with her hand, then holds a 0 he can play; and, played on as
    `scripted`, Bob plays his second-to-last card within `TURNS_TO_THE_CATCH` turns,
    without anyone else coming down to two cards."""

    def fits(seed: int) -> bool:
        state, _ = new_game(GameConfig(3, 0, Rules(seven_o=True)), seed)
        if KIND_OF[state.discard[-1]] != NUMBER or state.current != ANN:
            return False
        seven = [m for m in engine_moves(state, ANN) if m.get("target") == BOB]
        if not seven:
            return False
        apply(state, ANN, parse_move(seven[0]))
        zero = [m for m in engine_moves(state, BOB) if number(m.get("card")) == 0]
        if state.current != BOB or not zero:
            return False
        apply(state, BOB, parse_move(zero[0]))
        for _ in range(TURNS_TO_THE_CATCH):
            if any(m["action"] == "catch_uno" for m in engine_moves(state, ANN)):
                return True
            seat = state.to_act
            if seat is None:
                return False
            apply(state, seat, parse_move(scripted(seat, engine_moves(state, seat))))
            if min(len(state.hands[ANN]), len(state.hands[CAT])) <= 2:
                return False
        return False

    return next(seed for seed in range(100_000) if fits(seed))


# What Ann's page shows of the table (her hand's card ids in order of id: the page
# sorts the hand by colour).
SHOWN = """() => ({
  busy: document.querySelector(".table")?.getAttribute("aria-busy") === "true",
  hand: [...document.querySelectorAll(".hand .card")].map((b) => Number(b.dataset.card))
    .sort((a, b) => a - b),
  counts: [...document.querySelectorAll(".seats .seat-cards")].map((s) => s.textContent),
  actions: [...document.querySelectorAll(".actions button:not([disabled])")]
    .map((b) => b.dataset.key),
  log: [...document.querySelectorAll(".log li")].map((li) => li.textContent),
  resume: Boolean(document.querySelector('button[data-key="resume"]:not([disabled])')),
})"""


def shown_when(page: Any, condition: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
    """What the page shows once `condition` holds of it (the stream brings the
    table's changes a moment after they happen)."""
    deadline = time.monotonic() + SHOWN_WITHIN
    while True:
        shown = page.evaluate(SHOWN)
        if condition(shown):
            return shown
        assert time.monotonic() < deadline, f"the page never showed {what}: {shown}"
        page.wait_for_timeout(50)


def counts(view: dict[str, Any]) -> list[str]:
    return [
        f"{s['card_count']} card" + ("" if s["card_count"] == 1 else "s") for s in view["seats"]
    ]


def shows_the_table(page: Any, view: dict[str, Any], what: str) -> dict[str, Any]:
    """Wait until the page shows `view`'s hands: its own cards and every seat's count."""
    hand = sorted(card["id"] for card in view["you"]["hand"]) if view["you"] else []
    return shown_when(
        page,
        lambda s: not s["busy"] and s["counts"] == counts(view) and s["hand"] == hand,
        what,
    )


def to_act(view: dict[str, Any]) -> int:
    return int(view["pending"]["seat"] if view["pending"] else view["current_seat"])


def moved(client: Client, game_id: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = client.post(f"/games/{game_id}/moves", body)
    assert answer.status == 200, answer.body
    return dict(answer.body["game"])


def after_the_click(ann: Client, game_id: str, version: int) -> dict[str, Any]:
    """Ann's view once the move her click sent has reached the service."""
    deadline = time.monotonic() + SHOWN_WITHIN
    while (view := ann.get(f"/games/{game_id}").body)["version"] == version:
        assert time.monotonic() < deadline, "the click sent no move"
        time.sleep(0.05)
    return dict(view)


def seated(
    service: Served, page: Any, game: dict[str, Any], *others: str, bot: bool = False
) -> tuple[Any, ...]:
    """Ann (signed up in the page) hosts a game with `game`'s settings that `others`
    join through the API (with `bot`, a greedy bot); started, it opens in her page.
    Returns the game's id and the API clients of Ann and the others."""
    page.goto(f"{service.url}/play/")
    sign_up(page, "Ann")
    page.wait_for_selector("#your-games-title")
    ann = service.client(token_of(page))
    created = ann.post("/games", game)
    assert created.status == 201, created.body
    game_id = created.body["id"]
    clients = [service.client().sign_up(name) for name in others]
    for client in clients:
        assert client.post(f"/games/{game_id}/join").status == 200
    if bot:
        assert ann.post(f"/games/{game_id}/bots", {"strategy": "greedy"}).status == 201
    assert ann.post(f"/games/{game_id}/start").status == 200
    page.goto(f"{service.url}/play/games/{game_id}")
    return game_id, ann, *clients


def test_seven_o_asks_whom_to_swap_with_and_a_forgotten_uno_is_caught(
    service: Served, browser: Any
):
    page = new_page(browser)
    seed = a_seven_o_seed()
    game_id, ann, bob, cat = seated(service, page, {**SEVEN_O, "seed": seed}, "Bob", "Cat")
    players = {ANN: ann, BOB: bob, CAT: cat}

    def view(seat: int) -> dict[str, Any]:
        return dict(players[seat].get(f"/games/{game_id}").body)

    # Ann clicks her 7; the page asks whom she swaps hands with, and she picks Bob.
    table = view(ANN)
    seven = next(m for m in table["you"]["legal_moves"] if m.get("target") == BOB)
    bobs_hand = [card["id"] for card in view(BOB)["you"]["hand"]]
    shows_the_table(page, table, "Ann's first turn")
    page.click(f'.hand button.card.playable[data-card="{seven["card"]}"]')
    page.wait_for_selector("#choice[open]")
    assert page.inner_text("#choice-title") == "Swap hands with"
    assert page.locator("#choice-buttons button").all_inner_texts() == ["Bob", "Cat"]
    page.screenshot(path=str(artifacts_dir() / "play-seven-o.png"))
    page.click('#choice-buttons button:text-is("Bob")')
    table = after_the_click(ann, game_id, table["version"])
    assert [card["id"] for card in table["you"]["hand"]] == bobs_hand
    assert [s["card_count"] for s in table["seats"]] == [7, 6, 7]
    shows_the_table(page, table, "Bob's hand in Ann's")

    # Bob plays a 0: every hand moves on one seat, Cat's to Ann.
    cats_hand = [card["id"] for card in view(CAT)["you"]["hand"]]
    zero = next(m for m in view(BOB)["you"]["legal_moves"] if number(m.get("card")) == 0)
    moved(bob, game_id, zero)
    table = view(ANN)
    assert [card["id"] for card in table["you"]["hand"]] == cats_hand
    assert [s["card_count"] for s in table["seats"]] == [7, 7, 5]
    shown = shows_the_table(page, table, "Cat's hand in Ann's")
    assert "Ann (you) swapped hands with Bob." in shown["log"]
    assert "Bob passed every hand on." in shown["log"]

    # Played on, Bob comes down to one card without saying UNO; Ann's page offers
    # to catch him.
    for _ in range(TURNS_TO_THE_CATCH):
        table = view(ANN)
        if any(m["action"] == "catch_uno" for m in table["you"]["legal_moves"]):
            break
        seat = to_act(table)
        move = scripted(seat, view(seat)["you"]["legal_moves"])
        if seat != ANN:
            moved(players[seat], game_id, move)
            continue
        key = {"accept": "accept", "choose_color": "choose-color"}.get(move["action"])
        key = key or move["action"]
        shows_the_table(page, table, f"Ann's turn to {key}")
        page.click(f'.actions button[data-key="{key}"]')
        if key == "choose-color":
            page.click(f'#choice-buttons button[data-value="{move["color"]}"]')
        after_the_click(ann, game_id, table["version"])
    assert table["seats"][BOB]["card_count"] == 1
    assert not table["seats"][BOB]["said_uno"]
    shows_the_table(page, table, "Bob down to one card")
    page.click('.actions button[data-key="catch-1"]')

    # Bob draws the two cards of the penalty, as the API and Ann's log say.
    table = after_the_click(ann, game_id, table["version"])
    assert table["seats"][BOB]["card_count"] == 3
    shown = shows_the_table(page, table, "Bob's penalty")
    # The log reads oldest first: the penalty is its last line.
    assert shown["log"][-2:] == ["Ann (you) caught Bob without UNO: 2 cards.", "Bob drew 2 cards."]
    assert "catch-1" not in shown["actions"]
    assert page.errors == []


def test_a_player_takes_back_the_seat_a_bot_took_after_her_turns_ran_out(
    service: Served, browser: Any
):
    page = new_page(browser)
    game = {"max_players": 2, "target_score": 0, "turn_timeout": 5, "seed": SEED_FOR_THE_TIMEOUTS}
    game_id, ann = seated(service, page, game, bot=True)
    page.wait_for_selector(".hand .card", timeout=20_000)

    # Ann lets three turns run out: a bot takes her seat, and with no human left at
    # the table the game waits for her. Her page offers the seat back.
    shown = shown_when(page, lambda s: s["resume"], "the seat to take back")
    assert shown["hand"] == []
    table = ann.get(f"/games/{game_id}").body
    assert table["you"] is None
    assert table["seats"][ANN]["bot"] == "greedy"
    assert table["paused_until"] is not None
    assert page.is_visible("text=A bot plays your seat after your turns ran out.")

    # She takes it back: her hand and her moves come back to her page, and she plays.
    page.click('button[data-key="resume"]')
    shown = shown_when(
        page,
        lambda s: "Ann (you) is back." in s["log"] and "draw" in s["actions"],
        "Ann's hand and moves again",
    )
    assert not shown["resume"]
    table = ann.get(f"/games/{game_id}").body
    assert table["seats"][ANN]["bot"] is None
    assert shown["hand"] == sorted(card["id"] for card in table["you"]["hand"])
    page.click('.actions button[data-key="draw"]')
    after_the_click(ann, game_id, table["version"])
    events = ann.get(f"/games/{game_id}/events?after={table['last_seq']}").body["events"]
    drawn = next(e for e in events if e["type"] == "cards_drawn" and e["seat"] == ANN)
    (card,) = drawn["data"]["cards"]
    shown_when(page, lambda s: card["id"] in s["hand"], "the card Ann drew in her hand")
    assert page.errors == []
