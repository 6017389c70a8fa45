"""Ratings: who a finished game rates, what it records per seat, and that recomputing
every rating from the finished games gives what the games gave one by one."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from games import services
from games.models import Event, Result
from players import rating
from players.models import Rating, bot_key
from tests.factories import finish_game as finish
from tests.factories import make_persona, reload, start_game

pytestmark = pytest.mark.django_db


def ratings() -> dict[str, tuple[float, float, float, int]]:
    return {r.key: (r.mu, r.sigma, r.ordinal, r.games) for r in Rating.objects.all()}


def test_places_put_the_winner_first_and_let_equal_scores_share_a_place():
    assert rating.places([500, 120, 120, 30], winner=0) == [1, 2, 2, 4]
    assert rating.places([10, 600, 10], winner=1) == [2, 1, 2]
    # A one-round game whose other hands were worth nothing: winning still places first.
    assert rating.places([0, 0, 0], winner=1) == [2, 1, 2]


def test_a_rated_game_moves_the_winner_up_and_the_loser_down(host, guest):
    game = finish(start_game(host, guest, seed=3), winner=1, by=guest)
    winner, loser = Rating.objects.get(player=guest.player), Rating.objects.get(player=host.player)
    assert winner.mu > rating.DEFAULT_MU > loser.mu
    assert max(winner.sigma, loser.sigma) < rating.DEFAULT_SIGMA
    assert (winner.games, loser.games) == (1, 1)
    assert winner.ordinal == pytest.approx(winner.mu - 3 * winner.sigma)
    results = list(Result.objects.filter(game=game).order_by("seat"))
    assert [(r.key, r.place, r.points, r.rated) for r in results] == [
        (str(host.player.pk), 2, 0, True),
        (str(guest.player.pk), 1, 9, True),
    ]
    assert (results[1].mu_before, results[1].mu_after) == (rating.DEFAULT_MU, winner.mu)


def test_the_game_rated_event_logs_every_seats_new_rating_and_its_change(host, guest):
    game = finish(start_game(host, guest, seed=3), winner=0, by=host)
    rated = Event.objects.get(game=game, type="game_rated")
    # Logged with the end, after game_ended: the last event.
    assert rated.seq == reload(game).last_seq
    mine = rated.data["ratings"][0]
    row = Rating.objects.get(player=host.player)
    assert mine["seat"] == 0
    assert mine["rated_as"] == str(host.player.pk)
    assert mine["rating"] == {"mu": row.mu, "sigma": row.sigma, "ordinal": row.ordinal, "games": 1}
    assert mine["change"]["mu"] == pytest.approx(row.mu - rating.DEFAULT_MU)


def test_a_game_marked_unrated_records_results_and_moves_no_rating(host, guest):
    game = finish(start_game(host, guest, seed=3, rated=False), winner=0, by=host)
    assert not Rating.objects.exists()
    assert not Event.objects.filter(game=game, type="game_rated").exists()
    assert [(r.place, r.rated, r.mu_after) for r in Result.objects.filter(game=game)] == [
        (1, False, None),
        (2, False, None),
    ]


def test_one_human_among_bots_is_not_rated(host):
    game = finish(start_game(host, "greedy", "random", seed=3), winner=0, by=host)
    assert game.status == "finished"
    assert not Rating.objects.exists()
    assert Result.objects.filter(game=game, rated=False).count() == 3


def test_a_bot_strategy_is_rated_once_per_game_however_many_seats_it_held(host, guest):
    game = start_game(host, guest, "greedy", "greedy", seed=3)
    finish(game, winner=0, by=host, scores=[40, 30, 10, 20])
    bot = Rating.objects.get(key=bot_key("greedy"))
    assert (bot.bot, bot.player, bot.games) == ("greedy", None, 1)
    places = list(Result.objects.filter(game=game).order_by("seat").values_list("place", "points"))
    assert places == [(1, 67), (2, 30), (4, 10), (3, 20)]
    # Both seats' shifts of mu are applied to the one rating.
    posteriors = rating.rate([rating.Skill()] * 4, [1, 2, 4, 3])
    expected = rating.combine(rating.Skill(), [posteriors[2], posteriors[3]])
    assert (bot.mu, bot.sigma) == (pytest.approx(expected.mu), pytest.approx(expected.sigma))


def test_a_player_whose_seat_a_bot_finished_is_rated_as_that_player(host, guest):
    game = start_game(host, guest, seed=3)
    services.game_leave(game_id=game.pk, player=guest.player)
    assert reload(game).seating[1]["bot"] is not None
    finish(reload(game), winner=0, by=host)
    assert Rating.objects.get(player=guest.player).mu < rating.DEFAULT_MU
    assert not Rating.objects.filter(bot__isnull=False).exists()


def test_recomputing_every_rating_gives_what_the_games_gave_one_by_one(host, guest, outsider):
    third = make_persona("Third")
    finish(start_game(host, guest, seed=3), winner=0, by=host)
    finish(start_game(guest, outsider, "expert", seed=4), winner=1, by=outsider)
    finish(start_game(outsider, host, third, "greedy", "greedy", seed=5), winner=2, by=third)
    finish(start_game(host, third, seed=6, rated=False), winner=0, by=host)
    finish(start_game(third, guest, host, seed=7), winner=0, by=third)
    kept = ratings()
    histories = {
        r.pk: (r.mu_before, r.sigma_before, r.mu_after, r.sigma_after, r.games_after)
        for r in Result.objects.all()
    }
    Rating.objects.update(mu=1.0, sigma=1.0, ordinal=-2.0, games=99)
    Result.objects.update(mu_after=None, games_after=None)

    out = StringIO()
    call_command("recompute_ratings", stdout=out)
    assert ratings() == kept  # exactly: the same updates in the same order
    assert {
        r.pk: (r.mu_before, r.sigma_before, r.mu_after, r.sigma_after, r.games_after)
        for r in Result.objects.all()
    } == histories
    assert "4 rated games" in out.getvalue()


def test_recomputing_rates_games_that_finished_before_results_were_kept(host, guest):
    game = finish(start_game(host, guest, seed=3), winner=1, by=guest)
    kept = ratings()
    Result.objects.all().delete()
    Rating.objects.all().delete()
    call_command("recompute_ratings", stdout=StringIO())
    assert ratings() == kept
    assert Result.objects.filter(game=game, rated=True).count() == 2
