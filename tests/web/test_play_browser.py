"""The web client (/play/) in a real browser: a new player signs up in the page,
creates a one-round game against three bots and plays it to the end only by clicking
what a person would click, the page following the bots' moves live from the game's
stream, and resuming it after the server process holding it shut down; then "Play
again" deals the next game against the same bots at once; a friend
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
import time
from typing import Any

from tests.browser import SERVED_WITH_A_WORKER, artifacts_dir
from tests.served import Client, Served
from tests.web.pages import (
    DESK,
    PHONE,
    Player,
    create,
    fits,
    new_page,
    play_to_the_end,
    sign_up,
    streams_opened,
    token_of,
)

pytestmark = SERVED_WITH_A_WORKER


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


def test_a_new_player_plays_a_round_against_three_bots_by_clicking(service: Served, page: Any):
    page.goto(f"{service.url}/play/")
    sign_up(page, "Ann")
    create(page, bots=3)
    page.wait_for_selector(".hand .card", timeout=20_000)
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    ann = Player(page)
    screenshots: list[str] = []
    resumed: list[str] = []

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
            opened = len(streams_opened(page))
            (worker,) = service.worker_pids()
            os.kill(worker, signal.SIGTERM)
            deadline = time.monotonic() + 30
            while len(streams_opened(page)) == opened:
                assert time.monotonic() < deadline, page.requests
                page.wait_for_timeout(100)
            resumed.append(streams_opened(page)[-1])

    play_to_the_end([ann], mid_game)
    assert "table" in screenshots
    (again,) = resumed
    assert "&after=" in again
    the_round_went_by_clicks(service.client(token_of(page)), game_id, 0, ann)
    fits(page, PHONE)
    page.screenshot(path=str(artifacts_dir() / "play-end.png"), full_page=True)

    # Back in the lobby, the game over is no longer among hers to go back to.
    page.click("text=Back to the lobby")
    page.wait_for_selector("#your-games-title")
    assert page.inner_text(".games-empty") == "You are in no game yet."

    # Back at the game's end, "Play again" deals the next game against the same bots
    # at once: no waiting room.
    page.go_back()
    page.click('button[data-key="rematch"]')
    page.wait_for_url(lambda url: game_id not in url and "/play/games/" in url, timeout=20_000)
    page.wait_for_selector(".hand .card", timeout=20_000)
    rematch_id = page.url.rstrip("/").rsplit("/", 1)[1]
    rematch = service.client(token_of(page)).get(f"/games/{rematch_id}").body
    assert rematch["status"] == "playing"
    assert [s["bot"] for s in rematch["seats"]] == [None, "greedy", "greedy", "greedy"]
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

    # The friend opens the link, which says whose game it is before he signs up,
    # signs up and lands at the table; the host sees him sit down without reloading.
    guest.goto(link)
    invitation = guest.locator(".invitation")
    invitation.wait_for(timeout=20_000)
    assert invitation.inner_text() == "Ann invites you to a game (2 of 3 seats taken)."
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
        page.click(".more-ways > summary")
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
