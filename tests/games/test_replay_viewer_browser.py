"""The replay viewer in a real browser: a staff member logs in to the admin, opens a
finished game's replay, steps forward, and sees the hands change as the events say.

Drives Debian's headless Chromium (never a downloaded browser) with Playwright, and
saves a screenshot of the viewer to ``artifacts/replay-viewer.png`` (or under
``$TEST_ARTIFACTS_DIR``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from games.models import Event, Game
from tests.browser import (
    artifacts_dir,
    chromium,
    log_in_to_the_admin,
    make_operator,
    wait_for_true,
)
from tests.factories import play_out, start_game

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def page(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    with chromium(monkeypatch) as browser:
        yield browser.new_page(viewport={"width": 1366, "height": 900})


def hands_on_screen(page: Any) -> dict[int, list[int]]:
    """Every hand the viewer shows, by seat, as card ids (each card carries its id)."""
    hands: dict[int, list[int]] = {}
    for row in page.locator("#hands tbody tr").all():
        seat = int(row.get_attribute("data-seat"))
        titles = row.locator("td.hand .uno-card").evaluate_all("cs => cs.map(c => c.title)")
        hands[seat] = [int(title.split()[-1]) for title in titles]
    return hands


@pytest.fixture
def finished(host: Any) -> tuple[Game, dict[int, Event]]:
    """The operator and a finished game with its log, made before the browser starts
    (see `make_operator`)."""
    make_operator()
    game: Game = play_out(start_game(host, "greedy", "random", seed=33), {0: host})
    return game, {e.seq: e for e in Event.objects.filter(game=game)}


def test_a_staff_member_steps_through_a_finished_game_in_the_browser(live_server, finished, page):
    game, events = finished
    # Start just before the first cards drawn after the deal, then step over a play too.
    drawn = next(seq for seq in sorted(events) if events[seq].type == "cards_drawn" and seq > 3)
    start = drawn - 1
    replay_path = f"/admin/games/game/{game.pk}/replay/?seq={start}"

    log_in_to_the_admin(page, live_server.url, then=replay_path)
    page.wait_for_selector("#hands")
    assert page.input_value("#seq") == str(start)

    steps = 0
    seq = start
    while steps < 6 and seq < game.last_seq:
        before = hands_on_screen(page)
        page.click("#next")
        wait_for_true(
            page, f"document.getElementById('seq')?.value === '{seq + 1}'", timeout_ms=5000
        )
        seq += 1
        steps += 1
        event = events[seq]
        assert page.get_attribute("#event", "data-type") == event.type
        after = hands_on_screen(page)
        if event.type == "cards_drawn":
            expected = dict(before)
            expected[event.seat] = before[event.seat] + event.data["cards"]
            assert after == expected, f"seq {seq}: the drawn cards are not in seat {event.seat}"
        elif event.type == "card_played":
            expected = dict(before)
            expected[event.seat] = [c for c in before[event.seat] if c != event.data["card"]]
            assert after == expected, f"seq {seq}: the played card is still in the hand"
            assert (
                page.get_attribute("#top-card .uno-card", "title") == f"card {event.data['card']}"
            )
        elif event.type not in ("hands_swapped", "round_started", "round_ended"):
            assert after == before, f"seq {seq}: {event.type} changed a hand"
    assert steps == 6

    screenshot = artifacts_dir() / "replay-viewer.png"
    page.screenshot(path=str(screenshot), full_page=True)
    assert screenshot.stat().st_size > 10_000
