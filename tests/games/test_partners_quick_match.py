"""The partners queue of quick match (docs/api.md, "Quick match"): `mode: "partners"`
seats four; two friends who each name the other as `partner` sit on one team, the
first to come holding a seat for the other; everyone else gets whatever partner the
queue finds, and bots fill what nobody took."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest
import time_machine
from django.utils import timezone

from games import services
from games.models import Game
from games.services.teams import team_order
from players.social.models import Block
from tests.factories import Persona, assert_error, make_friends, make_persona, reload

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rate_limits_off")]

PARTNERS = {"mode": "partners", "target_score": 0, "bots_after": 60}


def queue(persona: Persona, partner: Persona | None = None) -> dict[str, Any]:
    body = dict(PARTNERS)
    if partner is not None:
        body["partner"] = str(partner.player.pk)
    answer = persona.post("/matchmaking", body)
    assert answer.status_code == 200, answer.json()
    return dict(answer.json())


def seat_of(persona: Persona, game: Game) -> int:
    return next(
        n
        for n, entry in enumerate(game.seating)
        if entry["player"] and entry["player"]["id"] == str(persona.player.pk)
    )


@pytest.mark.parametrize("order", range(3))
def test_twenty_players_with_four_duos_seat_every_duo_on_one_team(order: int):
    people = [make_persona(f"P{n}") for n in range(20)]
    duos = [(people[n], people[n + 1]) for n in range(0, 8, 2)]
    for one, other in duos:
        make_friends(one, other)
    partner_of = {id(one): other for one, other in duos} | {id(o): one for one, o in duos}
    arrivals = list(people)
    random.Random(order).shuffle(arrivals)
    for persona in arrivals:
        queue(persona, partner_of.get(id(persona)))
    games = list(Game.objects.filter(match_key__isnull=False))
    assert len(games) == 5
    assert all(game.status == "playing" and game.mode == "partners" for game in games)
    for one, other in duos:
        game = Game.objects.get(seats__player=one.player)
        assert Game.objects.get(seats__player=other.player).pk == game.pk
        assert seat_of(one, game) % 2 == seat_of(other, game) % 2
        assert game.state is not None


def test_a_duo_member_holds_a_seat_that_no_stranger_takes():
    ann, bob = make_persona("Ann"), make_persona("Bob")
    make_friends(ann, bob)
    strangers = [make_persona(f"S{n}") for n in range(3)]
    first = queue(ann, bob)
    queue(strangers[0])
    queue(strangers[1])  # the game now has Ann, two strangers and Bob's seat
    third = queue(strangers[2])
    assert third["id"] != first["id"]
    joined = queue(bob, ann)
    assert joined["id"] == first["id"]
    game = reload(first["id"])
    assert game.status == "playing"
    assert seat_of(ann, game) % 2 == seat_of(bob, game) % 2
    types = [e["type"] for e in ann.get(f"/games/{game.pk}/events").json()["events"]]
    assert types.index("seats_arranged") < types.index("game_started")


def test_a_partner_who_never_comes_leaves_their_seat_to_a_bot():
    ann, bob = make_persona("Ann"), make_persona("Bob")
    make_friends(ann, bob)
    game_id = queue(ann, bob)["id"]
    later = timezone.now() + dt.timedelta(seconds=61)
    with time_machine.travel(later, tick=False):
        game = reload(game_id)
        services.match_bots_fill(game_id=game.pk, version=game.version)
    game = reload(game_id)
    assert game.status == "playing"
    assert sum(1 for entry in game.seating if entry["bot"]) == 3


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"mode": "partners", "max_players": 3}, 422, "settings_conflict"),
        ({"partner": "self-friend"}, 422, "settings_conflict"),
        ({"mode": "partners", "partner": "stranger"}, 403, "forbidden"),
        ({"mode": "partners", "partner": "self"}, 400, "invalid_request"),
        ({"mode": "partners", "partner": "not-an-id"}, 400, "invalid_request"),
    ],
)
def test_a_partner_who_is_no_friend_or_no_partners_queue_is_refused(
    host, guest, body, status, code
):
    make_friends(host, guest)
    ids = {
        "self-friend": str(guest.player.pk),
        "stranger": str(make_persona("Zed").player.pk),
        "self": str(host.player.pk),
    }
    if "partner" in body:
        body = {**body, "partner": ids.get(body["partner"], body["partner"])}
    assert_error(host.post("/matchmaking", body), status, code)
    assert not Game.objects.exists()


@pytest.mark.parametrize(
    ("holders", "order"),
    [
        (["a", "x", "y", "b"], [0, 1, 3, 2]),  # a and b across, the host stays at 0
        (["x", "a", "b", "y"], [0, 1, 3, 2]),
        (["a", "c", "b", "d"], [0, 1, 2, 3]),  # both duos already across
        (["a", "c", "d", "b"], [0, 1, 3, 2]),
        (["a", "b", None, "x"], [0, 2, 1, 3]),
        (["a", "x", "y", "z"], [0, 1, 2, 3]),  # a named nobody here
        (["a", "b"], [0, 1]),
    ],
)
def test_the_deal_seats_each_duo_that_named_each_other_across_the_table(holders, order):
    duos = {"a": "b", "b": "a", "c": "d", "d": "c", "y": "a"}
    assert team_order(holders, duos) == order


def test_a_held_seat_is_not_taken_where_a_block_stands():
    ann, bob, sam = make_persona("Ann"), make_persona("Bob"), make_persona("Sam")
    make_friends(ann, bob)
    Block.objects.create(blocker=sam.player, blocked=bob.player)
    first = queue(ann, bob)
    assert queue(sam)["id"] == first["id"]
    assert queue(bob, ann)["id"] != first["id"]
