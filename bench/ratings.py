"""What rating a finished 10-player game adds to the move that ends it.

    python -m bench.ratings [--games 200] [--first-games 50] [--warmup 20] [--seed 1]
                            [--database-url postgres://...] [--profile 0] [--json]

It recreates a local PostgreSQL database (default ``uno_bench_ratings``), migrates it
with the benchmark server's settings (bench/serve.py) and, in this process, makes
10-player games through the services (create, nine joins, start), sets each one a
move before its end (the seat to act holds one playable card and the round takes it
past the game's target of 50 points, the others in distinct places), and times
`services.move_apply` of that last move: wall time and this process's CPU time.

Three kinds of game, interleaved in a shuffled order every round so that the noise
of a busy machine falls on each alike:

- ``unrated``: the game was created with ``rated=False``;
- ``rated``: ten of the same twenty players, whose ratings exist from their earlier
  games (the usual case): ``games.ratings.writes`` locks and updates ten Rating rows, counts
  the rated games of each pair of the ten (the repeat limit), logs ``game_rated`` and
  records the 45 pairs. Each game draws its ten anew, and its pairs are dated a day
  back before the next, untimed (`age_pairs`), so that the repeat limit never leaves a
  game unrated: the count reads index rows outside its window, as a service's past;
- ``rated_first``: ten new players each time, whose Rating rows that move creates.

It prints the median and 90th percentile of each kind, what rating adds (the
difference of the medians, rated - unrated) against the target of 5 ms, their ratio,
and each kind's statements (through Django), round trips (see `round_trips`) and
time waiting for PostgreSQL by statement, counted on a few more games after the
timed ones, so that counting costs the timed moves nothing. ``--profile N`` then
times the sections of N more rated and unrated ending moves (games.ratings.writes' steps,
the hand-built statements) and shows a cProfile of N rated ones. ``--json`` prints one
JSON object instead (the profile, if asked for, goes to stderr).

Exits 1 when a game did not end as its kind should: not finished, a rated one
without exactly one ``game_rated`` event or an unrated one with any, or its seats'
results not recorded as rated or unrated.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import math
import pstats
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from bench.profile_move import SqlTimer, django_for

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/uno_bench_ratings"
SEATS = 10
TARGET_MS = 5.0
TARGET_SCORE = 50
KINDS = ("unrated", "rated", "rated_first")
# Ending moves per kind run with the statement counter on, after the timed ones.
COUNTED = 10

# The winner goes out with R1 on R5; the others' hands are worth 9 to 17 points, so
# the round takes the winner past TARGET_SCORE from any score below it.
WINNING_CARD = "R1"
TOP = "R5"
LOSING_HANDS = (
    ("B4", "B5"),
    ("G4", "G5"),
    ("Y4", "Y5"),
    ("B6", "B7"),
    ("G6", "G7"),
    ("Y6", "Y7"),
    ("B8", "B9"),
    ("G8", "G9"),
    ("Y8", "Y9"),
)

# What `--profile` times, each call's wall and CPU time summed per move: (module,
# attribute), patched where the services and games.ratings.writes look them up at call time.
SECTIONS = (
    ("games.ratings.writes", "lock_ratings"),
    ("games.ratings.writes", "record"),
    ("games.ratings.writes", "rate"),
    ("games.ratings.writes", "_rated_data"),
    ("unoservice.fastsql", "insert_rows"),
    ("unoservice.fastsql", "select_in"),
    ("unoservice.fastsql", "update_rows"),
)

JSON_KEYS = (
    "seats",
    "games",
    "first_games",
    "unrated",
    "rated",
    "rated_first",
    "added_median_ms",
    "added_cpu_median_ms",
    "ratio",
    "first_added_median_ms",
    "target_ms",
    "under_target",
    "problems",
)


@dataclass
class Ending:
    """A game set one move before its end: who makes that move, and the move."""

    game_id: Any
    version: int
    player: Any
    move: Any


@dataclass
class Samples:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    rated_events: int = 0
    statements: list[str] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    round_trips: list[int] = field(default_factory=list)
    db_wait: dict[str, float] = field(default_factory=lambda: defaultdict(float))

    def figures(self) -> dict[str, Any]:
        counted = len(self.counts)
        return {
            "n": len(self.wall),
            "median_ms": median_ms(self.wall),
            "p90_ms": p90_ms(self.wall),
            "cpu_median_ms": median_ms(self.cpu),
            "cpu_p90_ms": p90_ms(self.cpu),
            "game_rated_events": self.rated_events,
            "statements": statistics.fmean(self.counts) if counted else None,
            "round_trips": statistics.fmean(self.round_trips) if counted else None,
            "statement_list": self.statements,
            "db_wait_ms": {
                label: round(seconds * 1000 / counted, 3)
                for label, seconds in sorted(self.db_wait.items(), key=lambda item: -item[1])
            }
            if counted
            else {},
        }


def median_ms(values: list[float]) -> float | None:
    return round(statistics.median(values) * 1000, 3) if values else None


def p90_ms(values: list[float]) -> float | None:
    """The nearest-rank 90th percentile, rounded as `median_ms` rounds (rounded to
    fewer places, a p90 could print below its median)."""
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[max(1, math.ceil(0.9 * len(ordered))) - 1] * 1000, 3)


def make_players(count: int, prefix: str) -> list[Any]:
    from players.services import player_create

    return [player_create(name=f"{prefix} {n}")[0] for n in range(count)]


def end_position(winner: int, seats: int = SEATS) -> Any:
    """Round 1 of a `seats`-player game to TARGET_SCORE, `winner` to act with
    WINNING_CARD, the last card of their hand; the others hold two cards and had
    scores all different and below the target, so the game ends with every place
    distinct, as a game of several rounds usually does."""
    from games.engine.position import build_state

    losers = iter(LOSING_HANDS)
    hands = [[WINNING_CARD] if seat == winner else list(next(losers)) for seat in range(seats)]
    scores = [4 * seat for seat in range(seats)]
    return build_state(hands, top=TOP, current=winner, target_score=TARGET_SCORE, scores=scores)


def ready(players: Sequence[Any], rated: bool, seed: int, winner: int) -> Ending:
    """A 10-player game of `players` (the first hosts) made and started through the
    services, then set one move before its end, `winner` to make it."""
    from games import services
    from games.engine import Move
    from games.engine.position import card_in_hand
    from games.models import Game

    host, *others = players
    game = services.game_create(
        host=host, max_players=len(players), target_score=TARGET_SCORE, seed=seed, rated=rated
    ).game
    for player in others:
        services.game_join(game_id=game.pk, player=player)
    started = services.game_start(game_id=game.pk, player=host).game
    state = end_position(winner, len(players))
    Game.objects.filter(pk=game.pk).update(state=state.to_snapshot())
    play = {"action": "play", "card": card_in_hand(state, winner, WINNING_CARD)}
    return Ending(game.pk, started.version, players[winner], Move.from_json(play))


def apply(ending: Ending) -> None:
    from games import services

    services.move_apply(
        game_id=ending.game_id, player=ending.player, version=ending.version, move=ending.move
    )


def end(ending: Ending) -> tuple[float, float]:
    """Make the ending move: (wall seconds, CPU seconds)."""
    # A collection set off by the setup's garbage would land in whichever move comes
    # next; each starts from a clean heap instead (cheap: see `settle`).
    gc.collect()
    started = time.perf_counter()
    cpu_started = time.process_time()
    apply(ending)
    return time.perf_counter() - started, time.process_time() - cpu_started


def age_pairs() -> None:
    """Date the pairs of the rated games so far a day back, untimed: twenty regulars
    meet far more often than the repeat limit lets any pair rate, and a day back their
    rows stay in the index the count reads, outside its window, as a service's past.
    Only the last game's are still recent: few rows each time."""
    import datetime as dt

    from django.db.models import F
    from django.utils import timezone

    from games.models import RatedPair

    recent = RatedPair.objects.filter(finished_at__gt=timezone.now() - dt.timedelta(hours=23))
    recent.update(finished_at=F("finished_at") - dt.timedelta(days=1))


def settle() -> None:
    """Move everything alive after the warm-up (Django, its caches, the players) out of
    the collector's reach: a full collection of it takes tens of milliseconds, which
    `end` would otherwise pay before every move."""
    gc.collect()
    gc.freeze()


class Sections:
    """Wall and CPU time of the SECTIONS, summed per move while patched in."""

    def __init__(self) -> None:
        self.moves: list[dict[str, list[float]]] = [{}]

    @contextmanager
    def patched(self) -> Iterator[None]:
        originals = []
        for module_name, name in SECTIONS:
            owner = resolve(module_name)
            original = getattr(owner, name)
            originals.append((owner, name, original))
            setattr(owner, name, self.timed(f"{module_name.rsplit('.', 1)[-1]}.{name}", original))
        try:
            yield
        finally:
            for owner, name, original in originals:
                setattr(owner, name, original)

    def timed(self, label: str, function: Callable[..., Any]) -> Callable[..., Any]:
        sections = self

        def call(*args: Any, **kwargs: Any) -> Any:
            # insert_rows is timed per model: the results' rows and the events'.
            named = label
            if label.endswith("insert_rows"):
                named = f"{label}({args[0].__name__})"
            started, cpu_started = time.perf_counter(), time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                times = sections.moves[-1].setdefault(named, [0.0, 0.0])
                times[0] += time.perf_counter() - started
                times[1] += time.process_time() - cpu_started

        return call

    def next_move(self) -> None:
        self.moves.append({})

    def labels(self) -> list[str]:
        return sorted({label for move in self.moves for label in move})

    def median(self, label: str) -> tuple[float, float]:
        """Median ms per move (wall, CPU) of `label`, 0 for a move that did not call it."""
        done = self.moves[:-1]
        walls = [move.get(label, [0.0, 0.0])[0] for move in done]
        cpus = [move.get(label, [0.0, 0.0])[1] for move in done]
        return statistics.median(walls) * 1000, statistics.median(cpus) * 1000


@contextmanager
def round_trips(counted: list[int]) -> Iterator[None]:
    """Count, into `counted[0]`, the round trips to PostgreSQL during the block.

    psycopg waits on the socket once per statement, with exceptions either way: the
    first statement of a transaction is preceded by its BEGIN (two round trips in one
    wait); in pipeline mode a statement is only queued (no round trip), and the
    pipeline's fetch and its closing Sync wait once each; switching autocommit on
    an idle connection sends nothing."""
    import psycopg
    from psycopg import pq

    original = psycopg.Connection.wait
    idle = pq.TransactionStatus.IDLE

    def wait(conn: Any, gen: Any, *args: Any, **kwargs: Any) -> Any:
        name = getattr(gen, "__qualname__", "")
        executes = name.endswith("._execute_gen")
        if executes and conn.pgconn.pipeline_status != pq.PipelineStatus.OFF:
            pass  # only queued: the pipeline's fetch or closing Sync waits for it
        elif executes and not conn.autocommit and conn.pgconn.transaction_status == idle:
            counted[0] += 2
        elif not name.endswith(("._set_autocommit_gen", "._enter_gen")):
            counted[0] += 1
        return original(conn, gen, *args, **kwargs)

    psycopg.Connection.wait = wait  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        psycopg.Connection.wait = original  # type: ignore[method-assign]


def resolve(dotted: str) -> Any:
    """The module, or the class in a module, that `dotted` names."""
    import importlib

    try:
        return importlib.import_module(dotted)
    except ModuleNotFoundError:
        module, name = dotted.rsplit(".", 1)
        return getattr(importlib.import_module(module), name)


def problems_of(ending: Ending, rated: bool) -> tuple[list[str], int]:
    """What is wrong with how the game of `ending` ended, and its game_rated events."""
    from games.models import Event, Game, GameStatus, Result

    game = Game.objects.get(pk=ending.game_id)
    found = []
    if game.status != GameStatus.FINISHED:
        found.append(f"game {game.pk} is {game.status}, not finished")
    events = Event.objects.filter(game_id=game.pk, type="game_rated").count()
    if events != (1 if rated else 0):
        kind = "rated" if rated else "unrated"
        found.append(f"{kind} game {game.pk} logged {events} game_rated events")
    results = Result.objects.filter(game_id=game.pk, rated=rated).count()
    if results != SEATS:
        found.append(f"game {game.pk} has {results} results with rated={rated}, not {SEATS}")
    return found, events


class Bench:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.regulars = make_players(2 * SEATS, "Regular")
        self.rounds = 0
        self.samples = {kind: Samples() for kind in KINDS}
        self.problems: list[str] = []

    def prepare(self, kind: str) -> tuple[Ending, bool]:
        rated = kind != "unrated"
        if kind == "rated_first":
            players = make_players(SEATS, "New")
        elif rated:
            age_pairs()
            players = self.rng.sample(self.regulars, SEATS)
        else:
            players = self.regulars[:SEATS]
        winner = self.rounds % SEATS
        return ready(players, rated, self.rng.getrandbits(31), winner), rated

    def one(self, kind: str, keep: bool) -> None:
        ending, rated = self.prepare(kind)
        wall, cpu = end(ending)
        found, events = problems_of(ending, rated)
        self.problems += found
        if keep:
            self.samples[kind].wall.append(wall)
            self.samples[kind].cpu.append(cpu)
            self.samples[kind].rated_events += events

    def run(self, games: int, first_games: int, keep: bool) -> None:
        for n in range(max(games, first_games)):
            kinds = [k for k in KINDS if n < (first_games if k == "rated_first" else games)]
            self.rng.shuffle(kinds)
            for kind in kinds:
                self.one(kind, keep)
                if self.problems:
                    return
            self.rounds += 1

    def count(self, kinds: Sequence[str]) -> None:
        """Statements and round trips of each kind's ending move, on games of their own."""
        from django.db import connection

        for _ in range(COUNTED):
            for kind in kinds:
                ending, rated = self.prepare(kind)
                timer = SqlTimer()
                trips = [0]
                with connection.execute_wrapper(timer), timer.waits(), round_trips(trips):
                    end(ending)
                self.problems += problems_of(ending, rated)[0]
                record = self.samples[kind]
                record.statements = timer.statements
                record.counts.append(len(timer.statements))
                record.round_trips.append(trips[0])
                for label, seconds in timer.by_statement.items():
                    record.db_wait[label] += seconds
            self.rounds += 1

    def profile(self, moves: int, top: int) -> str:
        """Where the rated ending move's time goes, over `moves` moves of each kind: the
        sections' times (medians per move), then cProfile's view of the rated ones."""
        timers = {kind: Sections() for kind in ("unrated", "rated")}
        for _ in range(moves):
            for kind, timer in timers.items():
                ending, rated = self.prepare(kind)
                with timer.patched():
                    end(ending)
                timer.next_move()
                self.problems += problems_of(ending, rated)[0]
            self.rounds += 1
        lines = [
            f"Sections of the ending move, ms per move (median of {moves}; a section"
            " includes those it calls):",
            f"  {'section':<34} {'unrated':>8} {'CPU':>7} {'rated':>8} {'CPU':>7}",
        ]
        for label in timers["rated"].labels():
            figures = [timers[kind].median(label) for kind in ("unrated", "rated")]
            lines.append(
                f"  {label:<34} " + " ".join(f"{wall:>8.3f} {cpu:>7.3f}" for wall, cpu in figures)
            )
        profile = cProfile.Profile()
        for _ in range(moves):
            ending, rated = self.prepare("rated")
            gc.collect()
            profile.enable()
            apply(ending)
            profile.disable()
            self.problems += problems_of(ending, rated)[0]
            self.rounds += 1
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(top)
        lines.append(
            f"\ncProfile of {moves} rated ending moves (wall time; the profiler inflates"
            " code of many small calls, as the ORM's):"
        )
        lines.append(out.getvalue())
        return "\n".join(lines)

    def result(self, games: int, first_games: int) -> dict[str, Any]:
        figures = {kind: self.samples[kind].figures() for kind in KINDS}
        unrated, rated, first = (figures[kind] for kind in KINDS)
        added = difference(rated["median_ms"], unrated["median_ms"])
        return {
            "seats": SEATS,
            "games": games,
            "first_games": first_games,
            **figures,
            "added_median_ms": added,
            "added_cpu_median_ms": difference(rated["cpu_median_ms"], unrated["cpu_median_ms"]),
            "ratio": (
                round(rated["median_ms"] / unrated["median_ms"], 3)
                if rated["median_ms"] and unrated["median_ms"]
                else None
            ),
            "first_added_median_ms": difference(first["median_ms"], unrated["median_ms"]),
            "target_ms": TARGET_MS,
            "under_target": added is not None and added < TARGET_MS,
            "problems": self.problems,
        }


def difference(a: float | None, b: float | None) -> float | None:
    return round(a - b, 3) if a is not None and b is not None else None


def text(result: dict[str, Any]) -> str:
    lines = [
        f"Ending move of a {result['seats']}-player game, services.move_apply in-process"
        f" ({result['games']} rated and unrated games, {result['first_games']} first-rated):",
        f"  {'kind':<12} {'n':>5} {'median ms':>10} {'p90 ms':>8} {'CPU med':>8} "
        f"{'CPU p90':>8} {'stmts':>6} {'trips':>6} {'rated ev':>8}",
    ]
    for kind in KINDS:
        k = result[kind]
        if not k["n"]:
            continue
        lines.append(
            f"  {kind:<12} {k['n']:>5} {k['median_ms']:>10.3f} {k['p90_ms']:>8.2f} "
            f"{k['cpu_median_ms']:>8.3f} {k['cpu_p90_ms']:>8.2f} "
            f"{k['statements'] or 0:>6.1f} {k['round_trips'] or 0:>6.1f} "
            f"{k['game_rated_events']:>8}"
        )
    verdict = "under" if result["under_target"] else "NOT under"
    lines += [
        f"\nRating adds (median rated - median unrated): {result['added_median_ms']} ms wall,"
        f" {result['added_cpu_median_ms']} ms CPU; ratio {result['ratio']}x",
        f"  {verdict} the target of {result['target_ms']} ms",
    ]
    if result["first_added_median_ms"] is not None:
        lines.append(
            f"  first rated game of all ten (rows created): +{result['first_added_median_ms']} ms"
        )
    lines.append(
        f"\nStatements of the ending move (through Django) and DB wait per move (ms, mean of"
        f" {COUNTED}; 'other': waits outside a statement, as the ratings pipeline's fetch):"
    )
    for kind in KINDS:
        k = result[kind]
        if k["statement_list"]:
            lines.append(f"  {kind}: {' | '.join(k['statement_list'])}")
            waits = ", ".join(f"{label} {ms:.3f}" for label, ms in k["db_wait_ms"].items())
            lines.append(f"    wait: {waits}")
    for problem in result["problems"]:
        lines.append(f"PROBLEM: {problem}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    assert __doc__ is not None
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="rated and unrated games each")
    parser.add_argument(
        "--first-games", type=int, default=50, help="games of ten players new to ratings"
    )
    parser.add_argument("--warmup", type=int, default=20, help="untimed rounds first")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="profile N moves")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with django_for(args.database_url):
        bench = Bench(args.seed)
        # At least one round: the regulars' first rated game makes their Rating rows,
        # which every timed rated game then finds.
        bench.run(max(1, args.warmup), min(1, args.first_games), keep=False)
        settle()
        if not bench.problems:
            bench.run(args.games, args.first_games, keep=True)
        if not bench.problems:
            bench.count([k for k in KINDS if k != "rated_first" or args.first_games])
        profiled = ""
        if args.profile and not bench.problems:
            profiled = bench.profile(args.profile, args.top)
        result = bench.result(args.games, args.first_games)
    if args.json:
        print(json.dumps(result))
        if profiled:
            print(profiled, file=sys.stderr)  # stdout stays one JSON object
    else:
        print(text(result))
        if profiled:
            print("\n" + profiled)
    return 1 if result["problems"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
