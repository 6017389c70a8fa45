"""Games the admin's tests look at: one played to its end, one still running."""

from __future__ import annotations

import pytest

from games.models import Game
from tests.factories import Persona, play_out, start_game


@pytest.fixture
def finished(host: Persona) -> Game:
    """The host's game with two bots, played to its end."""
    return play_out(start_game(host, "greedy", "random", seed=31), {0: host})


@pytest.fixture
def running(guest: Persona) -> Game:
    """The guest's game against an expert bot, just started."""
    return start_game(guest, "expert", seed=32)
