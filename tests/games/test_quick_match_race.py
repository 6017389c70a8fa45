"""Quick match under contention: players asking at the same moment fill one game
before another is opened. Real row and advisory locks, so PostgreSQL only."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from games import services
from games.models import Game, Seat
from tests.factories import make_persona

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PLAYERS = 16
SEATS = 4


def ask_all_at_once(players, **settings) -> list[BaseException]:
    barrier = threading.Barrier(len(players))
    errors: list[BaseException] = []

    def ask(player) -> None:
        try:
            barrier.wait(timeout=30)
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


def test_sixteen_players_asking_at_once_for_four_seats_end_in_four_full_started_games():
    players = [make_persona(f"P{n}").player for n in range(PLAYERS)]
    assert ask_all_at_once(players, max_players=SEATS, bots_after=None) == []
    games = list(Game.objects.filter(match_key__isnull=False))
    assert len(games) == PLAYERS // SEATS
    assert {game.status for game in games} == {"playing"}
    assert all(len(game.seating) == SEATS for game in games)
    seated = list(Seat.objects.filter(game__in=games).values_list("player", flat=True))
    assert sorted(seated) == sorted(player.pk for player in players)


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
