"""An operator ends a game through `game_abandon`: no winner, no timers, a logged
reason, and a log that still replays."""

from __future__ import annotations

import pytest

from games import replay, services
from games.models import Event, Game, GameStatus
from tests.factories import human_to_act_game, play_out, start_game
from unoservice.errors import WrongPhaseError

pytestmark = pytest.mark.django_db


def test_an_abandoned_game_stops_its_timers_and_logs_why(host, guest):
    game = human_to_act_game(host, guest)
    outcome = services.game_abandon(game_id=game.pk, reason="server maintenance")
    after = Game.objects.get(pk=game.pk)
    assert after.status == GameStatus.ABANDONED
    assert after.turn_deadline is None
    assert after.bot_due_at is None
    assert after.winner is None
    assert [(e.type, e.data) for e in outcome.events] == [
        ("game_abandoned", {"reason": "server maintenance"})
    ]
    replay.verify(after)


def test_a_finished_game_cannot_be_abandoned(host):
    game = play_out(start_game(host, "greedy", seed=40), {0: host})
    with pytest.raises(WrongPhaseError):
        services.game_abandon(game_id=game.pk, reason="too late")
    assert Event.objects.filter(game=game, type="game_abandoned").count() == 0


def test_a_timer_or_bot_turn_after_abandoning_does_nothing(host):
    game = start_game(host, "greedy", "greedy", seed=41)
    services.game_abandon(game_id=game.pk, reason="test")
    assert services.bot_act(game_id=game.pk, version=game.version + 1) is None
    assert services.turn_timeout_apply(game_id=game.pk, version=game.version + 1) is None
