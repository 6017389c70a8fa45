"""A private game is, to anyone who may not see it, a game that does not exist: every
endpoint and stream of a game answers an outsider exactly as it answers an unknown
id (docs/api.md, Private games and invite codes). Walked over HTTP against the
production server, over every route of the API that names a game, so that a new
endpoint cannot be forgotten; and the rematch of a private game, which its second
player could not join."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from games import services
from games.models import Game
from tests.factories import (
    Persona,
    assert_error,
    finish_game,
    make_persona,
    seat_table,
    start_game,
)
from tests.served import (
    Answer,
    Served,
)

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
# What each route's POST sends: a body its checks accept, so that the answer is the
# game's (the body is checked before the game is looked up). A new route that takes
# a body must be added here, or its answer is a 400 and the walk fails.
BODIES: dict[str, Any] = {
    "game-bots": {"strategy": "expert"},
    "game-seating": {"order": [0]},
    "game-moves": {"version": 1, "action": "draw"},
    "game-challenge": {"version": 1, "challenge": True},
}
# Requests that the server answers on paths of their own (unoservice.asgi): the long
# poll that waits.
QUERIES: dict[str, list[str]] = {"game-events": ["", "?after=0&wait=1"]}
# What may differ between two answers that are the same: the request's own id, when.
PER_REQUEST_HEADERS = {"date", "x-request-id"}


def game_routes() -> list[tuple[str, str]]:
    """(name, route) of every URL of the API that names a game, the path's parameter
    as `{game_id}`."""

    def walk(patterns: list[Any], prefix: str) -> Iterator[tuple[str, str]]:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern) and "<str:game_id>" in route:
                yield str(pattern.name), "/" + route.replace("<str:game_id>", "{game_id}")

    return sorted(walk(get_resolver().url_patterns, ""))


def test_the_walk_covers_every_game_endpoint_the_docs_name():
    names = {name for name, _ in game_routes()}
    assert {
        "game",
        "game-join",
        "game-bots",
        "game-seating",
        "game-start",
        "game-leave",
        "game-resume",
        "game-rematch",
        "game-moves",
        "game-challenge",
        "game-events",
        "game-stream",
        "game-stream-ticket",
        "game-log",
        "game-replay",
    } <= names


def same_answer(answer: Answer) -> tuple[Any, ...]:
    headers = {k: v for k, v in answer.headers.items() if k not in PER_REQUEST_HEADERS}
    return answer.status, answer.body, headers


def private_game(host: Persona, guest: Persona, status: str) -> Game:
    if status == "waiting":
        return seat_table(host, guest, max_players=3, visibility="private")
    game = start_game(host, guest, seed=7, visibility="private")
    return game if status == "playing" else finish_game(game, 0, host)


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.parametrize("status", ["waiting", "playing", "finished"])
def test_every_game_endpoint_answers_an_outsider_as_for_an_unknown_id(
    served: Served, host, guest, outsider, status
):
    game = private_game(host, guest, status)
    client = served.client(outsider.token)
    unknown = uuid.uuid4()
    checked, differing = [], []
    for name, route in game_routes():
        for query in QUERIES.get(name, [""]):
            for method in METHODS:
                body = BODIES.get(name) if method != "GET" else None
                hidden = client.request(method, route.format(game_id=game.pk) + query, body)
                missing = client.request(method, route.format(game_id=unknown) + query, body)
                where = f"{method} {route}{query}"
                if same_answer(hidden) != same_answer(missing):
                    differing.append((where, hidden.status, hidden.body))
                elif hidden.status != 405:  # (a method the route does not take)
                    assert hidden.status == 404, (where, hidden.body)
                    assert hidden.body["error"]["code"] == "not_found", where
                    checked.append(where)
    assert differing == []
    # Each route answered 404 to a method it takes, at least.
    assert {where.split()[1].split("?")[0] for where in checked} == {
        route for _, route in game_routes()
    }
    assert Game.objects.get(pk=game.pk).version == game.version


# -- what the services say to outsiders, seat holders and staff --------------------------


in_db = pytest.mark.django_db


@in_db
@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("start", None),
        ("leave", None),
        ("resume", None),
        ("bots", {"strategy": "greedy"}),
        ("moves", {"version": 1, "action": "draw"}),
        ("challenge", {"version": 1, "challenge": True}),
    ],
)
def test_an_outsider_gets_404_from_every_action_on_a_private_game(
    host, guest, outsider, path, body
):
    game = seat_table(host, guest, visibility="private")
    answer = outsider.post(f"/games/{game.pk}/{path}", body)
    error = assert_error(answer, 404, "not_found")
    assert error["message"] == "no such game"
    assert Game.objects.get(pk=game.pk).version == game.version


@in_db
def test_an_outsider_gets_404_from_the_rematch_of_a_private_game(host, guest, outsider):
    game = finish_game(start_game(host, guest, seed=7, visibility="private"), 0, host)
    assert_error(outsider.post(f"/games/{game.pk}/rematch"), 404, "not_found")


@in_db
def test_a_player_who_left_a_private_game_is_an_outsider_to_it(host, guest):
    game = start_game(host, guest, seed=7, visibility="private", max_players=3)
    services.game_leave(game_id=game.pk, player=guest.player)
    assert_error(guest.post(f"/games/{game.pk}/leave"), 404, "not_found")
    assert_error(guest.post(f"/games/{game.pk}/resume"), 404, "not_found")


@in_db
def test_staff_who_do_not_sit_at_a_private_game_still_get_403_from_its_actions(host, guest, staff):
    game = seat_table(host, guest, visibility="private")
    assert_error(staff.post(f"/games/{game.pk}/start"), 403, "forbidden")


@in_db
def test_an_outsider_still_gets_403_from_the_actions_of_a_public_game(host, guest, outsider):
    game = seat_table(host, guest)
    assert_error(outsider.post(f"/games/{game.pk}/start"), 403, "forbidden")


# -- the rematch of a private game ---------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.slow
def test_the_second_player_asking_for_a_private_games_rematch_takes_a_seat_in_it(
    served: Served, host, guest
):
    third = make_persona("Third")
    game = start_game(host, guest, third, seed=7, visibility="private")
    finish_game(game, 0, host)

    first = served.client(guest.token).post(f"/games/{game.pk}/rematch")
    second = served.client(host.token).post(f"/games/{game.pk}/rematch")
    third_answer = served.client(third.token).post(f"/games/{game.pk}/rematch")

    assert (first.status, second.status, third_answer.status) == (201, 201, 201), second.body
    assert first.body["id"] == second.body["id"] == third_answer.body["id"]
    names = [seat["player"]["name"] for seat in third_answer.body["seats"]]
    assert names == ["Guest", "Host", "Third"]
    assert third_answer.body["visibility"] == "private"
    assert third_answer.body["invite_code"] is not None


@in_db
def test_a_player_who_left_a_private_game_cannot_join_its_rematch_by_asking(host, guest):
    third = make_persona("Third")
    game = start_game(host, guest, third, seed=7, visibility="private")
    services.game_leave(game_id=game.pk, player=third.player)
    finish_game(Game.objects.get(pk=game.pk), 0, host)
    assert host.post(f"/games/{game.pk}/rematch").status_code == 201
    assert guest.post(f"/games/{game.pk}/rematch").status_code == 201
    assert_error(third.post(f"/games/{game.pk}/rematch"), 404, "not_found")
