"""Bots and timers on a real Celery worker and beat, over Redis and PostgreSQL.

Each test starts its own worker (and beat) as subprocesses on the test database,
commits its changes, and waits for the worker to play. The waits are bounds on a
stall, never measures of speed.
"""

from __future__ import annotations

import time

from games import replay, services
from games.engine import GameState
from games.engine.cards import DECK_SIZE
from games.models import Event, Game, GameStatus
from tests.factories import reload, seed_where, start_game
from tests.workers import WITH_A_WORKER

pytestmark = WITH_A_WORKER


def state_of(game: Game) -> GameState:
    return GameState.from_snapshot(reload(game).state)


def assert_log_is_whole(game: Game) -> list[Event]:
    """Seqs gap-free, and the log re-made by the engine move by move from the seed:
    a bot turn applied twice or lost would not replay."""
    game = reload(game)
    events = list(Event.objects.filter(game=game).order_by("seq"))
    assert [e.seq for e in events] == list(range(1, game.last_seq + 1))
    replay.verify(game)
    return events


def test_after_the_humans_move_the_bots_play_until_it_is_the_humans_turn(host, celery_processes):
    procs = celery_processes(0.0)
    seed = seed_where(4, lambda s: s.to_act == 0 and s.pending is None)
    game = start_game(host, "greedy", "random", "expert", seed=seed)
    assert state_of(game).to_act == 0
    view = host.get(f"/games/{game.pk}").json()
    move = view["you"]["legal_moves"][0]
    answer = host.move(game.pk, view["version"], **move)
    assert answer.status_code == 200, answer.json()
    after_move = answer.json()["game"]["last_seq"]

    def humans_turn_again() -> bool:
        current = reload(game)
        return current.status != GameStatus.PLAYING or (
            current.version > view["version"] + 1 and state_of(game).to_act == 0
        )

    procs.wait_until(humans_turn_again, "the bots did not hand the turn back", 60)
    events = assert_log_is_whole(game)
    by_bots = {e.seat for e in events[after_move:] if e.seat is not None and e.seat != 0}
    assert by_bots  # the bots moved, through the worker
    if reload(game).status == GameStatus.PLAYING:
        time.sleep(1.0)  # a bot that wrongly played on would show up now
        assert state_of(game).to_act == 0
        assert reload(game).last_seq == events[-1].seq


def test_four_bots_play_a_game_to_the_end_unattended(host, celery_processes):
    procs = celery_processes(0.0)
    game = services.bot_match_start(
        host=host.player,
        strategies=["greedy", "random", "expert", "greedy"],
        target_score=0,
        seed=2024,
    ).game
    procs.wait_until(lambda: reload(game).status == GameStatus.FINISHED, "no end", 120)
    events = assert_log_is_whole(game)
    finished = reload(game)
    assert finished.winner is not None
    assert [e.type for e in events].count("game_ended") == 1
    assert events[-1].type == "game_ended"
    assert finished.bot_due_at is None
    assert finished.turn_deadline is None


def test_a_five_second_turn_timeout_fires_and_is_applied_once(host, guest, celery_processes):
    procs = celery_processes(0.0)
    seed = seed_where(2, lambda s: s.to_act == 0 and s.pending is None)
    game = start_game(host, guest, seed=seed, turn_timeout=5)
    deadline = reload(game).turn_deadline
    assert deadline is not None

    def timed_out() -> bool:
        return Event.objects.filter(game=game, type="turn_timed_out").exists()

    procs.wait_until(timed_out, "the timeout was not applied", 15)
    (event,) = Event.objects.filter(game=game, type="turn_timed_out")
    assert event.seat == 0
    assert event.data == {"timeouts": 1}
    assert event.at >= deadline
    # Both the countdown and later sweeps have had their chance to apply it again.
    time.sleep(3.0)
    assert Event.objects.filter(game=game, type="turn_timed_out").count() == 1
    now_playing = reload(game)
    assert now_playing.turn_deadline is not None
    assert now_playing.turn_deadline > deadline
    assert_log_is_whole(game)


def test_a_killed_worker_loses_no_bot_turn_and_doubles_none(host, celery_processes):
    procs = celery_processes(0.05)
    game = services.bot_match_start(
        host=host.player, strategies=["greedy"] * 4, target_score=0, seed=77
    ).game
    procs.wait_until(lambda: reload(game).last_seq >= 25, "the bots did not start", 60)
    procs.kill_worker()  # SIGKILL to the whole worker, with bot turns under way
    at_kill = reload(game)
    assert at_kill.status == GameStatus.PLAYING
    time.sleep(0.5)
    assert reload(game).version == at_kill.version  # nothing else plays
    procs.start_worker()
    procs.wait_until(lambda: reload(game).status == GameStatus.FINISHED, "no end", 120)
    events = assert_log_is_whole(game)
    assert [e.type for e in events].count("game_ended") == 1
    final = state_of(game)
    cards = [c for hand in final.hands for c in hand] + final.draw_pile + final.discard
    assert sorted(cards) == list(range(DECK_SIZE))
