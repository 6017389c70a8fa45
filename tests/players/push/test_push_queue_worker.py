"""Pushes on their own queue and worker, over Redis and PostgreSQL: while push
services redirect, drip a byte every 3 s and answer 300 MiB, each request is given
up within the deadline (the next device's request comes no later), no redirect is
followed, and a bot in another game answers a move in under a second throughout,
since bots never wait behind pushes. The one bound on time the acceptance asks for
is generous: a bot here answers in a few hundredths of a second."""

from __future__ import annotations

import itertools
import time

from django.db import transaction

from games.engine import GameState
from games.models import Event, Game, GameStatus
from players import push
from tests.factories import reload, seed_where, start_game
from tests.hostile_service import HostileService
from tests.players.push.test_outbound_delivery import register_at
from tests.players.push.test_webpush_delivery import notification
from tests.push_service import configure_push
from tests.workers import WITH_A_WORKER

pytestmark = WITH_A_WORKER

DEADLINE = 4.0
BOT_ANSWERS_WITHIN = 1.0
PATHS = ("1/drip", "huge", "redirect", "2/drip", "ok")


def state_of(game: Game) -> GameState:
    return GameState.from_snapshot(reload(game).state)


def test_hostile_push_services_hold_no_bot_and_each_request_ends_at_the_deadline(
    host, guest, outsider, push_service, celery_processes, monkeypatch, settings
):
    configure_push(monkeypatch, settings, PUSH_TIMEOUT_SECONDS=DEADLINE, PUSH_MAX_ATTEMPTS=1)
    hostile = HostileService(drip_seconds=3.0)
    players = (guest, outsider)
    try:
        for persona in players:
            for path in PATHS:
                register_at(persona, f"{hostile.origin}/push/{persona.player.pk}/{path}")
        procs = celery_processes(0.0)
        seed = seed_where(2, lambda s: s.to_act == 0 and s.pending is None)
        game = start_game(host, "greedy", seed=seed)
        # Two deliveries, one a push pool process: both busy with hostile answers.
        with transaction.atomic():
            for persona in players:
                push.deliver_on_commit(notification(persona))
        hostile.wait_for("drip")
        waits = []
        while len(waits) < 4 and reload(game).status == GameStatus.PLAYING:
            procs.wait_until(lambda: state_of(game).to_act == 0, "my turn", 30)
            view = host.get(f"/games/{game.pk}").json()
            answer = host.move(game.pk, view["version"], **view["you"]["legal_moves"][0])
            assert answer.status_code == 200, answer.json()
            moved = time.monotonic()
            after = answer.json()["game"]["last_seq"]
            if state_of(game).to_act == 1:
                answered = Event.objects.filter(game=game, seq__gt=after, seat=1)
                procs.wait_until(answered.exists, "the bot to answer", 30)
                waits.append(time.monotonic() - moved)
        procs.wait_until(lambda: hostile.hits["ok"] == 2, "both deliveries to end", 90)
    finally:
        hostile.stop()
    assert waits
    assert max(waits) < BOT_ANSWERS_WITHIN, waits
    assert hostile.hits["target"] == 0
    assert hostile.sent_bytes < 64 * 1024 * 1024
    for persona in players:
        # A delivery sends to its devices in turn: each request comes once the one
        # before was given up, within the deadline.
        mine = [at for path, at in hostile.arrivals if str(persona.player.pk) in path]
        assert len(mine) == len(PATHS)
        gaps = [later - earlier for earlier, later in itertools.pairwise(mine)]
        assert max(gaps) < DEADLINE + 2.0, gaps
