"""The rules that keep ratings from being farmed, at the services: a player who
forfeits (leaves, or loses the seat to timeouts and does not resume) places last; a
game that would be a pair of humans' fourth rated game within a day is unrated, at any
table; the record counts only opponents established without the player judged; and
the recompute keeps every decision."""

from __future__ import annotations

import datetime as dt
import importlib
from io import StringIO

import pytest
import time_machine
from django.apps import apps as django_apps
from django.core.management import call_command
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import services
from games.engine.position import build_state
from games.models import Event, Game, RatedPair, Result, Seat
from games.ratings import writes as results
from players import rating
from players.models import Rating
from tests.factories import Persona, make_persona, put_state, reload, start_game
from tests.factories import finish_game as finish
from tests.games.test_pause_and_resume import walk_away

pytestmark = pytest.mark.django_db

LOSING_HANDS = [["B4", "B5"], ["G4", "G5"], ["Y4", "Y5"], ["B6", "B7"]]


def bot_wins(game: Game, seat: int) -> Game:
    """The bot at `seat` goes out with its last card, the others holding two each:
    one move of the bot, as a worker makes it."""
    hands = [["R1"] if s == seat else LOSING_HANDS[s] for s in range(len(game.seating))]
    game = put_state(game, build_state(hands, top="R5", current=seat, target_score=0))
    assert services.bot_act(game_id=game.pk, version=game.version) is not None
    game = reload(game)
    assert (game.status, game.winner) == ("finished", seat)
    return game


def places_of(game: Game) -> list[tuple[int, bool]]:
    return [(r.place, r.forfeited) for r in Result.objects.filter(game=game).order_by("seat")]


def ordinal(persona: Persona) -> float:
    return Rating.objects.get(player=persona.player).ordinal


# -- forfeits ---------------------------------------------------------------------------


def test_a_player_who_leaves_places_last_though_the_bot_in_their_seat_wins(host, guest):
    game = start_game(host, guest, seed=3)
    services.game_leave(game_id=game.pk, player=guest.player)
    game = bot_wins(reload(game), seat=1)
    assert places_of(game) == [(1, False), (2, True)]
    assert ordinal(guest) < rating.Skill().ordinal < ordinal(host)


def test_a_player_who_lost_the_seat_to_timeouts_and_never_resumed_places_last(host, guest):
    game = start_game(host, guest, seed=3, turn_timeout=30)
    game = walk_away(game, seat=1, answer={0: host})
    assert game.seating[1]["bot"] is not None
    game = bot_wins(game, seat=1)
    assert places_of(game) == [(1, False), (2, True)]
    assert Rating.objects.get(player=guest.player).mu < rating.DEFAULT_MU


def test_a_player_who_resumed_their_seat_has_not_forfeited(host, guest):
    game = start_game(host, guest, seed=3, turn_timeout=30)
    game = walk_away(game, seat=1, answer={0: host})
    services.seat_resume(game_id=game.pk, player=guest.player)
    game = finish(reload(game), winner=1, by=guest)
    assert places_of(game) == [(2, False), (1, False)]
    assert Rating.objects.get(player=guest.player).mu > rating.DEFAULT_MU


def test_players_who_forfeited_share_the_last_place_behind_the_bots_own_seats(host, guest):
    third = make_persona("Third")
    game = start_game(host, guest, third, "greedy", seed=3)
    for leaver in (guest, third):
        services.game_leave(game_id=game.pk, player=leaver.player)
    game = bot_wins(reload(game), seat=2)
    # Host and the bot's own seat place by score; both leavers share the last place,
    # the winning one among them.
    assert places_of(game) == [(1, False), (3, True), (3, True), (1, False)]


# -- repeat games ----------------------------------------------------------------------


def test_the_same_humans_fourth_rated_game_within_a_day_is_unrated(host, guest):
    games = [finish(start_game(host, guest, seed=s), winner=0, by=host) for s in range(3)]
    after_three = ordinal(host)
    fourth = finish(start_game(guest, host, "greedy", seed=9), winner=1, by=host)
    assert ordinal(host) == after_three
    assert Rating.objects.get(player=host.player).games == 3
    rows = list(Result.objects.filter(game=fourth))
    assert {(r.rated, r.unrated_reason, r.mu_after) for r in rows} == {
        (False, "repeat_opponents", None)
    }
    assert not fourth.events.filter(type="game_rated").exists()
    assert all(Result.objects.filter(game=g, rated=True).count() == 2 for g in games)


def test_a_day_after_the_first_of_three_rated_games_the_same_humans_are_rated_again(host, guest):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        finish(start_game(host, guest, seed=0), winner=0, by=host)
    with time_machine.travel(start + dt.timedelta(hours=12), tick=False):
        for seed in (1, 2, 3):
            finish(start_game(host, guest, seed=seed), winner=0, by=host)
    assert Rating.objects.get(player=host.player).games == 3
    with time_machine.travel(start + dt.timedelta(hours=24, seconds=1), tick=False):
        game = finish(start_game(host, guest, seed=4), winner=0, by=host)
    assert Result.objects.filter(game=game, rated=True).count() == 2
    assert Rating.objects.get(player=host.player).games == 4


def test_another_human_at_the_table_does_not_reset_a_pairs_repeat_limit(host, guest, outsider):
    for seed in range(3):
        finish(start_game(host, guest, seed=seed), winner=0, by=host)
    game = finish(start_game(host, guest, outsider, seed=5), winner=0, by=host)
    assert {(r.rated, r.unrated_reason) for r in Result.objects.filter(game=game)} == {
        (False, "repeat_opponents")
    }
    # Host and Outsider, and Guest and Outsider, had not met: a game of theirs counts.
    game = finish(start_game(host, outsider, seed=6), winner=0, by=host)
    assert Result.objects.filter(game=game, rated=True).count() == 2


def test_three_rated_games_of_a_pair_at_larger_tables_use_up_its_limit(host, guest):
    others = [make_persona(f"Other{n}") for n in range(3)]
    for seed, other in enumerate(others):
        finish(start_game(host, guest, other, seed=seed), winner=0, by=host)
    assert Rating.objects.get(player=host.player).games == 3
    game = finish(start_game(host, guest, make_persona("New"), seed=9), winner=0, by=host)
    assert not Result.objects.filter(game=game, rated=True).exists()


def test_unrated_games_do_not_count_towards_the_repeat_limit(host, guest):
    for seed in range(3):
        finish(start_game(host, guest, seed=seed, rated=False), winner=0, by=host)
    game = finish(start_game(host, guest, seed=5), winner=0, by=host)
    assert Result.objects.filter(game=game, rated=True).count() == 2
    reasons = set(Result.objects.filter(rated=False).values_list("unrated_reason", flat=True))
    assert reasons == {"unrated_game"}


def test_one_human_among_bots_says_why_it_is_unrated(host):
    game = finish(start_game(host, "greedy", seed=3), winner=0, by=host)
    assert {r.unrated_reason for r in Result.objects.filter(game=game)} == {"too_few_humans"}


# -- the recompute keeps what each game decided ---------------------------------------


def test_recomputing_keeps_forfeits_and_repeats_as_the_games_decided(host, guest, outsider):
    game = start_game(host, guest, outsider, seed=3)
    services.game_leave(game_id=game.pk, player=outsider.player)
    bot_wins(reload(game), seat=2)
    for seed in range(4):
        finish(start_game(host, guest, seed=seed), winner=1, by=guest)
    kept = {
        r.key: (r.mu, r.sigma, r.games, r.opponents, r.opponents_met) for r in Rating.objects.all()
    }
    places = {r.pk: (r.place, r.forfeited, r.rated, r.unrated_reason) for r in Result.objects.all()}
    call_command("recompute_ratings", stdout=StringIO())
    after = {
        r.key: (r.mu, r.sigma, r.games, r.opponents, r.opponents_met) for r in Rating.objects.all()
    }
    assert after == kept
    assert {
        r.pk: (r.place, r.forfeited, r.rated, r.unrated_reason) for r in Result.objects.all()
    } == places


# -- the record counts established opponents only --------------------------------------


def rated_games(persona: Persona, count: int, *, seed: int) -> None:
    """`count` rated games of `persona` against fresh players, won by `persona`."""
    for n in range(count):
        rival = make_persona(f"Rival{seed}-{n}")
        finish(start_game(persona, rival, seed=seed + n), winner=0, by=persona)


def met(persona: Persona) -> tuple[int, str]:
    row = Rating.objects.get(player=persona.player)
    return row.opponents_met, row.opponents


def test_an_opponent_counts_only_once_they_had_five_rated_games_before_the_game(host, guest):
    rated_games(guest, 4, seed=10)
    finish(start_game(host, guest, seed=1), winner=0, by=host)  # guest had 4: not yet
    assert met(host) == (0, "")
    # Guest, who had not met an established opponent either, counts nobody.
    assert met(guest) == (0, "")
    finish(start_game(host, guest, seed=2), winner=0, by=host)  # guest had 5 now
    assert met(host) == (1, str(guest.player.pk))
    assert met(guest) == (0, "")  # host had played one game


def test_beating_many_fresh_accounts_up_to_the_repeat_limit_reaches_no_record(host):
    for n in range(5):
        fresh = make_persona(f"Fresh{n}")
        for seed in range(4):
            finish(start_game(host, fresh, seed=seed), winner=0, by=host)
    row = Rating.objects.get(player=host.player)
    assert (row.games, row.opponents_met) == (15, 0)
    assert host.get("/players/me").json()["provisional"] is True
    assert host.get("/leaderboard").json()["count"] == 0


def snapshot_ratings() -> dict[str, tuple[float, float, int, str, int, str]]:
    return {
        r.key: (r.mu, r.sigma, r.games, r.opponents, r.opponents_met, r.met)
        for r in Rating.objects.all()
    }


def migrate_opponents() -> None:
    """The data step of the migration that brought the rule, on the data as it is."""
    step = importlib.import_module("games.migrations.0018_ratings_by_pair_and_network")
    RatedPair.objects.all().delete()
    step.rate_by_the_new_rules(django_apps, None)


# Games among five players: who sits (two to four of them), who wins.
tables = st.lists(
    st.tuples(st.lists(st.integers(0, 4), min_size=2, max_size=4, unique=True), st.integers(0, 3)),
    min_size=6,
    max_size=18,
)


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(tables)
def test_the_recompute_and_the_migration_count_the_opponents_the_games_counted(
    host, guest, outsider, found
):
    for model in (Result, Event, Seat, Game, Rating):
        model.objects.all().delete()
    people = [host, guest, outsider, *(make_persona(f"P{n}") for n in (3, 4))]
    for n, (seats, winner) in enumerate(found):
        table = [people[i] for i in seats]
        game = start_game(table[0], *table[1:], seed=n)
        finish(game, winner=winner % len(table), by=table[winner % len(table)])
    played = snapshot_ratings()
    pairs = sorted(RatedPair.objects.values_list("game_id", "low", "high", "finished_at"))
    for key, (_, _, _, opponents, count, _) in played.items():
        assert count == len(opponents.split())
        assert key not in opponents.split()
    migrate_opponents()
    assert snapshot_ratings() == played
    assert sorted(RatedPair.objects.values_list("game_id", "low", "high", "finished_at")) == pairs
    results.recompute()
    assert snapshot_ratings() == played


def test_the_migration_takes_fresh_opponents_counted_before_the_rule_off_the_record(host):
    fresh = [make_persona(f"Fresh{n}") for n in range(3)]
    for seed, rival in enumerate(fresh):
        finish(start_game(host, rival, seed=seed), winner=0, by=host)
    # What the games counted before the rule: every human met.
    met_before = " ".join(str(p.player.pk) for p in fresh)
    Rating.objects.filter(player=host.player).update(opponents=met_before, opponents_met=3)
    migrate_opponents()
    assert met(host) == (0, "")
    assert snapshot_ratings()[str(host.player.pk)][2] == 3  # nothing else changed
