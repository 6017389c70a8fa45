"""`manage.py bot_match`: a game among bots, hosted by a player who does not play."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from games.models import Event, Game, GameStatus

pytestmark = pytest.mark.django_db


def test_bot_match_starts_a_game_among_the_named_bots(sent_tasks):
    out = io.StringIO()
    call_command("bot_match", "greedy", "expert", "random", "--target-score", "0", stdout=out)
    game = Game.objects.get(pk=out.getvalue().strip())
    assert game.status == GameStatus.PLAYING
    assert [entry["bot"] for entry in game.seating] == ["greedy", "expert", "random"]
    assert all(entry["player"] is None for entry in game.seating)
    assert game.seat_of(game.host) is None
    assert game.host.name == "House"
    first = Event.objects.filter(game=game).order_by("seq").first()
    assert first is not None
    assert first.type == "bot_added"


def test_bot_match_reuses_the_hosting_player():
    call_command("bot_match", "greedy", "greedy", stdout=io.StringIO())
    call_command("bot_match", "greedy", "greedy", stdout=io.StringIO())
    hosts = set(Game.objects.values_list("host_id", flat=True))
    assert len(hosts) == 1


def test_bot_match_needs_at_least_two_bots():
    with pytest.raises(CommandError, match="2 to 10 bots"):
        call_command("bot_match", "greedy", stdout=io.StringIO())
    assert not Game.objects.exists()


def test_bot_match_refuses_an_unknown_strategy():
    with pytest.raises(CommandError):
        call_command("bot_match", "greedy", "clever", stdout=io.StringIO())
