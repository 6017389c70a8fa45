"""Presence in the game view (docs/api.md, "The game view"): each seat says whether
its player is online (a request in the last 30 s, or a stream open; bots always),
and the view counts the spectators' streams. Streams are in
tests/games/live/test_presence_streams.py."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.core.cache import cache
from django.utils import timezone

from games.engine.cards import CARDS
from tests.factories import Persona, seat_table, seed_where, start_game
from tests.games.test_games_lobby_api import SEAT_KEYS
from tests.unoservice.test_presence import CountingCache
from unoservice import presence

pytestmark = pytest.mark.django_db


def online(view: dict[str, object]) -> list[bool]:
    return [seat["online"] for seat in view["seats"]]  # type: ignore[attr-defined, index]


def test_a_seated_player_is_online_after_a_request_and_offline_thirty_seconds_later(
    host: Persona, guest: Persona, outsider: Persona
) -> None:
    game = seat_table(host, guest)
    now = timezone.now()
    with time_machine.travel(now, tick=False):
        assert online(outsider.get(f"/games/{game.pk}").json()) == [False, False]
        assert guest.get("/games").status_code == 200  # any authenticated request
        assert online(outsider.get(f"/games/{game.pk}").json()) == [False, True]
    with time_machine.travel(now + dt.timedelta(seconds=31), tick=False):
        assert online(outsider.get(f"/games/{game.pk}").json()) == [False, False]


def test_the_caller_sees_themself_online_in_the_answer_to_their_own_request(
    host: Persona, guest: Persona
) -> None:
    game = seat_table(host, guest)
    assert online(host.get(f"/games/{game.pk}").json()) == [True, False]


def test_bots_are_always_online_and_a_game_nobody_watches_has_no_spectators(
    host: Persona,
) -> None:
    game = start_game(host, "greedy", "random", seed=3)
    with time_machine.travel(timezone.now() + dt.timedelta(hours=1), tick=False):
        view = host.get(f"/games/{game.pk}").json()
    assert online(view) == [True, True, True]
    assert view["spectators"] == 0


def test_a_seat_a_bot_took_over_is_online_whoever_held_it(host: Persona, guest: Persona) -> None:
    game = start_game(host, guest, "greedy", seed=3)
    assert guest.post(f"/games/{game.pk}/leave").status_code == 200
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=5), tick=False):
        view = host.get(f"/games/{game.pk}").json()
    assert view["seats"][1]["bot"] == "greedy"
    assert online(view) == [True, True, True]


def test_the_move_answer_and_the_seat_actions_carry_presence(host: Persona, guest: Persona) -> None:
    # A deal whose first turn is a plain one (no colour to choose, no penalty pending).
    game = seat_table(host, guest, seed=seed_where(2, lambda s: s.pending is None))
    view = host.post(f"/games/{game.pk}/start").json()
    assert online(view) == [True, False]  # the guest joined through the services: unseen
    assert view["spectators"] == 0
    mover = host if view["current_seat"] == 0 else guest
    assert guest.get("/games").status_code == 200
    table = mover.get(f"/games/{game.pk}").json()
    move = next(m for m in table["you"]["legal_moves"] if m["action"] in ("draw", "play"))
    answer = mover.move(game.pk, table["version"], **move).json()
    assert online(answer["game"]) == [True, True]


def test_spectators_published_by_the_servers_streams_show_in_every_view(
    host: Persona, guest: Persona
) -> None:
    game = start_game(host, guest, seed=3)
    first, second = presence.Publisher(), presence.Publisher()
    first.count(str(game.pk), 2)
    second.count(str(game.pk), 1)
    assert host.get(f"/games/{game.pk}").json()["spectators"] == 3
    second.count(str(game.pk), 0)
    assert guest.get(f"/games/{game.pk}").json()["spectators"] == 2


def test_requests_write_a_players_presence_once_per_few_seconds_and_cost_no_query(
    host: Persona, guest: Persona, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    game = seat_table(host, guest)
    host.get(f"/games/{game.pk}")  # the first request writes
    counting = CountingCache(cache)
    monkeypatch.setattr(presence, "cache", counting)
    now = timezone.now()
    with time_machine.travel(now, tick=False), CaptureQueriesContext(connection) as captured:
        for _ in range(20):
            assert host.get(f"/games/{game.pk}").status_code == 200
    assert counting.writes == 0
    assert counting.calls == {"get_many": 20}  # one read of presence per view
    assert len(captured) == 40  # the token and the game, as before: presence is no query
    with time_machine.travel(now + dt.timedelta(seconds=presence.REFRESH_SECONDS + 1)):
        for _ in range(20):
            host.get("/games")
    assert counting.writes == 1


def test_presence_adds_no_card_to_any_view(
    host: Persona, guest: Persona, outsider: Persona
) -> None:
    game = start_game(host, guest, seed=3)
    hands = game.state["hands"]
    for persona, seat in ((host, 0), (guest, 1), (outsider, None)):
        view = persona.get(f"/games/{game.pk}").json()
        for number, entry in enumerate(view["seats"]):
            assert set(entry) - {"online"} == SEAT_KEYS - {"online"}
            assert entry["card_count"] == len(hands[number])
        held = [card["id"] for card in view["you"]["hand"]] if view["you"] else []
        assert held == ([] if seat is None else list(hands[seat]))
        assert isinstance(view["spectators"], int)
    assert len(CARDS) == 112
