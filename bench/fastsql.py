"""CPU per call of the hand-built statements (unoservice/fastsql.py) against the ORM
calls they replace, on PostgreSQL.

    python -m bench.fastsql [--database-url postgres://...] [--calls 2000] [--repeats 7]

It recreates a local PostgreSQL database (default ``uno_bench_fastsql``; its name
must contain "bench", as it is dropped first), migrates it as bench/profile_move.py
does, makes a player and a running 4-player game through the services, then times
each statement every way: `--calls` calls in one transaction (rolled back), the
CPU time of this thread (``time.thread_time``: waiting for PostgreSQL left out),
the ways taking turns, `--repeats` times. It prints the median microseconds
per call of each way and each ORM way's ratio to the helper (ORM / helper).
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from bench.profile_move import django_for

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/uno_bench_fastsql"

# The fields a move writes (games.services.saving.commit_change, from commit_play).
MOVE_FIELDS = [
    "state",
    "turn_deadline",
    "bot_due_at",
    "status",
    "winner",
    "finished_at",
    "version",
    "last_seq",
    "updated_at",
]
# A move appends 1.4 events on average: one (a card played, a draw) or two (a card
# and a colour chosen, a penalty and a skipped turn, ...), rarely three or four.
EVENTS_PER_MOVE = (1, 2)

Call = Callable[[], object]


class _Rollback(Exception):
    pass


def cpu_per_call(call: Call, calls: int) -> float:
    """Microseconds of this thread's CPU per call, `calls` calls in one transaction
    that is then rolled back."""
    from django.db import transaction

    try:
        with transaction.atomic():
            started = time.thread_time()
            for _ in range(calls):
                call()
            elapsed = time.thread_time() - started
            raise _Rollback
    except _Rollback:
        pass
    return elapsed / calls * 1e6


def compare(ways: dict[str, Call], calls: int, repeats: int) -> dict[str, float]:
    """Median microseconds per call of each way, the ways taking turns."""
    samples: dict[str, list[float]] = {name: [] for name in ways}
    for call in ways.values():  # warm up: plans, statement caches
        cpu_per_call(call, max(calls // 10, 1))
    for _ in range(repeats):
        for name, call in ways.items():
            samples[name].append(cpu_per_call(call, calls))
    return {name: statistics.median(values) for name, values in samples.items()}


def fixtures() -> tuple[str, Any]:
    """A player's token and a running 4-player game, snapshot and all."""
    from games import services
    from players import services as player_services

    players = []
    tokens = []
    for name in ("Ann", "Bob", "Cid", "Dee"):
        player, token = player_services.player_create(name=name)
        players.append(player)
        tokens.append(token)
    game = services.game_create(
        host=players[0], max_players=4, target_score=0, turn_timeout=30, seed=7
    ).game
    for player in players[1:]:
        services.game_join(game_id=game.pk, player=player)
    game = services.game_start(game_id=game.pk, player=players[0]).game
    # More players, one of them waiting in a quick-match game.
    for n in range(9):
        players.append(player_services.player_create(name=f"P{n}")[0])
    services.match_find(player=players[-1], bots_after=None)
    return tokens[0], game


def raw_sql(model: Any, column: str, *, lock: bool = False) -> str:
    """The statement `fastsql.select_by` sends, with ``SELECT *`` for `raw()`."""
    from django.db import connection

    locking = " FOR UPDATE" if lock and connection.features.has_select_for_update else ""
    return f'SELECT * FROM "{model._meta.db_table}" WHERE "{column}" = %s{locking}'


def cases(token: str, game: Any) -> list[tuple[str, dict[str, Call]]]:
    from django.db import connection

    from games.models import Event, Game
    from players.models import Player, PlayerSession, Rating, hash_token
    from unoservice import fastsql

    seq = [game.last_seq]
    started_seq = game.last_seq  # the events of the start, which the inserts below follow

    def newest_orm() -> list[Event]:
        rows = Event.objects.filter(game_id=game.pk, seq__gt=0, seq__lte=started_seq)
        return list(reversed(rows.order_by("-seq")[:600]))

    def newest_helper() -> list[Event]:
        return fastsql.select_newest(
            Event, "game", game.pk, order="seq", after=0, upto=started_seq, limit=600
        )

    def events(count: int) -> list[Event]:
        at = game.updated_at
        rows = []
        for _ in range(count):
            seq[0] += 1
            data = {"card": 17, "from": "hand", "seat": 1, "left": 6}
            rows.append(Event(game=game, seq=seq[0], round=1, type="card_played", data=data, at=at))
        return rows

    def move_values() -> dict[str, Any]:
        game.version += 1
        game.updated_at = game.updated_at + dt.timedelta(microseconds=1)
        return {name: getattr(game, name) for name in MOVE_FIELDS}

    def update_orm() -> None:
        Game.objects.filter(pk=game.pk).update(**move_values())

    def update_save() -> None:
        move_values()
        game.save(update_fields=MOVE_FIELDS)

    def update_helper() -> None:
        move_values()
        fastsql.update_fields(game, MOVE_FIELDS)

    # The ratings of a 10-player game, as its end updates them (games.ratings.writes).
    rated = list(Player.objects.order_by("pk")[:10])
    ratings = [Rating(key=str(p.pk), player=p, mu=25.0, sigma=8.3, ordinal=0.1) for p in rated]
    Rating.objects.bulk_create(ratings)
    ratings = list(Rating.objects.order_by("key"))
    rating_keys = [r.key for r in ratings]
    rating_fields = ["mu", "sigma", "ordinal", "games", "updated_at"]

    def moved_ratings() -> list[Rating]:
        for row in ratings:
            row.mu += 0.01
            row.sigma -= 0.001
            row.ordinal = row.mu - 3 * row.sigma
            row.games += 1
            row.updated_at = game.updated_at
        return ratings

    token_hash = hash_token(token)
    waiting = {"status": "waiting", "match_key": "4:500:", "visibility": "public"}
    # A batch of quick-match requests locks the rows of its players (13 on average
    # under bench.matchmaking's crowd).
    player_ids = sorted(Player.objects.values_list("pk", flat=True))[:13]
    # raw() sends its parameters as they are: the key as the column stores it.
    game_key = Game._meta.get_field("id").get_db_prep_value(game.pk, connection)
    game_sql = raw_sql(Game, "id", lock=True)
    inserts: list[tuple[str, dict[str, Call]]] = [
        (
            f"insert {count} event{'s' if count > 1 else ''}",
            {
                "bulk_create": partial(lambda n: Event.objects.bulk_create(events(n)), count),
                "fastsql.insert_rows": partial(
                    lambda n: fastsql.insert_rows(Event, events(n)), count
                ),
            },
        )
        for count in EVENTS_PER_MOVE
    ]
    return [
        *inserts,
        (
            f"update {len(MOVE_FIELDS)} game fields",
            {
                "QuerySet.update": update_orm,
                "save(update_fields)": update_save,
                "fastsql.update_fields": update_helper,
            },
        ),
        (
            "lock the game row",
            {
                "select_for_update().get(pk)": lambda: Game.objects.select_for_update().get(
                    pk=game.pk
                ),
                "select_for_update().filter(pk).first()": lambda: (
                    Game.objects.select_for_update().filter(pk=game.pk).first()
                ),
                "objects.raw(same SQL)": lambda: next(iter(Game.objects.raw(game_sql, [game_key]))),
                "fastsql.select_by(lock=True)": lambda: fastsql.select_by(
                    Game, "id", game.pk, lock=True
                ),
            },
        ),
        (
            f"a game's newest events ({started_seq}, the start of a 4-player game)",
            {
                "filter().order_by()[:n]": newest_orm,
                "fastsql.select_newest": newest_helper,
            },
        ),
        (
            "lock the waiting quick-match games of a setting",
            {
                "select_for_update().filter().order_by()[:n]": lambda: list(
                    Game.objects.select_for_update()
                    .filter(**waiting)
                    .order_by("created_at", "id")[:10]
                ),
                "fastsql.select_where(lock=True)": lambda: fastsql.select_where(
                    Game, waiting, order_by=("created_at", "id"), limit=10, lock=True
                ),
            },
        ),
        (
            f"lock {len(player_ids)} players' rows",
            {
                "select_for_update().filter(pk__in)": lambda: list(
                    Player.objects.select_for_update()
                    .filter(pk__in=player_ids)
                    .order_by("pk")
                    .values_list("pk")
                ),
                "fastsql.lock_keys": lambda: fastsql.lock_keys(Player, player_ids),
            },
        ),
        (
            f"update the {len(ratings)} ratings of a 10-player game",
            {
                "bulk_update": lambda: Rating.objects.bulk_update(moved_ratings(), rating_fields),
                "fastsql.update_rows": lambda: fastsql.update_rows(
                    Rating, moved_ratings(), rating_fields
                ),
            },
        ),
        (
            f"lock the {len(ratings)} ratings of a 10-player game",
            {
                "select_for_update().filter(key__in)": lambda: list(
                    Rating.objects.select_for_update().filter(key__in=rating_keys).order_by("key")
                ),
                "fastsql.select_in(lock=True)": lambda: fastsql.select_in(
                    Rating, "key", rating_keys, order_by="key", lock=True
                ),
            },
        ),
        (
            "a session by its token hash, with its player",
            {
                "select_related(player).filter(token_hash).first()": lambda: (
                    PlayerSession.objects.select_related("player")
                    .filter(token_hash=token_hash)
                    .first()
                ),
                "fastsql.select_in_with": lambda: fastsql.select_in_with(
                    PlayerSession, "token_hash", [token_hash], "player"
                ),
            },
        ),
    ]


def report(title: str, medians: dict[str, float]) -> str:
    """The ways' medians, and each ORM way's ratio to the helper (the last way)."""
    *orm, (helper_name, helper) = medians.items()
    lines = [title]
    for name, micros in orm:
        lines.append(f"  {name:<40} {micros:8.1f} us  {micros / helper:4.2f}x the helper")
    lines.append(f"  {helper_name:<40} {helper:8.1f} us")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    with django_for(args.database_url):
        print(f"CPU per call, median of {args.repeats} x {args.calls} calls (PostgreSQL):")
        for title, ways in cases(*fixtures()):
            print(report(title, compare(ways, args.calls, args.repeats)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
