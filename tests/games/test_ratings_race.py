"""Games that share players and bot strategies ending at the same moment, on real
threads: none deadlocks, every one is rated, and the ratings kept equal a recompute
in the order the games finished. PostgreSQL only: SQLite serialises writers."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from games.engine import Move
from games.engine.position import build_state, card_in_hand
from games.models import Game, Result
from players.models import Rating, bot_key
from tests.factories import API, Persona, make_persona, put_state, start_game
from tests.games.test_concurrency import all_at_once, client_for

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROUNDS = 3


def one_move_from_the_end(game: Game) -> tuple[int, int]:
    """Seat 0 holds one card that fits: (version, that card)."""
    losers = iter([["B4", "B5"], ["G4", "G5"], ["Y4", "Y5"]])
    table = [["R1"], *(next(losers) for _ in game.seating[1:])]
    state = build_state(table, top="R5", target_score=0)
    return put_state(game, state).version, card_in_hand(state, 0, "R1")


def ratings() -> dict[str, tuple[float, float, int]]:
    return {r.key: (r.mu, r.sigma, r.games) for r in Rating.objects.all()}


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_games_sharing_players_and_bots_that_end_at_once_all_rate_in_one_order(round_):
    people = [make_persona(f"P{round_}-{n}") for n in range(4)]
    # Every game shares a player with two others and the greedy bot with all of them,
    # and each locks its ratings in its own seat order.
    tables: list[tuple[Persona, ...]] = [
        (people[0], people[1]),
        (people[1], people[2]),
        (people[2], people[3]),
        (people[3], people[0]),
        (people[0], people[2]),
        (people[1], people[3]),
    ]
    calls = []
    games = []
    for index, (first, second) in enumerate(tables):
        game = start_game(first, second, "greedy", seed=index)
        version, card = one_move_from_the_end(game)
        games.append(game)
        body = {"version": version, **Move.from_json({"action": "play", "card": card}).to_json()}
        client = client_for(first)
        calls.append(
            lambda c=client, g=game, b=body: c.post(f"{API}/games/{g.pk}/moves", b, format="json")
        )
    answers = all_at_once(calls)
    assert [status for status, _ in answers] == [200] * len(tables), answers
    assert Result.objects.filter(game__in=games, rated=True).count() == 3 * len(tables)
    assert Rating.objects.get(key=bot_key("greedy")).games == len(tables)
    assert {Rating.objects.get(player=p.player).games for p in people} == {3}

    kept = ratings()
    call_command("recompute_ratings", stdout=StringIO())
    assert ratings() == kept


def test_games_of_the_same_two_players_ending_at_once_rate_only_three():
    first, second = make_persona("Same-1"), make_persona("Same-2")
    calls = []
    games = []
    for index in range(5):
        game = start_game(first, second, seed=index)
        version, card = one_move_from_the_end(game)
        games.append(game)
        body = {"version": version, **Move.from_json({"action": "play", "card": card}).to_json()}
        client = client_for(first)
        calls.append(
            lambda c=client, g=game, b=body: c.post(f"{API}/games/{g.pk}/moves", b, format="json")
        )
    answers = all_at_once(calls)
    assert [status for status, _ in answers] == [200] * len(games), answers
    # The repeat limit is counted under the ratings' locks: exactly three are rated.
    assert Result.objects.filter(game__in=games, rated=True).count() == 2 * 3
    assert Result.objects.filter(game__in=games, unrated_reason="repeat_opponents").count() == 2 * 2
    assert Rating.objects.get(player=first.player).games == 3
