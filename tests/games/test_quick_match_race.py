"""Quick match under contention: players asking at the same moment fill one game
before another is opened. Real row and advisory locks, so PostgreSQL only.

Requests asked on threads of one process are combined into batches
(games/combining.py); a request made inside a transaction of its own (as under an
Idempotency-Key) is served alone, and only the advisory lock orders it, as it
orders the batches of different server processes."""

from __future__ import annotations

import threading

import pytest
from django.db import DataError, connection, transaction

from games import services
from games.models import Game, Seat
from games.services import matching
from tests.factories import make_persona

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PLAYERS = 16
SEATS = 4


def ask_all_at_once(players, alone=(), **settings) -> list[BaseException]:
    """Every player asks at the same moment, on a thread of their own; those in
    `alone` inside a transaction of their own, which keeps them out of batches."""
    barrier = threading.Barrier(len(players))
    errors: list[BaseException] = []

    def ask(player) -> None:
        try:
            barrier.wait(timeout=30)
            if player in alone:
                with transaction.atomic():
                    services.match_find(player=player, **settings)
            else:
                services.match_find(player=player, **settings)
        except BaseException as error:  # reported in the test's thread
            errors.append(error)
        finally:
            connection.close()  # each thread had a connection of its own

    threads = [threading.Thread(target=ask, args=(player,)) for player in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return errors


def assert_four_full_started_games(players) -> None:
    games = list(Game.objects.filter(match_key__isnull=False))
    assert len(games) == PLAYERS // SEATS
    assert {game.status for game in games} == {"playing"}
    assert all(len(game.seating) == SEATS for game in games)
    seated = list(Seat.objects.filter(game__in=games).values_list("player", flat=True))
    assert sorted(seated) == sorted(player.pk for player in players)


def test_sixteen_players_asking_at_once_for_four_seats_end_in_four_full_started_games():
    players = [make_persona(f"P{n}").player for n in range(PLAYERS)]
    assert ask_all_at_once(players, max_players=SEATS, bots_after=None) == []
    assert_four_full_started_games(players)


def test_sixteen_requests_each_served_alone_end_in_four_full_started_games_too():
    players = [make_persona(f"A{n}").player for n in range(PLAYERS)]
    assert ask_all_at_once(players, alone=players, max_players=SEATS, bots_after=None) == []
    assert_four_full_started_games(players)


def test_batches_and_requests_served_alone_at_once_end_in_four_full_started_games():
    players = [make_persona(f"M{n}").player for n in range(PLAYERS)]
    alone = players[::2]
    assert ask_all_at_once(players, alone=alone, max_players=SEATS, bots_after=None) == []
    assert_four_full_started_games(players)


def test_players_asking_at_once_for_different_settings_do_not_share_games():
    twos = [make_persona(f"T{n}").player for n in range(6)]
    threes = [make_persona(f"H{n}").player for n in range(6)]
    errors: list[BaseException] = []
    both = [
        threading.Thread(target=lambda: errors.extend(ask_all_at_once(twos, max_players=2))),
        threading.Thread(target=lambda: errors.extend(ask_all_at_once(threes, max_players=3))),
    ]
    for thread in both:
        thread.start()
    for thread in both:
        thread.join(90)
    assert errors == []
    games = list(Game.objects.filter(match_key__isnull=False))
    assert sorted(game.max_players for game in games) == [2, 2, 2, 3, 3]
    assert {game.status for game in games} == {"playing"}
    assert all(len(game.seating) == game.max_players for game in games)


def test_one_player_asking_eight_times_at_once_takes_one_seat():
    player = make_persona("Eager").player
    assert ask_all_at_once([player] * 8, max_players=4) == []
    assert Seat.objects.filter(player=player).count() == 1
    assert Game.objects.filter(match_key__isnull=False).count() == 1


def test_a_batch_that_fails_in_the_database_leaves_nothing_and_the_next_one_works(monkeypatch):
    first, second = (make_persona(f"F{n}").player for n in range(2))

    def failing(seats) -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 / 0")  # fails when the batch's statements are sent

    with monkeypatch.context() as patched:
        patched.setattr(matching, "_announce_seats", failing)
        with pytest.raises(DataError):
            services.match_find(player=first, max_players=2)
    assert not Game.objects.filter(match_key__isnull=False).exists()
    assert not Seat.objects.exists()

    services.match_find(player=first, max_players=2)
    game = services.match_find(player=second, max_players=2).game
    assert game.status == "playing"
    assert Seat.objects.filter(game=game).count() == 2
