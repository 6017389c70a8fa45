"""Quick match keeps blocked players apart (docs/api.md, "Quick match"): two players
with a block between them, either way, are never seated in one game, neither in a
game that waits nor in one the batch opens."""

from __future__ import annotations

import itertools
import threading
from typing import Any

import pytest
from django.db import connection

from games import services
from games.engine import Rules
from games.models import Game, Seat
from games.services import matching
from players.social import selectors as social
from players.social.models import Block
from tests.factories import BlockFactory, Persona, make_persona, reload

PLAYERS = 40
BLOCKED_PAIRS = 10


def batch(*personas: Persona, max_players: int = 4) -> list[Any]:
    """Serve these players' requests as one batch, as the combiner hands them over."""
    requests = [services.MatchRequest(p.player, max_players, 500, Rules(), None) for p in personas]
    key = services.match_key(max_players, 500, Rules())
    return matching._match_batch(key, lambda: requests)


def names(game_id: Any) -> list[str]:
    return [entry["player"]["name"] for entry in reload(game_id).seating]


def assert_no_blocked_pair_seated_together() -> None:
    pairs = {
        frozenset((str(a), str(b))) for a, b in Block.objects.values_list("blocker", "blocked")
    }
    for game in Game.objects.filter(match_key__isnull=False):
        seated = game.human_player_ids()
        together = [
            pair for pair in map(frozenset, itertools.combinations(seated, 2)) if pair in pairs
        ]
        assert together == [], f"game {game.pk} seats a blocked pair"


@pytest.mark.django_db
def test_a_batch_keeps_a_blocked_pair_apart_and_fills_the_games_otherwise(db):
    a, b, c, d, e = (make_persona(name) for name in "ABCDE")
    BlockFactory(blocker=a.player, blocked=b.player)

    answers = batch(a, b, c, d, e, max_players=3)

    first, second = answers[0].game.pk, answers[1].game.pk
    assert first != second
    # Each later request goes to the first game with room and no block: C and D
    # fill A's game, E goes to B's.
    assert names(first) == ["A", "C", "D"]
    assert names(second) == ["B", "E"]
    assert reload(first).status == "playing"  # full: started
    assert reload(second).status == "waiting"
    assert_no_blocked_pair_seated_together()


@pytest.mark.django_db
def test_a_block_either_way_keeps_a_request_out_of_a_waiting_game(db):
    host, guest, other = make_persona("H"), make_persona("G"), make_persona("O")
    waiting = batch(host, max_players=3)[0].game.pk
    BlockFactory(blocker=guest.player, blocked=host.player)  # the joiner blocks

    answers = batch(guest, other, max_players=3)

    assert answers[0].game.pk != waiting
    assert answers[1].game.pk == waiting  # the waiting game still fills first
    assert names(waiting) == ["H", "O"]
    assert names(answers[0].game.pk) == ["G"]
    assert reload(answers[0].game.pk).host_id == guest.player.pk


@pytest.mark.django_db
def test_a_request_blocked_in_every_game_opens_one_of_its_own(db):
    a, b, c = make_persona("A"), make_persona("B"), make_persona("C")
    BlockFactory(blocker=a.player, blocked=c.player)
    BlockFactory(blocker=c.player, blocked=b.player)

    answers = batch(a, b, c, max_players=4)

    assert answers[0].game.pk == answers[1].game.pk
    assert names(answers[2].game.pk) == ["C"]


@pytest.mark.django_db
def test_the_blocks_of_a_batch_and_the_waiting_games_are_read_at_once(db, monkeypatch):
    waiting = make_persona("W")
    batch(waiting, max_players=4)
    players = [make_persona(f"P{n}") for n in range(8)]
    BlockFactory(blocker=players[0].player, blocked=players[1].player)
    calls: list[set[str]] = []
    original = social.blocked_pairs

    def counted(ids: Any) -> Any:
        calls.append(set(ids))
        return original(ids)

    monkeypatch.setattr(social, "blocked_pairs", counted)
    batch(*players, max_players=4)

    # The batch's players and the one seated in the waiting game: one call.
    assert calls == [{str(p.player.pk) for p in [waiting, *players]}]


@pytest.mark.django_db
def test_forty_players_in_one_batch_with_ten_blocked_pairs_sit_apart(db):
    personas = [make_persona(f"S{n}") for n in range(PLAYERS)]
    for n in range(BLOCKED_PAIRS):
        BlockFactory(blocker=personas[4 * n].player, blocked=personas[4 * n + 1].player)

    answers = batch(*personas, max_players=4)

    assert all(isinstance(answer, services.Outcome) for answer in answers)
    seated = list(Seat.objects.values_list("player", flat=True))
    assert sorted(seated) == sorted(p.player.pk for p in personas)
    assert_no_blocked_pair_seated_together()
    # Placed first-fit, the blocked ones fill the next games: every game but one full.
    games = list(Game.objects.filter(match_key__isnull=False))
    assert sorted(len(game.seating) for game in games)[1:] == [4] * (len(games) - 1)


@pytest.mark.django_db
def test_a_player_waiting_alone_gets_their_game_back_whatever_the_blocks(db):
    a, b = make_persona("A"), make_persona("B")
    waiting = batch(a, max_players=3)[0].game.pk
    BlockFactory(blocker=b.player, blocked=a.player)

    again = batch(a, b, max_players=3)

    assert again[0].game.pk == waiting
    assert again[0].events == []
    assert again[1].game.pk != waiting
    assert names(waiting) == ["A"]


@pytest.mark.django_db
def test_joining_a_quick_match_by_id_honours_blocks_too(db):
    a, b = make_persona("A"), make_persona("B")
    waiting = a.post("/matchmaking", {"max_players": 3}).json()["id"]
    BlockFactory(blocker=a.player, blocked=b.player)
    assert b.post(f"/games/{waiting}/join").status_code == 404
    assert b.post("/matchmaking", {"max_players": 3}).json()["id"] != waiting


# -- many at once, through the API -----------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_forty_players_asking_at_once_never_sit_with_one_they_block_or_who_blocks_them():
    personas = [make_persona(f"Q{n}") for n in range(PLAYERS)]
    # Neighbours in the order of asking, which batches tend to keep together; both ways.
    for n in range(BLOCKED_PAIRS):
        one, other = personas[2 * n], personas[2 * n + 1]
        if n % 2:
            one, other = other, one
        BlockFactory(blocker=one.player, blocked=other.player)
    barrier = threading.Barrier(PLAYERS)
    answers: dict[str, int] = {}
    errors: list[BaseException] = []

    def ask(persona: Persona) -> None:
        try:
            barrier.wait(timeout=30)
            response = persona.post("/matchmaking", {"max_players": 4, "bots_after": None})
            answers[persona.player.name] = response.status_code
        except BaseException as error:  # reported in the test's thread
            errors.append(error)
        finally:
            connection.close()  # each thread had a connection of its own

    threads = [threading.Thread(target=ask, args=(persona,)) for persona in personas]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)

    assert errors == []
    assert set(answers.values()) == {200}
    seated = list(Seat.objects.values_list("player", flat=True))
    assert sorted(seated) == sorted(p.player.pk for p in personas)  # each once
    games = list(Game.objects.filter(match_key__isnull=False))
    assert all(len(game.seating) <= 4 for game in games)
    # Blocks cost at most a few extra games: most fill and start.
    assert len(games) <= PLAYERS // 4 + BLOCKED_PAIRS
    assert_no_blocked_pair_seated_together()
