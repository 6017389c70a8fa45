"""The hand-built statements write and read exactly what the ORM calls they replace
would, and lock rows as ``select_for_update()`` does."""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
import time_machine
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Model

from games.models import Event, Game, GameStatus
from players.models import Player, PlayerSession, Rating, hash_token
from tests.factories import GameFactory, Persona, PlayerFactory, human_to_act_game
from unoservice import fastsql

T = TypeVar("T")

NOW = dt.datetime(2025, 3, 14, 15, 9, 26, 535897, tzinfo=dt.UTC)
JOIN_TIMEOUT = 30
BLOCKED_WITHIN = 10.0


def columns(model: type[Model], instance: Model) -> dict[str, Any]:
    return {f.attname: getattr(instance, f.attname) for f in model._meta.concrete_fields}


def stored(rows: Any, *without: str) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k not in without} for row in rows]


def events_of(game: Game) -> list[Event]:
    """Events with every kind of value: nested JSON, NULLs, microseconds."""
    return [
        Event(game=game, seq=1, round=None, type="player_joined", seat=0, data={}, at=NOW),
        Event(
            game=game,
            seq=2,
            round=3,
            type="card_played",
            seat=None,
            data={"card": 17, "hands": [[1, 2], []], "note": "é\u2603", "ok": True, "x": None},
            at=NOW + dt.timedelta(microseconds=1),
        ),
    ]


# -- insert_rows ---------------------------------------------------------------------


@pytest.mark.django_db
def test_inserted_events_are_stored_exactly_as_bulk_create_stores_them(host: Persona) -> None:
    by_helper, by_orm = GameFactory(host=host.player), GameFactory(host=host.player)

    fastsql.insert_rows(Event, events_of(by_helper))
    Event.objects.bulk_create(events_of(by_orm))

    helper_rows = Event.objects.filter(game=by_helper).order_by("seq").values()
    orm_rows = Event.objects.filter(game=by_orm).order_by("seq").values()
    assert len(helper_rows) == 2
    assert stored(helper_rows, "id", "game_id") == stored(orm_rows, "id", "game_id")


@pytest.mark.django_db
def test_inserted_players_keep_their_own_key_and_get_their_creation_time_as_with_bulk_create() -> (
    None
):
    with time_machine.travel(NOW, tick=False):
        made = [Player(name="Ann", points=1), Player(name="Bob", points=2)]
        fastsql.insert_rows(Player, made)
        Player.objects.bulk_create([Player(name="Ann", points=1), Player(name="Bob", points=2)])

    helper_rows = Player.objects.filter(pk__in=[p.pk for p in made]).order_by("name").values()
    orm_rows = Player.objects.exclude(pk__in=[p.pk for p in made]).order_by("name").values()
    assert [row["id"] for row in helper_rows] == [p.pk for p in made]
    assert [row["created_at"] for row in helper_rows] == [NOW, NOW]
    assert stored(helper_rows, "id") == stored(orm_rows, "id")


@pytest.mark.django_db
def test_inserting_no_rows_sends_no_statement(django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(0):
        fastsql.insert_rows(Event, [])


# -- update_fields -------------------------------------------------------------------

MOVE_FIELDS = ["state", "seating", "status", "turn_deadline", "winner", "version", "host_id"]


def twin_games(host: Persona) -> tuple[Game, Game]:
    with time_machine.travel(NOW, tick=False):
        return GameFactory(host=host.player, seed=7), GameFactory(host=host.player, seed=7)


def change(game: Game, new_host: Player) -> dict[str, Any]:
    game.state = {"hands": [[1, 2, 3], [4]], "pending": None, "seed": 7}
    game.seating = [{"player": {"id": str(new_host.pk), "name": new_host.name}, "bot": None}]
    game.status = GameStatus.PLAYING
    game.turn_deadline = NOW + dt.timedelta(seconds=30, microseconds=7)
    game.winner = 0
    game.version += 1
    game.host_id = new_host.pk
    return {f: getattr(game, f) for f in MOVE_FIELDS}


@pytest.mark.django_db
def test_updated_fields_are_stored_exactly_as_queryset_update_stores_them(host: Persona) -> None:
    by_helper, by_orm = twin_games(host)
    new_host = PlayerFactory()

    change(by_helper, new_host)
    updated = fastsql.update_fields(by_helper, MOVE_FIELDS)
    Game.objects.filter(pk=by_orm.pk).update(**change(by_orm, new_host))

    assert updated == 1
    helper_row, orm_row = (Game.objects.filter(pk=g.pk).values().get() for g in (by_helper, by_orm))
    assert stored([helper_row], "id") == stored([orm_row], "id")
    assert helper_row["host_id"] == new_host.pk


@pytest.mark.django_db
def test_an_update_writes_only_the_fields_it_names(host: Persona) -> None:
    game = GameFactory(host=host.player, target_score=500)
    game.target_score = 100
    game.version = 9

    fastsql.update_fields(game, ["version"])

    game.refresh_from_db()
    assert (game.version, game.target_score) == (9, 500)


@pytest.mark.django_db
def test_an_update_of_a_row_that_is_gone_updates_nothing(host: Persona) -> None:
    game = GameFactory(host=host.player)
    Game.objects.filter(pk=game.pk).delete()

    assert fastsql.update_fields(game, ["version"]) == 0


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_extra_expression_runs_in_the_same_update(host: Persona) -> None:
    game = GameFactory(host=host.player)
    game.version = 5

    also = ("set_config('fastsql.seen', %s, true)", ["yes"])
    assert fastsql.update_fields(game, ["version"], also=also) == 1

    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('fastsql.seen')")
        assert cursor.fetchone() == ("yes",)
    game.refresh_from_db()
    assert game.version == 5


# -- select_by -----------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("lock", [False, True])
def test_a_selected_game_equals_the_orms_in_every_field_and_saves_as_an_update(
    host: Persona, guest: Persona, lock: bool
) -> None:
    game = human_to_act_game(host, guest)
    assert game.state is not None
    assert game.turn_deadline is not None

    with transaction.atomic():
        found = fastsql.select_by(Game, "id", str(game.pk), lock=lock)

    assert found is not None
    assert columns(Game, found) == columns(Game, Game.objects.get(pk=game.pk))
    assert (found._state.adding, found._state.db) == (False, "default")
    found.target_score = 250
    found.save()
    assert Game.objects.count() == 1
    assert Game.objects.get(pk=game.pk).target_score == 250


@pytest.mark.django_db
def test_a_session_found_by_token_hash_comes_with_its_player_as_the_orms_in_every_field(
    host: Persona, guest: Persona
) -> None:
    hashes = [hash_token(host.token), hash_token(guest.token), "0" * 64]

    found = fastsql.select_in_with(PlayerSession, "token_hash", hashes, "player")

    by_orm = PlayerSession.objects.select_related("player").filter(token_hash__in=hashes)
    assert len(found) == 2
    for session in found:
        expected = next(s for s in by_orm if s.pk == session.pk)
        assert columns(PlayerSession, session) == columns(PlayerSession, expected)
        assert columns(Player, session.player) == columns(Player, expected.player)
        assert (session.player._state.adding, session.player._state.db) == (False, "default")
    assert {s.player.pk for s in found} == {host.player.pk, guest.player.pk}


@pytest.mark.django_db
def test_a_session_found_with_its_player_sends_one_query(
    host: Persona, django_assert_num_queries: Any
) -> None:
    with django_assert_num_queries(1):
        (found,) = fastsql.select_in_with(
            PlayerSession, "token_hash", [hash_token(host.token)], "player"
        )
        assert found.player.name == host.player.name


@pytest.mark.django_db
def test_no_matching_row_is_none() -> None:
    assert fastsql.select_in_with(PlayerSession, "token_hash", ["0" * 64], "player") == []
    assert fastsql.select_by(Game, "id", "6f1c2a34-0000-4000-8000-000000000000") is None


# -- select_newest ---------------------------------------------------------------------


def game_with_log(host: Persona, length: int) -> Game:
    game = GameFactory(host=host.player)
    Event.objects.bulk_create(
        Event(
            game=game, seq=seq, round=1, type="card_played", seat=seq % 2, data={"n": seq}, at=NOW
        )
        for seq in range(1, length + 1)
    )
    return game


def orm_newest(game: Game, after: int, upto: int, limit: int) -> list[Event]:
    rows = Event.objects.filter(game=game, seq__gt=after, seq__lte=upto).order_by("-seq")
    return list(reversed(rows[:limit]))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("after", "upto", "limit"), [(0, 9, 600), (2, 7, 600), (0, 9, 3), (9, 9, 5)]
)
def test_the_newest_rows_equal_the_orms_in_every_field_and_order(
    host: Persona, after: int, upto: int, limit: int
) -> None:
    game = game_with_log(host, 9)
    game_with_log(host, 4)  # another game's log is not read

    found = fastsql.select_newest(
        Event, "game", game.pk, order="seq", after=after, upto=upto, limit=limit
    )

    expected = orm_newest(game, after, upto, limit)
    assert [columns(Event, e) for e in found] == [columns(Event, e) for e in expected]
    assert [e.seq for e in found] == sorted(e.seq for e in found)
    assert len(found) == min(limit, upto - after)

    with pytest.raises(ValidationError):
        Game.objects.filter(pk="not-a-uuid").first()
    with pytest.raises(ValidationError):
        fastsql.select_by(Game, "id", "not-a-uuid")


def test_only_a_unique_column_may_be_selected_by() -> None:
    with pytest.raises(ValueError, match="not unique"):
        fastsql.select_by(Player, "name", "Ann")


# -- select_where and lock_keys ------------------------------------------------------


def quick_games(host: Persona) -> list[Game]:
    """Waiting quick-match games of two settings, created in a shuffled order, and
    games that are not candidates: one playing, one private."""
    made = []
    for minute, key in [(3, "4:500:"), (1, "4:500:"), (2, "2:500:"), (0, "4:500:")]:
        with time_machine.travel(NOW + dt.timedelta(minutes=minute), tick=False):
            made.append(GameFactory(host=host.player, match_key=key, target_score=minute))
    GameFactory(host=host.player, match_key="4:500:", status=GameStatus.PLAYING)
    GameFactory(host=host.player, match_key="4:500:", visibility="private", invite_code="ABCDEFGH")
    return made


WAITING = {"status": GameStatus.WAITING, "match_key": "4:500:", "visibility": "public"}


@pytest.mark.django_db
@pytest.mark.parametrize("limit", [1, 2, 10])
@pytest.mark.parametrize("lock", [False, True])
def test_rows_selected_where_fields_equal_are_the_orms_in_every_field_and_order(
    host: Persona, limit: int, lock: bool
) -> None:
    quick_games(host)

    with transaction.atomic():
        found = fastsql.select_where(
            Game, WAITING, order_by=("created_at", "id"), limit=limit, lock=lock
        )

    expected = Game.objects.filter(**WAITING).order_by("created_at", "id")[:limit]
    assert [columns(Game, g) for g in found] == [columns(Game, g) for g in expected]
    assert len(found) == min(limit, 3)
    assert [g.target_score for g in found] == [0, 1, 3][:limit]  # oldest first


@pytest.mark.django_db
def test_locking_keys_that_match_no_row_or_none_at_all_is_harmless(host: Persona) -> None:
    with transaction.atomic():
        fastsql.lock_keys(Player, [])
        fastsql.lock_keys(Player, ["6f1c2a34-0000-4000-8000-000000000000", host.player.pk])
    assert Player.objects.filter(pk=host.player.pk).exists()


# -- locks (PostgreSQL) ------------------------------------------------------------


def on_another_connection(call: Callable[[], T]) -> tuple[threading.Thread, list[T]]:
    """Start `call` in its own transaction on a thread of its own (so on its own
    database connection); the list receives its result."""
    results: list[T] = []

    def run() -> None:
        try:
            with transaction.atomic():
                results.append(call())
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, results


def sessions_waiting_for_a_lock() -> int:
    with connection.cursor() as cursor:
        # Activity is read once per transaction unless the snapshot is cleared.
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_locked_row_makes_a_second_lock_wait_until_the_holder_commits(host: Persona) -> None:
    game = GameFactory(host=host.player)

    with transaction.atomic():
        assert fastsql.select_by(Game, "id", game.pk, lock=True) is not None
        thread, results = on_another_connection(
            lambda: fastsql.select_by(Game, "id", game.pk, lock=True)
        )
        deadline = time.monotonic() + BLOCKED_WITHIN
        while sessions_waiting_for_a_lock() == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert sessions_waiting_for_a_lock() == 1
        assert thread.is_alive()
        assert results == []
    thread.join(JOIN_TIMEOUT)

    assert not thread.is_alive()
    assert [r.pk for r in results if r is not None] == [game.pk]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_skip_locked_finds_nothing_while_another_transaction_holds_the_row(
    host: Persona,
) -> None:
    game = GameFactory(host=host.player)

    def skipping() -> Game | None:
        return fastsql.select_by(Game, "id", game.pk, lock=True, skip_locked=True)

    with transaction.atomic():
        fastsql.select_by(Game, "id", game.pk, lock=True)
        thread, while_held = on_another_connection(skipping)
        thread.join(JOIN_TIMEOUT)
    thread, after = on_another_connection(skipping)
    thread.join(JOIN_TIMEOUT)

    assert while_held == [None]
    assert [r.pk for r in after if r is not None] == [game.pk]


def wait_until_one_session_waits_for_a_lock() -> None:
    deadline = time.monotonic() + BLOCKED_WITHIN
    while sessions_waiting_for_a_lock() == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sessions_waiting_for_a_lock() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_locked_keys_make_another_lock_of_any_of_them_wait_until_the_holder_commits(
    host: Persona, guest: Persona, outsider: Persona
) -> None:
    with transaction.atomic():
        fastsql.lock_keys(Player, [outsider.player.pk, host.player.pk])
        thread, results = on_another_connection(
            lambda: fastsql.select_by(Player, "id", host.player.pk, lock=True)
        )
        free, unlocked = on_another_connection(
            lambda: fastsql.select_by(Player, "id", guest.player.pk, lock=True)
        )
        free.join(JOIN_TIMEOUT)
        assert [p.pk for p in unlocked if p is not None] == [guest.player.pk]
        wait_until_one_session_waits_for_a_lock()
        assert results == []
    thread.join(JOIN_TIMEOUT)

    assert [p.pk for p in results if p is not None] == [host.player.pk]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_locked_row_that_stops_matching_while_awaited_is_left_out(host: Persona) -> None:
    oldest, *_ = sorted(
        (g for g in quick_games(host) if g.match_key == "4:500:"), key=lambda g: g.created_at
    )

    def candidates() -> list[Game]:
        return fastsql.select_where(
            Game, WAITING, order_by=("created_at", "id"), limit=10, lock=True
        )

    with transaction.atomic():
        assert fastsql.select_by(Game, "id", oldest.pk, lock=True) is not None
        thread, results = on_another_connection(candidates)
        wait_until_one_session_waits_for_a_lock()
        Game.objects.filter(pk=oldest.pk).update(status=GameStatus.PLAYING)
    thread.join(JOIN_TIMEOUT)

    assert not thread.is_alive()
    [found] = results
    assert oldest.pk not in [g.pk for g in found]
    assert [g.target_score for g in found] == [1, 3]


# -- ratings: many rows at once --------------------------------------------------------


def ratings_of(players: list[Player]) -> list[Rating]:
    return [
        Rating(key=str(p.pk), player=p, mu=25.0, sigma=8.3, ordinal=0.1, games=0) for p in players
    ]


@pytest.mark.django_db
def test_inserting_with_ignore_conflicts_leaves_existing_rows_as_they_were() -> None:
    players = PlayerFactory.create_batch(3)
    Rating.objects.create(key=str(players[0].pk), player=players[0], mu=1, sigma=2, ordinal=-5)
    fastsql.insert_rows(Rating, ratings_of(players), ignore_conflicts=True)
    kept = Rating.objects.get(key=str(players[0].pk))
    assert (kept.mu, kept.sigma, kept.ordinal) == (1, 2, -5)
    assert Rating.objects.count() == 3


@pytest.mark.django_db
@pytest.mark.parametrize("lock", [False, True])
def test_rows_selected_in_a_set_of_values_are_the_orms_in_every_field_and_order(lock) -> None:
    players = PlayerFactory.create_batch(4)
    Rating.objects.bulk_create(ratings_of(players))
    keys = [str(p.pk) for p in players[:3]] + ["bot:nobody"]
    with transaction.atomic():
        found = fastsql.select_in(Rating, "key", keys, order_by="key", lock=lock)
        orm = list(Rating.objects.filter(key__in=keys).order_by("key"))
    assert [columns(Rating, r) for r in found] == [columns(Rating, r) for r in orm]
    assert len(found) == 3
    assert fastsql.select_in(Rating, "key", [], order_by="key") == []


@pytest.mark.django_db
def test_rows_updated_each_with_its_own_values_are_stored_as_bulk_update_stores_them() -> None:
    players = PlayerFactory.create_batch(3)
    Rating.objects.bulk_create(ratings_of(players))
    rows = list(Rating.objects.order_by("key"))
    for n, row in enumerate(rows):
        row.mu, row.sigma, row.ordinal, row.games, row.updated_at = 30 + n, 1.5, 25.5 + n, n, NOW
    untouched = rows[2]
    fastsql.update_rows(Rating, rows[:2], ["mu", "sigma", "ordinal", "games", "updated_at"])
    helper = [columns(Rating, r) for r in Rating.objects.order_by("key")]
    assert helper[:2] == [columns(Rating, r) for r in rows[:2]]
    assert helper[2]["mu"] == 25.0 != untouched.mu
    # The ORM's bulk_update of the same values stores the same.
    rows[2].mu = 25.0
    Rating.objects.bulk_update(rows, ["mu", "sigma", "ordinal", "games", "updated_at"])
    assert [columns(Rating, r) for r in Rating.objects.order_by("key")][:2] == helper[:2]


# -- pipelined -----------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db
def test_an_error_in_a_pipelined_block_is_djangos_and_leaves_the_connection_usable() -> None:
    players = PlayerFactory.create_batch(2)

    def insert_one_twice() -> None:
        with transaction.atomic(), fastsql.pipelined():
            fastsql.insert_rows(Rating, ratings_of(players[:1]))
            fastsql.insert_rows(Rating, ratings_of(players[:1]))  # the same key again

    with pytest.raises(IntegrityError):
        insert_one_twice()
    assert Rating.objects.count() == 0
    with transaction.atomic(), fastsql.pipelined():
        fastsql.insert_rows(Rating, ratings_of(players))
    assert Rating.objects.count() == 2
