"""Issuing a stream ticket (`services.stream_ticket_issue`) inserts its row without
reading the game again: the endpoint read it to check who may see it."""

from __future__ import annotations

import uuid

import pytest

from games import services
from games.models import StreamTicket
from tests.factories import Persona
from unoservice.errors import NotFound


@pytest.mark.django_db(transaction=True)
def test_a_ticket_for_a_game_that_is_not_there_is_not_found_and_leaves_no_row(
    host: Persona,
) -> None:
    with pytest.raises(NotFound):
        services.stream_ticket_issue(game_id=uuid.uuid4(), player=host.player)
    assert not StreamTicket.objects.exists()


@pytest.mark.django_db
def test_a_lobby_ticket_names_no_game(host: Persona) -> None:
    services.stream_ticket_issue(game_id=None, player=host.player)
    assert StreamTicket.objects.get().game_id is None
