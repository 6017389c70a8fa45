"""The events of timeouts, bots taking seats and pauses, read from the player's seat."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.unoclient.fakes import game_view
from unoclient.render import Painter, describe_event, final_scores, seconds_until, unrated_line

SEATS = [
    {"seat": 0, "player": {"id": "p", "name": "Ann"}, "bot": None},
    {"seat": 1, "player": None, "bot": "greedy"},
    {"seat": 2, "player": {"id": "q", "name": "Bob"}, "bot": None},
]


def line(kind: str, seat: int | None, **data: Any) -> str | None:
    event = {"seq": 9, "at": "", "round": 1, "type": kind, "seat": seat, "data": data}
    return describe_event(event, SEATS, 0, Painter(color=False))


@pytest.fixture
def utc_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_a_timeout_says_whose_turn_it_was_and_how_many_in_a_row():
    assert line("turn_timed_out", 0, timeouts=1) == "Your turn timed out (1 in a row)"
    assert line("turn_timed_out", 2, timeouts=2) == "Bob's turn timed out (2 in a row)"


def test_the_players_own_seat_handed_to_a_bot_says_so_and_how_to_take_it_back():
    assert line("seat_taken_by_bot", 0, strategy="greedy") == (
        "Your seat was handed to a greedy bot; type r and Enter to take it back"
    )
    assert line("seat_taken_by_bot", 2, strategy="greedy") == "A bot (greedy) takes seat 2"


def test_a_pause_names_the_time_of_day_it_lasts_until(utc_clock):
    until = "2030-01-01T12:34:56.789000+00:00"
    assert line("game_paused", None, until=until) == (
        "The game is paused until 12:34:56: nobody is at the table"
    )
    assert line("game_resumed", None) == "The game goes on"


def test_a_seat_taken_back_names_who_took_it():
    assert line("seat_resumed", 0, player={"id": "p", "name": "Ann"}) == "You took your seat back"
    bob = line("seat_resumed", 2, player={"id": "q", "name": "Bob"})
    assert bob == "Bob took seat 2 back"


def test_the_deadline_is_counted_in_whole_seconds_rounded_up():
    now = dt.datetime(2030, 1, 1, 12, 0, 0, tzinfo=dt.UTC)
    assert seconds_until("2030-01-01T12:00:29.200000+00:00", now) == 30
    assert seconds_until("2030-01-01T11:59:00+00:00", now) == 0
    assert seconds_until(None, now) is None


def test_the_final_scores_name_every_seat():
    view = game_view(9, scores=(0, 57))
    assert final_scores(view["seats"], 0) == "You 0, Bot 1 (greedy) 57"


def rated(seat: int, ordinal: float, change: float) -> dict[str, Any]:
    return {
        "seat": seat,
        "rated_as": str(seat),
        "rating": {"mu": ordinal + 9, "sigma": 3.0, "ordinal": ordinal, "games": 6},
        "change": {"mu": change, "sigma": -0.2, "ordinal": change},
    }


def test_the_end_of_a_rated_game_shows_the_players_rating_change_first():
    ratings = [rated(1, 4.25, -1.5), rated(0, 12.5, 2.04), rated(2, -3.0, -0.6)]
    assert line("game_rated", None, ratings=ratings) == (
        "Rated: Your rating 1250 (+204); Bot 1 (greedy) 425 (-150); Bob -300 (-60)"
    )


def test_a_game_between_people_that_moved_no_rating_says_why_when_they_can_act_on_it():
    unrated = {"rated": False, "unrated_reason": "same_network"}
    assert unrated_line(unrated) == ("Not rated: you and another player joined from one network.")
    assert unrated_line({"rated": False, "unrated_reason": "unrated_game"}) is None
    assert unrated_line({"rated": True, "unrated_reason": None}) is None
