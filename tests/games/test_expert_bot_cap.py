"""Bots cost the service, not the player: the expert bots seated on one player's behalf
in the waiting and running games they are one of the players of are capped
(`MAX_EXPERT_BOTS_PER_PLAYER`, docs/api.md, Bots); beyond it a bot is refused with
409 `too_many_bots`. The bots the service seats itself (in a seat its player lost or
left, in a quick match's empty seats) are its own and do not count."""

from __future__ import annotations

from collections import Counter

import pytest
from django.conf import settings

from games import services
from games.models import Game, GameStatus, Seat
from tests.factories import (
    Persona,
    assert_error,
    finish_game,
    footprint,
    seat_table,
    stamp_game,
    start_game,
)
from tests.served import (
    Client,
    Served,
    together,
)

in_db = pytest.mark.django_db
CAP = 9


def test_the_cap_comes_from_the_settings_and_is_nine_by_default():
    assert settings.MAX_EXPERT_BOTS_PER_PLAYER == CAP


def table_of(player: Client, seats: int) -> str:
    answer = player.post("/games", {"max_players": seats})
    assert answer.status == 201, answer.body
    return str(answer.body["id"])


# -- from outside ------------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.slow
def test_one_account_cannot_fill_five_tables_with_expert_bots(served: Served):
    player = served.client().sign_up("Bot farmer")
    tables = [table_of(player, 10) for _ in range(5)]

    statuses = Counter(
        player.post(f"/games/{table}/bots", {"strategy": "expert"}).status
        for table in tables
        for _ in range(9)
    )

    assert statuses == {201: CAP, 409: 5 * 9 - CAP}
    refused = player.post(f"/games/{tables[1]}/bots", {"strategy": "expert"})
    assert refused.status == 409
    assert refused.body["error"]["code"] == "too_many_bots"
    assert refused.body["error"]["details"] == {"limit": CAP}
    # Other bots are cheap: they still take the seats.
    assert player.post(f"/games/{tables[1]}/bots", {"strategy": "greedy"}).status == 201


@pytest.mark.postgres
@pytest.mark.slow
def test_expert_bots_asked_for_together_on_many_tables_stop_exactly_at_the_cap(served: Served):
    player = served.client().sign_up("Bot farmer")
    tables = [table_of(player, 5) for _ in range(5)]
    calls = [
        lambda table=table: player.post(f"/games/{table}/bots", {"strategy": "expert"})
        for table in tables
        for _ in range(4)
    ]

    answers = together(calls)

    assert Counter(answer.status for answer in answers) == {201: CAP, 409: len(calls) - CAP}
    assert {a.body["error"]["code"] for a in answers if a.status == 409} == {"too_many_bots"}
    experts = Seat.objects.filter(game__in=tables, bot="expert", player__isnull=True)
    assert experts.count() == CAP


# -- what counts ---------------------------------------------------------------------------


def add_expert(persona: Persona, game: Game) -> object:
    return persona.post(f"/games/{game.pk}/bots", {"strategy": "expert"})


@in_db
def test_the_bot_beyond_the_cap_is_refused_and_changes_nothing(host):
    seat_table(host, *["expert"] * CAP, max_players=10)
    game = seat_table(host, max_players=4)
    before = footprint(game.pk)
    error = assert_error(add_expert(host, game), 409, "too_many_bots")
    assert error["details"] == {"limit": CAP}
    assert footprint(game.pk) == before


@in_db
def test_the_expert_bots_of_games_the_player_sits_in_count_whoever_seated_them(host, guest):
    seat_table(host, guest, *["expert"] * (CAP - 1), max_players=10)
    game = seat_table(guest, max_players=4)
    assert add_expert(guest, game).status_code == 201
    assert_error(add_expert(guest, game), 409, "too_many_bots")


@in_db
@pytest.mark.parametrize("status", ["finished", "abandoned"])
def test_games_that_are_over_do_not_count(host, status):
    stamp_game(host=host.player, seats=[host.player, *["expert"] * CAP], status=status)
    assert add_expert(host, seat_table(host, max_players=3)).status_code == 201


@in_db
def test_a_game_the_player_left_does_not_count(host, guest):
    game = seat_table(host, guest, *["expert"] * (CAP - 1), max_players=10)
    services.game_leave(game_id=game.pk, player=host.player)
    table = seat_table(host, max_players=3)
    assert add_expert(host, table).status_code == 201
    assert add_expert(host, table).status_code == 201


@in_db
def test_greedy_and_random_bots_are_not_capped(host):
    seat_table(host, *["expert"] * CAP, max_players=10)
    game = seat_table(host, max_players=10)
    for strategy in ["greedy", "random"] * 4:
        answer = host.post(f"/games/{game.pk}/bots", {"strategy": strategy})
        assert answer.status_code == 201, answer.json()


@in_db
def test_a_seat_the_service_gave_to_a_bot_does_not_count(host, guest):
    seat_table(host, *["expert"] * (CAP - 1), max_players=9)
    game = start_game(host, guest, seed=5, max_players=2)
    # The seats bots took over from players (left, or timed out) are the service's.
    Seat.objects.filter(game=game, player=guest.player).update(bot="expert", timed_out=True)
    assert add_expert(host, seat_table(host, max_players=3)).status_code == 201


@in_db
def test_a_rematch_that_would_bring_back_too_many_expert_bots_is_refused(host, guest):
    game = finish_game(start_game(host, *["expert"] * 5, seed=3, max_players=6), 0, host)
    seat_table(host, *["expert"] * 5, max_players=6)
    before = footprint(game.pk)
    assert_error(host.post(f"/games/{game.pk}/rematch"), 409, "too_many_bots")
    assert footprint(game.pk) == before
    assert Game.objects.filter(host=host.player, status=GameStatus.WAITING).count() == 1


@in_db
def test_a_rematch_within_the_cap_brings_its_expert_bots_back(host):
    game = finish_game(start_game(host, *["expert"] * 5, seed=3, max_players=6), 0, host)
    seat_table(host, *["expert"] * (CAP - 5), max_players=CAP - 4)
    answer = host.post(f"/games/{game.pk}/rematch")
    assert answer.status_code == 201, answer.json()
    assert [seat["bot"] for seat in answer.json()["seats"]][1:] == ["expert"] * 5


@in_db
def test_joining_a_rematch_with_expert_bots_is_not_adding_them(host, guest):
    game = finish_game(start_game(host, guest, *["expert"] * 4, seed=3, max_players=6), 0, host)
    seat_table(guest, *["expert"] * CAP, max_players=10)
    assert host.post(f"/games/{game.pk}/rematch").status_code == 201
    assert guest.post(f"/games/{game.pk}/rematch").status_code == 201


@in_db
def test_an_operators_match_among_bots_is_the_services_own(host):
    outcome = services.bot_match_start(host=host.player, strategies=["expert"] * 10)
    assert outcome.game.status == GameStatus.PLAYING
    assert add_expert(host, seat_table(host, max_players=3)).status_code == 201


@in_db
def test_the_cap_is_read_from_the_settings(host, settings):
    settings.MAX_EXPERT_BOTS_PER_PLAYER = 2
    game = seat_table(host, max_players=4)
    assert add_expert(host, game).status_code == 201
    assert add_expert(host, game).status_code == 201
    assert_error(add_expert(host, game), 409, "too_many_bots")
