"""The privacy policy (`games.privacy.sight`) judges plain values, no request: who
reads, whether staff, and the code they sent."""

from __future__ import annotations

import pytest

from games.privacy import Sight, sight
from tests.factories import Persona, seat_table

pytestmark = pytest.mark.django_db


def test_a_public_game_is_seen_by_anyone_whatever_code_they_send(host: Persona, outsider):
    game = seat_table(host)
    assert sight(game, player=outsider.player, staff=False, code="WRONG999") is Sight.SEEN
    assert sight(game, player=None, staff=False, code=None) is Sight.SEEN


def test_a_private_game_is_seen_by_its_players_and_staff_without_a_code(host, guest, outsider):
    game = seat_table(host, guest, visibility="private")
    assert sight(game, player=guest.player, staff=False, code=None) is Sight.SEEN
    assert sight(game, player=outsider.player, staff=True, code=None) is Sight.SEEN
    assert sight(game, player=None, staff=True, code=None) is Sight.SEEN


def test_to_anyone_else_a_private_game_is_hidden_or_judged_by_the_code_they_sent(
    host: Persona, outsider: Persona
):
    game = seat_table(host, visibility="private")
    assert game.invite_code is not None
    reader = outsider.player
    assert sight(game, player=reader, staff=False, code=None) is Sight.HIDDEN
    assert sight(game, player=reader, staff=False, code="") is Sight.HIDDEN
    assert sight(game, player=reader, staff=False, code="ZZZZ9999") is Sight.WRONG_CODE
    typed = f"{game.invite_code[:4].lower()}-{game.invite_code[4:]}"
    assert sight(game, player=reader, staff=False, code=typed) is Sight.RIGHT_CODE
