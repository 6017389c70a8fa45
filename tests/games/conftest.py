"""Games the admin's tests look at: one played to its end, one still running; and the
production server, for the tests that attack it from outside (`tests.served`)."""

from __future__ import annotations

import pytest

from games.models import Game
from tests.factories import Persona, play_out, start_game
from tests.served import served, served_process  # noqa: F401  (registers the fixtures)


@pytest.fixture
def finished(host: Persona) -> Game:
    """The host's game with two bots, played to its end."""
    return play_out(start_game(host, "greedy", "random", seed=31), {0: host})


@pytest.fixture
def running(guest: Persona) -> Game:
    """The guest's game against an expert bot, just started."""
    return start_game(guest, "expert", seed=32)
