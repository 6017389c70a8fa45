"""Bots and timers on a real worker: bot reaction time and timeout lateness.

    python -m bench.timers --spawn [--samples 300] [--timeout-games 40] [--json]

Migrates and uses the configured database and broker (``DATABASE_URL``, ``CELERY_BROKER_URL``:
PostgreSQL and Redis for meaningful figures). With ``--spawn`` it starts a Celery
worker (2 processes) and beat on them with ``BOT_THINK_SECONDS=0`` (and no round
break) and stops them at the end; without it, a worker and beat must be running with
that setting.

1. Reaction. Two-player games, a human (played by this process through the same
   service as the API) against one bot of each strategy named with ``--strategies``.
   Each sample starts when the human's move commits and ends when the bot's move
   is seen committed (the game's version is polled every 0.5 ms). Prints p50, p99
   and max per strategy.
2. Timeouts. ``--timeout-games`` two-human games with a 5-second turn timeout whose
   players never move, started over a few seconds; their countdown tasks are
   dropped by this process, so only the beat sweeper can apply the timeouts.
   Lateness is the applied timeout's time minus its deadline. The same is measured
   with the countdown in place. The games are then left (abandoned).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

import django

BASE_DIR = Path(__file__).resolve().parent.parent
TIMEOUT_SECONDS = 5
MAX_WAIT = 30.0  # seconds any single wait may take before the bench gives up


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Workers:
    """A Celery worker and beat as subprocesses, with no bot think time."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="bench-timers-"))
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self) -> None:
        env = {**os.environ, "BOT_THINK_SECONDS": "0", "ROUND_BREAK_SECONDS": "0"}
        commands = [
            [
                "worker",
                "--loglevel=WARNING",
                "--concurrency=2",
                "--without-gossip",
                "--without-mingle",
                "--hostname",
                f"bench-{os.getpid()}@%h",
            ],
            ["beat", "--loglevel=WARNING", "--schedule", str(self.folder / "beat-schedule")],
        ]
        for argv in commands:
            log = (self.folder / f"{argv[0]}.log").open("wb")
            self.processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", "celery", "-A", "unoservice", *argv],
                    cwd=BASE_DIR,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


def wait_until(what: str, predicate: Any, *args: Any) -> None:
    limit = time.monotonic() + MAX_WAIT
    while not predicate(*args):
        if time.monotonic() > limit:
            raise SystemExit(f"bench.timers: {what} not within {MAX_WAIT} s; is a worker running?")
        time.sleep(0.0005)


def reaction(strategy: str, samples: int, rng: random.Random) -> list[float]:
    """Milliseconds from each human move committed to the bot's answer committed."""
    from django.db import connection, transaction

    from games import bots, services
    from games.engine import SEED_BITS, GameState, player_view
    from games.models import Game, GameStatus
    from players.services import player_create

    human, _ = player_create(name="bench human")
    table = Game._meta.db_table

    def version_above(game_id: Any, version: int) -> bool:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT version FROM {table} WHERE id = %s", [game_id])
            row = cursor.fetchone()
        return int(row[0]) > version

    def settled(game_id: Any) -> bool:
        """The game is over, or the human is to act and no bot is due."""
        fresh = Game.objects.get(pk=game_id)
        if fresh.status != GameStatus.PLAYING:
            return True
        return GameState.from_snapshot(fresh.state).to_act == 0 and fresh.bot_due_at is None

    def new_game() -> Game:
        game = services.game_create(
            host=human, max_players=2, target_score=0, seed=rng.getrandbits(SEED_BITS)
        ).game
        services.game_add_bot(game_id=game.pk, player=human, strategy=strategy)
        return services.game_start(game_id=game.pk, player=human).game

    times: list[float] = []
    game = new_game()
    while len(times) < samples:
        wait_until("the bot's turn", settled, game.pk)
        game = Game.objects.get(pk=game.pk)
        if game.status != GameStatus.PLAYING:
            game = new_game()
            continue
        state = GameState.from_snapshot(game.state)
        move = bots.choose("greedy", player_view(state, 0), rng) or state_first_move(state)
        committed: list[float] = []
        with transaction.atomic():
            transaction.on_commit(partial(mark, committed))
            outcome = services.move_apply(
                game_id=game.pk, player=human, version=game.version, move=move
            )
        version = outcome.game.version
        if outcome.game.status != GameStatus.PLAYING or not outcome.game.bot_due_at:
            continue  # the human moves again (a skip, a reverse, a drawn card to keep)
        wait_until("the bot's move", version_above, game.pk, version)
        times.append((time.perf_counter() - committed[0]) * 1000)
    return times


def mark(times: list[float]) -> None:
    times.append(time.perf_counter())


def state_first_move(state: Any) -> Any:
    from games.engine import legal_moves

    return legal_moves(state, 0)[0]


def timeout_lateness(games: int, *, drop_countdown: bool, rng: random.Random) -> list[float]:
    """Milliseconds from each game's first deadline to its timeout being applied."""
    from games import dispatch, services
    from games.engine import SEED_BITS
    from games.models import Event, Game
    from players.services import player_create

    real_send = dispatch.send

    def send(name: str, args: list[object], **options: Any) -> None:
        if drop_countdown and name == dispatch.TURN_TIMEOUT:
            return  # as if the countdown task were lost
        real_send(name, args, **options)

    dispatch.send = send  # type: ignore[assignment]
    try:
        started = []
        for _ in range(games):
            host, _ = player_create(name="bench host")
            guest, _ = player_create(name="bench guest")
            game = services.game_create(
                host=host,
                max_players=2,
                target_score=0,
                turn_timeout=TIMEOUT_SECONDS,
                seed=rng.getrandbits(SEED_BITS),
            ).game
            services.game_join(game_id=game.pk, player=guest)
            game = services.game_start(game_id=game.pk, player=host).game
            started.append((game, host, guest))
            time.sleep(rng.uniform(0, 4.0 / games))  # deadlines spread over the sweeps
    finally:
        dispatch.send = real_send  # type: ignore[assignment]
    lateness: list[float] = []
    for game, _host, _guest in started:
        deadline = game.turn_deadline
        assert deadline is not None
        timed_out = Event.objects.filter(game=game, type="turn_timed_out")
        wait_until("a timeout", timed_out.exists)
        event = timed_out.order_by("seq").first()
        assert event is not None
        lateness.append((event.at - deadline).total_seconds() * 1000)
    for game, host, guest in started:
        for player in (host, guest):
            if Game.objects.get(pk=game.pk).status == "playing":
                services.game_leave(game_id=game.pk, player=player)
    return lateness


def summary(values: list[float]) -> dict[str, float]:
    return {
        "samples": len(values),
        "p50_ms": round(statistics.median(values), 1),
        "p99_ms": round(percentile(values, 0.99), 1),
        "max_ms": round(max(values), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spawn", action="store_true", help="start a worker and beat")
    parser.add_argument("--samples", type=int, default=300, help="bot moves per strategy")
    parser.add_argument("--strategies", nargs="+", default=["greedy", "expert"])
    parser.add_argument("--timeout-games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "unoservice.settings")
    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    settings.BOT_THINK_SECONDS = 0.0
    settings.ROUND_BREAK_SECONDS = 0.0
    rng = random.Random(args.seed)
    workers = Workers()
    if args.spawn:
        workers.start()
    try:
        report: dict[str, Any] = {"reaction": {}, "timeout_lateness": {}}
        for strategy in args.strategies:
            report["reaction"][strategy] = summary(reaction(strategy, args.samples, rng))
        if args.timeout_games:
            for label, drop in (("countdown_lost", True), ("countdown", False)):
                lateness = timeout_lateness(args.timeout_games, drop_countdown=drop, rng=rng)
                report["timeout_lateness"][label] = summary(lateness)
    finally:
        workers.stop()
    if args.json:
        print(json.dumps(report))
        return 0
    print("bot reaction, human move committed -> bot move committed (think time 0):")
    for strategy, row in report["reaction"].items():
        print(
            f"  {strategy:<7} {row['samples']} moves: p50 {row['p50_ms']} ms, "
            f"p99 {row['p99_ms']} ms, max {row['max_ms']} ms"
        )
    for label, row in report["timeout_lateness"].items():
        print(
            f"timeout applied after its deadline ({label.replace('_', ' ')}): "
            f"{row['samples']} games, p50 {row['p50_ms']} ms, p99 {row['p99_ms']} ms, "
            f"max {row['max_ms']} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
