"""The web client's screens at a desk's size (1400x900) and a phone's (390x844): the
sign-up form and the lobby, and a game of two humans, Ann in the page and Bob through
the API, dealt from a seed chosen so that Bob opens with a Wild Draw Four while Ann
holds a wild and a Reverse: the challenge it puts to Ann, the hand it reveals to her
alone once she challenges, the table mid-round after the +4 and her Reverse, a
wild's colour choice, the round's end over the table, and the game's end.

Each screen is saved as ``artifacts/screen-<what>-<desk|phone>.png`` (or under
``$TEST_ARTIFACTS_DIR``) and checked at both sizes: nothing scrolls sideways or lies
outside the viewport, and the page logged no error. axe-core (pinned in
tests/clients/package.json, installed by ``npm ci --prefix tests/clients``) runs in
the page on each of them, and finds no serious or critical violation.
"""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import CARDS, GameConfig, new_game
from tests.browser import SERVED_WITH_A_WORKER, artifacts_dir
from tests.served import Client, Served
from tests.web.pages import (
    DESK,
    PHONE,
    accessible,
    ann_and_bob,
    fits,
    on_the_pile,
    play_until,
    sign_up,
    view_of,
)

pytestmark = SERVED_WITH_A_WORKER

SHOWN_MS = 20_000
ANN, BOB = 0, 1  # the host sits at seat 0, the one who joins next at seat 1
# Points to win: more than a first round of two scores, so that a round ends first.
TARGET = 100


@pytest.fixture(scope="module")
def play_env() -> dict[str, str]:
    """The service takes a game's seed from its creator, so the deal is known."""
    return {"CLIENT_SEEDS": "true"}


def kind(card: int) -> str:
    return CARDS[card].kind


def opening_seed() -> int:
    """The first seed whose deal, in a game of two, has Bob to play first with a Wild
    Draw Four in his hand while Ann holds a wild of either kind and a Reverse."""
    config = GameConfig(2, TARGET)
    for seed in range(10_000):
        state, _ = new_game(config, seed)
        bob_has_one = any(kind(c) == "wild_draw_four" for c in state.hands[BOB])
        ann_has_one = any(kind(c).startswith("wild") for c in state.hands[ANN])
        ann_has_both = ann_has_one and any(kind(c) == "reverse" for c in state.hands[ANN])
        if state.current == BOB and state.pending is None and bob_has_one and ann_has_both:
            return seed
    raise AssertionError("no seed deals that opening")


def move(client: Client, game_id: str, body: dict[str, Any]) -> None:
    answer = client.post(f"/games/{game_id}/moves", body)
    assert answer.status == 200, (body, answer.body)


def screen(page: Any, what: str) -> None:
    """Save the screen at both sizes, each laid out within its viewport, and go back
    to the desk's size."""
    for size, viewport in (("desk", DESK), ("phone", PHONE)):
        fits(page, viewport)
        page.screenshot(path=str(artifacts_dir() / f"screen-{what}-{size}.png"), full_page=True)
    fits(page, DESK)


def test_the_sign_up_form_and_the_lobby_fit_both_screens_and_are_accessible(
    service: Served, page: Any
):
    page.goto(f"{service.url}/play/")
    page.wait_for_selector("#name")
    screen(page, "signup")
    accessible(page)

    sign_up(page, "Ann")
    page.wait_for_selector("#your-games-title", timeout=SHOWN_MS)
    screen(page, "lobby")
    accessible(page)
    assert page.errors == []


def test_a_challenge_the_table_a_colour_choice_a_round_s_end_and_the_game_s_end_fit_both_screens(
    service: Served, page: Any
):
    game_id, ann, bob = ann_and_bob(service, page, target=TARGET, seed=opening_seed())
    page.wait_for_selector(".hand .card", timeout=SHOWN_MS)

    # Bob opens with his Wild Draw Four: Ann's table offers to challenge or accept it.
    bobs = view_of(bob, game_id)
    assert bobs["current_seat"] == BOB
    (four, *_) = [
        m
        for m in bobs["you"]["legal_moves"]
        if m["action"] == "play" and kind(m["card"]) == "wild_draw_four"
    ]
    move(bob, game_id, four)
    page.wait_for_selector('.actions button[data-key="challenge"]', timeout=SHOWN_MS)
    assert page.is_visible('.actions button[data-key="accept"]')
    assert "Bob played a Wild Draw Four" in page.inner_text("#challenge-prompt")
    screen(page, "challenge")
    accessible(page)

    # Ann challenges; Bob's hand is shown to her alone, in her log.
    page.click('.actions button[data-key="challenge"]')
    page.wait_for_selector('.log li:has-text("Bob\'s hand:")', timeout=SHOWN_MS)
    screen(page, "reveal")
    accessible(page)

    # Play goes on, Ann keeping her wild and playing a Reverse as soon as she can,
    # until her Reverse has given her another turn: the table after a +4 and a Reverse.
    (wild, *_) = [c["id"] for c in view_of(ann, game_id)["you"]["hand"] if c["color"] is None]
    players = [ann, bob]
    now = play_until(
        players,
        game_id,
        lambda v: (
            v["current_seat"] == ANN and v["pending"] is None and v["top_card"]["kind"] == "reverse"
        ),
        keeping=wild,
        prefer=("reverse",),
    )
    page.wait_for_selector(f'.pile [data-card="{now["top_card"]["id"]}"]', timeout=SHOWN_MS)
    wild_button = f'.hand button.card.playable[data-card="{wild}"]'
    assert page.is_visible(wild_button)
    screen(page, "table")
    accessible(page)

    # She clicks her wild: the colour dialog opens over the table.
    page.click(wild_button)
    page.wait_for_selector("#choice[open] #choice-buttons button", timeout=SHOWN_MS)
    screen(page, "wild")
    accessible(page)
    page.click("#choice-buttons button")
    on_the_pile(ann, game_id, wild)

    # The round is played out: its end opens over the table.
    now = play_until(players, game_id, lambda v: v["round"] >= 2 or v["status"] != "playing")
    assert now["status"] == "playing", "the first round ended the game"
    page.wait_for_selector("dialog.round-end[open]", timeout=SHOWN_MS)
    screen(page, "round-end")
    accessible(page)
    page.click('dialog.round-end button[data-key="next-round"]')

    # The game is played out: its end, with the places and the totals.
    play_until(players, game_id, lambda v: v["status"] == "finished")
    page.wait_for_selector(".results.over .winner", timeout=SHOWN_MS)
    # No round's end is left over the game's.
    assert page.evaluate("() => document.querySelector('dialog.round-end').open") is False
    screen(page, "over")
    accessible(page)
    assert page.errors == []
