"""Tables to talk at: a running game between the host and the guest, with free
text on or off."""

from __future__ import annotations

import pytest

from games.models import Game
from tests.factories import Persona, human_to_act_game, reload


def allow_free_text(game: Game, allowed: bool = True) -> Game:
    Game.objects.filter(pk=game.pk).update(free_text=allowed)
    return reload(game)


@pytest.fixture
def table(host: Persona, guest: Persona) -> Game:
    """The host and the guest at a running game, the host to act; free text off."""
    return allow_free_text(human_to_act_game(host, guest), False)


@pytest.fixture
def chatty(table: Game) -> Game:
    """`table` with free text allowed."""
    return allow_free_text(table)
