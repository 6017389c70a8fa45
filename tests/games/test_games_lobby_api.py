"""The lobby through HTTP: create, list, detail, join, bots, start and leave (docs/api.md)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from games.models import Event, Game
from tests.factories import (
    API,
    Persona,
    assert_error,
    footprint,
    make_persona,
    seat_table,
    stamp_game,
)

VIEW_KEYS = {
    "id",
    "status",
    "version",
    "host",
    "max_players",
    "target_score",
    "turn_timeout",
    "rules",
    "visibility",
    "rated",
    "free_text",
    "unrated_reason",
    "invite_code",
    "created_at",
    "quick_match",
    "bots_at",
    "seats",
    "spectators",
    "round",
    "dealer",
    "current_seat",
    "direction",
    "current_color",
    "top_card",
    "draw_pile_count",
    "discard_pile_count",
    "pending",
    "turn_deadline",
    "paused_until",
    "winner",
    "rematch",
    "last_seq",
    "deal_algorithm",
    "deal_commitment",
    "mode",
    "partners_see_hands",
    "deck",
    "shuffle_hands_last_card",
    "wild_customizable",
    "you",
}
ROUND_LEVEL = (
    "round",
    "dealer",
    "current_seat",
    "direction",
    "current_color",
    "top_card",
    "draw_pile_count",
    "discard_pile_count",
    "pending",
    "turn_deadline",
    "paused_until",
    "winner",
    "rematch",
)
SEAT_KEYS = {
    "seat",
    "player",
    "bot",
    "card_count",
    "score",
    "said_uno",
    "timeouts",
    "online",
    "team",
}
CARD_KEYS = {"id", "code", "color", "kind", "number"}
SUMMARY_KEYS = {
    "id",
    "status",
    "host",
    "players",
    "max_players",
    "target_score",
    "mode",
    "deck",
    "shuffle_hands_last_card",
    "wild_customizable",
    "rules",
    "visibility",
    "rated",
    "unrated_reason",
    "created_at",
    "round",
    "to_act",
    "your_turn",
    "turn_deadline",
}
RULE_NAMES = {"stacking", "seven_o", "jump_in", "draw_until_playable", "force_play"}
DEFAULT_RULES = dict.fromkeys(RULE_NAMES, False)
MOVE_ACTIONS = {"play", "draw", "pass", "choose_color", "call_uno", "catch_uno"}


def new_game(host: Persona, **body: Any) -> dict[str, Any]:
    response = host.post("/games", body)
    assert response.status_code == 201, response.json()
    return response.json()


def started(host: Persona, *others: Persona, **options: Any) -> dict[str, Any]:
    """A game of the host and `others` (seed 11, to 500 points unless `options` say
    otherwise), started through the API: the host's view the start answered."""
    game = seat_table(host, *others, seed=11, **{"target_score": 500, **options})
    response = host.post(f"/games/{game.pk}/start")
    assert response.status_code == 200, response.json()
    return response.json()  # type: ignore[no-any-return]


def event_types(persona: Persona, game_id: str, after: int = 0) -> list[tuple[str, Any]]:
    events = persona.get(f"/games/{game_id}/events", after=after).json()["events"]
    return [(e["type"], e["seat"]) for e in events]


def assert_card(card: dict[str, Any]) -> None:
    assert set(card) == CARD_KEYS
    assert 0 <= card["id"] <= 107
    assert card["color"] in ("red", "yellow", "green", "blue", None)
    assert card["kind"] in ("number", "skip", "reverse", "draw_two", "wild", "wild_draw_four")
    assert card["number"] is None or 0 <= card["number"] <= 9
    assert re.fullmatch(r"[RYGB]([0-9]|S|R|\+2)|W|W\+4", card["code"])
    if card["kind"] == "number":
        assert card["code"][1:] == str(card["number"])
    else:
        assert card["number"] is None
    assert (card["color"] is None) == (card["kind"] in ("wild", "wild_draw_four"))
    if card["color"] is not None:
        assert card["code"][0] == card["color"][0].upper()


# -- POST /games -----------------------------------------------------------------------


def test_creating_a_game_with_an_empty_body_uses_the_defaults_and_seats_the_host_at_0(host):
    view = new_game(host)
    assert view["status"] == "waiting"
    assert view["max_players"] == 4
    assert view["target_score"] == 500
    assert view["turn_timeout"] is None
    assert view["rules"] == DEFAULT_RULES
    assert view["host"] == {
        "id": str(host.player.pk),
        "name": "Host",
        "tag": host.player.tag,
    }
    assert [s["seat"] for s in view["seats"]] == [0]
    assert view["seats"][0]["player"] == {
        "id": str(host.player.pk),
        "name": "Host",
        "tag": host.player.tag,
    }
    assert view["seats"][0]["bot"] is None
    made_seed = view["you"]["client_seed"]  # made for a player who sent none
    assert view["you"] == {
        "seat": 0,
        "hand": [],
        "legal_moves": [],
        "client_seed": made_seed,
        "partner_hand": None,
    }
    assert re.fullmatch("[0-9a-f]{32}", made_seed)
    assert Game.objects.get(pk=view["id"]).host_id == host.player.pk


def test_creating_a_game_without_any_body_at_all_uses_the_defaults(host):
    response = host.client.post(API + "/games")
    assert response.status_code == 201, response.json()
    assert response.json()["max_players"] == 4


def test_a_created_game_has_exactly_the_view_fields_of_api_md_with_round_fields_null(host):
    view = new_game(host)
    assert set(view) == VIEW_KEYS
    for name in ROUND_LEVEL:
        assert view[name] is None, name
    assert isinstance(view["version"], int)
    assert isinstance(view["last_seq"], int)
    assert isinstance(view["created_at"], str)
    assert set(view["seats"][0]) == SEAT_KEYS
    assert set(view["you"]) == {"seat", "hand", "legal_moves", "client_seed", "partner_hand"}


def test_creating_a_game_logs_the_host_joining(host):
    view = new_game(host)
    assert view["last_seq"] == 1
    events = host.get(f"/games/{view['id']}/events").json()["events"]
    assert [(e["seq"], e["type"], e["seat"]) for e in events] == [(1, "player_joined", 0)]
    assert events[0]["data"] == {"player": {"id": str(host.player.pk), "name": "Host"}}


def test_every_field_of_a_new_game_can_be_set(host):
    rules = {
        "stacking": True,
        "seven_o": True,
        "jump_in": True,
        "draw_until_playable": True,
        "force_play": True,
    }
    view = new_game(host, max_players=6, target_score=250, turn_timeout=30, rules=rules, seed=123)
    assert (view["max_players"], view["target_score"], view["turn_timeout"]) == (6, 250, 30)
    assert view["rules"] == rules
    assert Game.objects.get(pk=view["id"]).seed == 123


def test_rules_left_out_of_a_new_game_are_off(host):
    view = new_game(host, rules={"stacking": True})
    assert view["rules"] == {**DEFAULT_RULES, "stacking": True}


@pytest.mark.parametrize(
    "body",
    [
        {"max_players": 2},
        {"max_players": 10},
        {"target_score": 0},
        {"target_score": 10000},
        {"turn_timeout": 5},
        {"turn_timeout": 604800},
        {"turn_timeout": None},
        {"rules": {}},
        {"seed": 0},
        {"seed": 2**53 - 1},
    ],
    ids=repr,
)
def test_the_limits_of_every_field_are_accepted(host, body):
    view = new_game(host, **body)
    for key, value in body.items():
        if key not in ("rules", "seed"):
            assert view[key] == value


@pytest.mark.parametrize(
    "body",
    [
        {"max_players": 1},
        {"max_players": 11},
        {"max_players": 0},
        {"max_players": -4},
        {"target_score": -1},
        {"target_score": 10001},
        {"turn_timeout": 4},
        {"turn_timeout": 0},
        {"turn_timeout": -60},
        {"turn_timeout": 604801},
        {"seed": 2**53},
        {"seed": -1},
        {"seed": 2**63},
        {"seed": -(2**63) - 1},
        {"max_players": 10**30},
    ],
    ids=repr,
)
def test_an_out_of_range_field_is_a_400_and_creates_no_game(host, body):
    assert_error(host.post("/games", body), 400, "invalid_request")
    assert Game.objects.count() == 0


@pytest.mark.parametrize(
    "body",
    [
        {"max_players": "4"},
        {"max_players": 4.0},
        {"max_players": 4.5},
        {"max_players": True},
        {"max_players": None},
        {"max_players": [4]},
        {"target_score": "500"},
        {"target_score": False},
        {"target_score": None},
        {"turn_timeout": "60"},
        {"turn_timeout": True},
        {"turn_timeout": 60.0},
        {"seed": "123"},
        {"seed": True},
        {"seed": 1.5},
        {"rules": {"stacking": 1}},
        {"rules": {"stacking": 0}},
        {"rules": {"stacking": "true"}},
        {"rules": {"seven_o": None}},
        {"rules": []},
        {"rules": "stacking"},
        {"rules": True},
        {"rules": None},
    ],
    ids=repr,
)
def test_a_field_of_the_wrong_json_type_is_a_400_and_creates_no_game(host, body):
    assert_error(host.post("/games", body), 400, "invalid_request")
    assert Game.objects.count() == 0


@pytest.mark.parametrize("rules", [{"stackin": True}, {"stacking": True, "sevens": False}, {"": 1}])
def test_an_unknown_key_in_rules_is_a_400(host, rules):
    error = assert_error(host.post("/games", {"rules": rules}), 400, "invalid_request")
    assert error["message"]
    assert Game.objects.count() == 0


@pytest.mark.parametrize("body", [[], [{"max_players": 2}], "game", 4, True])
def test_a_body_that_is_not_an_object_is_a_400(host, body):
    assert_error(host.post("/games", body), 400, "invalid_request")
    assert Game.objects.count() == 0


def test_creating_a_game_needs_a_token(anonymous, db):
    assert_error(anonymous.post(API + "/games", {}, format="json"), 401, "not_authenticated")
    assert Game.objects.count() == 0


# -- GET /games ------------------------------------------------------------------------


def test_the_game_list_is_paginated_with_count_next_previous_and_results(host):
    game = new_game(host)
    response = host.get("/games")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert set(body) == {"count", "next", "previous", "results"}
    assert body["count"] == 1
    assert body["next"] is None
    assert body["previous"] is None
    [summary] = body["results"]
    assert set(summary) == SUMMARY_KEYS
    assert summary["id"] == game["id"]
    assert summary["status"] == "waiting"
    assert summary["host"] == {
        "id": str(host.player.pk),
        "name": "Host",
        "tag": host.player.tag,
    }
    assert summary["max_players"] == 4
    assert summary["rules"] == DEFAULT_RULES
    assert summary["created_at"] == game["created_at"]
    assert str(host.player.pk) in str(summary["players"])


def test_the_summary_lists_players_and_bots(host, guest):
    game = new_game(host)
    guest.post(f"/games/{game['id']}/join")
    host.post(f"/games/{game['id']}/bots", {"strategy": "expert"})
    [summary] = host.get("/games").json()["results"]
    assert len(summary["players"]) == 3
    text = str(summary["players"])
    assert str(host.player.pk) in text
    assert str(guest.player.pk) in text
    assert "expert" in text


def test_the_game_list_pages_through_many_games(host):
    for _ in range(53):
        stamp_game(host=host.player)
    first = host.get("/games").json()
    assert first["count"] == 53
    assert first["previous"] is None
    assert first["next"]
    second = host.client.get(first["next"]).json()
    assert second["count"] == 53
    assert second["next"] is None
    assert second["previous"]
    ids = [g["id"] for g in first["results"]] + [g["id"] for g in second["results"]]
    assert len(ids) == len(set(ids)) == 53


def test_a_page_past_the_end_of_the_list_is_a_json_404(host):
    new_game(host)
    assert_error(host.get("/games", page=99), 404, "not_found")


@pytest.mark.parametrize("status", ["waiting", "playing", "finished", "abandoned"])
def test_the_list_filters_by_status(host, guest, status):
    made = {s: stamp_game(host=host.player, status=s) for s in ("playing", "finished", "abandoned")}
    waiting = new_game(host)
    expected = waiting["id"] if status == "waiting" else str(made[status].pk)
    body = host.get("/games", status=status).json()
    assert body["count"] == 1
    assert [g["id"] for g in body["results"]] == [expected]
    assert body["results"][0]["status"] == status


def test_a_started_game_is_listed_as_playing(host, guest):
    game = started(host, guest)
    body = host.get("/games", status="playing").json()
    assert [g["id"] for g in body["results"]] == [game["id"]]
    assert host.get("/games", status="waiting").json()["count"] == 0


def test_the_list_tells_the_round_of_a_running_game_and_none_before_the_deal(host, guest):
    game = started(host, guest)
    waiting = new_game(host, max_players=3)
    rounds = {g["id"]: g["round"] for g in host.get("/games").json()["results"]}
    assert rounds == {game["id"]: game["round"], waiting["id"]: None}
    assert game["round"] == 1


def test_mine_lists_only_the_games_the_caller_sits_in(host, guest, outsider):
    mine = new_game(host)
    guest.post(f"/games/{mine['id']}/join")
    other = new_game(outsider)
    assert [g["id"] for g in host.get("/games", mine="true").json()["results"]] == [mine["id"]]
    assert [g["id"] for g in guest.get("/games", mine="true").json()["results"]] == [mine["id"]]
    assert [g["id"] for g in outsider.get("/games", mine="true").json()["results"]] == [other["id"]]
    assert make_persona("Nobody").get("/games", mine="true").json() == {
        "count": 0,
        "next": None,
        "previous": None,
        "results": [],
    }


def test_without_mine_every_game_is_listed(host, outsider):
    new_game(host)
    new_game(outsider)
    assert outsider.get("/games").json()["count"] == 2
    assert outsider.get("/games", mine="false").json()["count"] == 2


def test_status_and_mine_filters_combine(host, guest):
    game = started(host, guest)
    new_game(host)
    stamp_game(status="playing")
    body = guest.get("/games", status="playing", mine="true").json()
    assert [g["id"] for g in body["results"]] == [game["id"]]


@pytest.mark.parametrize(
    "params",
    [
        {"status": "bogus"},
        {"status": "WAITING"},
        {"mine": "maybe"},
        {"mine": "2"},
    ],
    ids=repr,
)
def test_an_invalid_filter_value_is_a_400(host, params):
    new_game(host)
    assert_error(host.get("/games", **params), 400, "invalid_request")


def test_listing_games_needs_a_token(anonymous, db):
    assert_error(anonymous.get(API + "/games"), 401, "not_authenticated")


# -- GET /games/{id} -------------------------------------------------------------------


def test_a_seated_player_sees_their_seat_in_you(host, guest):
    game = new_game(host)
    guest.post(f"/games/{game['id']}/join")
    view = guest.get(f"/games/{game['id']}").json()
    made_seed = view["you"]["client_seed"]  # made for a player who sent none
    assert view["you"] == {
        "seat": 1,
        "hand": [],
        "legal_moves": [],
        "client_seed": made_seed,
        "partner_hand": None,
    }
    assert re.fullmatch("[0-9a-f]{32}", made_seed)


def test_a_spectator_gets_the_view_with_you_null(host, outsider):
    game = new_game(host)
    response = outsider.get(f"/games/{game['id']}")
    assert response.status_code == 200, response.json()
    view = response.json()
    assert set(view) == VIEW_KEYS
    assert view["you"] is None
    assert view["id"] == game["id"]


def test_a_started_game_view_has_every_round_field_filled_in(host, guest):
    view = started(host, guest)
    assert set(view) == VIEW_KEYS
    assert view["status"] == "playing"
    assert view["round"] == 1
    assert view["dealer"] in (0, 1)
    assert view["direction"] in ("clockwise", "counterclockwise")
    assert view["current_color"] in ("red", "yellow", "green", "blue", None)
    assert_card(view["top_card"])
    to_act = view["pending"]["seat"] if view["pending"] else view["current_seat"]
    assert to_act in (0, 1)
    if view["pending"] is not None:
        assert view["pending"]["type"] in ("challenge", "choose_color", "drawn_card", "stack")
    assert view["winner"] is None
    assert view["turn_deadline"] is None  # no turn timeout was set
    counts = sum(s["card_count"] for s in view["seats"])
    assert counts + view["draw_pile_count"] + view["discard_pile_count"] == 108
    for seat in view["seats"]:
        assert set(seat) == SEAT_KEYS
        assert seat["score"] == 0
        assert seat["said_uno"] is False
        assert seat["timeouts"] == 0
    you = view["you"]
    assert you["seat"] == 0
    assert len(you["hand"]) == view["seats"][0]["card_count"]
    for card in you["hand"]:
        assert_card(card)


def test_legal_moves_are_whole_move_bodies_carrying_the_views_version(host, guest):
    view = started(host, guest)
    to_act = view["pending"]["seat"] if view["pending"] else view["current_seat"]
    mover = (host, guest)[to_act]
    seen = mover.get(f"/games/{view['id']}").json()
    moves = seen["you"]["legal_moves"]
    assert moves
    for move in moves:
        assert move["version"] == seen["version"]
        assert move["action"] in MOVE_ACTIONS
        assert set(move) <= {"action", "card", "color", "uno", "target", "version"}


def test_a_spectator_of_a_running_game_sees_counts_but_no_hand(host, guest, outsider):
    game = started(host, guest)
    view = outsider.get(f"/games/{game['id']}").json()
    assert view["you"] is None
    assert [s["card_count"] for s in view["seats"]] == [s["card_count"] for s in game["seats"]]
    hand = [c["id"] for c in game["you"]["hand"]]
    assert '"hand"' not in str(view)
    assert view["top_card"]["id"] not in hand


def test_a_game_with_a_turn_timeout_shows_a_deadline_once_started(host, guest):
    view = started(host, guest, turn_timeout=60)
    assert isinstance(view["turn_deadline"], str)


@pytest.mark.parametrize(
    "game_id", ["00000000-0000-0000-0000-000000000000", "not-a-uuid", "123", "%20", "x" * 300]
)
def test_an_unknown_or_malformed_game_id_is_a_404(host, game_id):
    assert_error(host.get(f"/games/{game_id}"), 404, "not_found")


@pytest.mark.parametrize(
    "action", ["join", "bots", "start", "leave", "rematch", "moves", "challenge"]
)
@pytest.mark.parametrize("game_id", ["5f0c4b1e-3f4c-4d4b-9a8e-2b8f8f0a9f10", "nope"])
def test_every_game_action_on_an_unknown_or_malformed_game_id_is_a_404(host, action, game_id):
    body = {"version": 1, "action": "draw", "strategy": "random", "challenge": True}
    if action in ("join", "start"):
        body = {"client_seed": "5eed"}
    elif action == "moves":
        body = {"version": 1, "action": "draw"}
    elif action == "challenge":
        body = {"version": 1, "challenge": True}
    elif action == "bots":
        body = {"strategy": "random"}
    assert_error(host.post(f"/games/{game_id}/{action}", body), 404, "not_found")


def test_viewing_a_game_needs_a_token(host, anonymous):
    game = new_game(host)
    assert_error(anonymous.get(f"{API}/games/{game['id']}"), 401, "not_authenticated")


# -- POST /games/{id}/join -------------------------------------------------------------


def test_joining_seats_the_player_at_the_next_seat(host, guest):
    game = new_game(host)
    response = guest.post(f"/games/{game['id']}/join")
    assert response.status_code == 200, response.json()
    view = response.json()
    assert set(view) == VIEW_KEYS
    assert view["you"]["seat"] == 1
    assert view["seats"][1]["player"] == {
        "id": str(guest.player.pk),
        "name": "Guest",
        "tag": guest.player.tag,
    }
    assert view["seats"][1]["bot"] is None
    assert view["version"] == game["version"] + 1
    assert view["last_seq"] == game["last_seq"] + 1
    assert event_types(host, game["id"], after=game["last_seq"]) == [("player_joined", 1)]


def test_joining_again_is_a_no_op(host, guest):
    game = new_game(host)
    first = guest.post(f"/games/{game['id']}/join").json()
    before = footprint(game["id"])
    again = guest.post(f"/games/{game['id']}/join")
    assert again.status_code == 200, again.json()
    assert again.json()["version"] == first["version"]
    assert again.json()["last_seq"] == first["last_seq"]
    assert again.json()["you"]["seat"] == 1
    assert footprint(game["id"]) == before


def test_the_host_joining_their_own_game_is_a_no_op(host):
    game = new_game(host)
    before = footprint(game["id"])
    response = host.post(f"/games/{game['id']}/join")
    assert response.status_code == 200, response.json()
    assert response.json()["version"] == game["version"]
    assert footprint(game["id"]) == before


def test_joining_a_full_game_is_a_409_game_full(host, guest, outsider):
    game = new_game(host, max_players=2)
    guest.post(f"/games/{game['id']}/join")
    before = footprint(game["id"])
    assert_error(outsider.post(f"/games/{game['id']}/join"), 409, "game_full")
    assert footprint(game["id"]) == before


def test_joining_a_game_filled_with_bots_is_a_409_game_full(host, guest):
    game = new_game(host, max_players=3)
    host.post(f"/games/{game['id']}/bots", {"strategy": "random"})
    host.post(f"/games/{game['id']}/bots", {"strategy": "random"})
    assert_error(guest.post(f"/games/{game['id']}/join"), 409, "game_full")


def test_joining_a_started_game_is_a_409_wrong_phase(host, guest, outsider):
    game = started(host, guest)
    before = footprint(game["id"])
    assert_error(outsider.post(f"/games/{game['id']}/join"), 409, "wrong_phase")
    assert footprint(game["id"]) == before


def test_joining_a_started_game_one_sits_in_is_still_a_no_op(host, guest):
    game = started(host, guest)
    before = footprint(game["id"])
    response = guest.post(f"/games/{game['id']}/join")
    assert response.status_code == 200, response.json()
    assert response.json()["version"] == game["version"]
    assert footprint(game["id"]) == before


@pytest.mark.parametrize("status", ["finished", "abandoned"])
def test_joining_an_ended_game_is_a_409_wrong_phase(outsider, status):
    game = stamp_game(status=status)
    assert_error(outsider.post(f"/games/{game.pk}/join"), 409, "wrong_phase")


def test_joining_needs_a_token(host, anonymous):
    game = new_game(host)
    response = anonymous.post(f"{API}/games/{game['id']}/join", format="json")
    assert_error(response, 401, "not_authenticated")
    assert footprint(game["id"]).version == game["version"]


# -- POST /games/{id}/bots -------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["random", "greedy", "expert"])
def test_the_host_adds_a_bot_of_each_strategy(host, strategy):
    game = new_game(host)
    response = host.post(f"/games/{game['id']}/bots", {"strategy": strategy})
    assert response.status_code == 201, response.json()
    view = response.json()
    assert set(view) == VIEW_KEYS
    assert view["seats"][1]["bot"] == strategy
    assert view["seats"][1]["player"] is None
    assert view["version"] == game["version"] + 1
    events = host.get(f"/games/{game['id']}/events", after=game["last_seq"]).json()["events"]
    assert [(e["type"], e["seat"], e["data"]) for e in events] == [
        ("bot_added", 1, {"strategy": strategy})
    ]


@pytest.mark.parametrize("who", ["guest", "outsider"])
def test_only_the_host_adds_bots(host, guest, outsider, who):
    game = new_game(host)
    guest.post(f"/games/{game['id']}/join")
    before = footprint(game["id"])
    persona = {"guest": guest, "outsider": outsider}[who]
    response = persona.post(f"/games/{game['id']}/bots", {"strategy": "random"})
    assert_error(response, 403, "forbidden")
    assert footprint(game["id"]) == before


def test_bots_cannot_be_added_once_the_game_started(host, guest):
    game = started(host, guest, max_players=4)
    before = footprint(game["id"])
    response = host.post(f"/games/{game['id']}/bots", {"strategy": "random"})
    assert_error(response, 409, "wrong_phase")
    assert footprint(game["id"]) == before


def test_a_bot_cannot_take_a_seat_in_a_full_game(host, guest):
    game = new_game(host, max_players=2)
    guest.post(f"/games/{game['id']}/join")
    before = footprint(game["id"])
    response = host.post(f"/games/{game['id']}/bots", {"strategy": "random"})
    assert_error(response, 409, "game_full")
    assert footprint(game["id"]) == before


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"strategy": "genius"},
        {"strategy": "Random"},
        {"strategy": ""},
        {"strategy": None},
        {"strategy": 1},
        {"strategy": ["random"]},
        [],
        "random",
    ],
    ids=repr,
)
def test_a_malformed_bot_body_is_a_400(host, body):
    game = new_game(host)
    before = footprint(game["id"])
    assert_error(host.post(f"/games/{game['id']}/bots", body), 400, "invalid_request")
    assert footprint(game["id"]) == before


# -- POST /games/{id}/start ------------------------------------------------------------


def test_the_host_starts_a_game_of_two(host, guest):
    game = new_game(host, seed=3)
    guest.post(f"/games/{game['id']}/join")
    joined = footprint(game["id"])
    response = host.post(f"/games/{game['id']}/start")
    assert response.status_code == 200, response.json()
    view = response.json()
    assert set(view) == VIEW_KEYS
    assert view["status"] == "playing"
    assert view["round"] == 1
    assert view["version"] == joined.version + 1
    assert view["you"]["seat"] == 0
    types = [t for t, _ in event_types(host, game["id"], after=joined.last_seq)]
    assert types[:2] == ["game_started", "round_started"]
    assert view["last_seq"] == joined.last_seq + len(types)


def test_a_game_of_the_host_and_a_bot_can_start(host):
    game = new_game(host)
    host.post(f"/games/{game['id']}/bots", {"strategy": "greedy"})
    response = host.post(f"/games/{game['id']}/start")
    assert response.status_code == 200, response.json()
    assert response.json()["status"] == "playing"


def test_a_game_needs_at_least_two_seats_to_start(host):
    game = new_game(host)
    before = footprint(game["id"])
    assert_error(host.post(f"/games/{game['id']}/start"), 409, "wrong_phase")
    assert footprint(game["id"]) == before


@pytest.mark.parametrize("who", ["guest", "outsider"])
def test_only_the_host_starts_the_game(host, guest, outsider, who):
    game = new_game(host)
    guest.post(f"/games/{game['id']}/join")
    before = footprint(game["id"])
    persona = {"guest": guest, "outsider": outsider}[who]
    assert_error(persona.post(f"/games/{game['id']}/start"), 403, "forbidden")
    assert footprint(game["id"]) == before


def test_starting_a_started_game_is_a_409_wrong_phase(host, guest):
    game = started(host, guest)
    before = footprint(game["id"])
    assert_error(host.post(f"/games/{game['id']}/start"), 409, "wrong_phase")
    assert footprint(game["id"]) == before


def test_a_game_starts_with_fewer_players_than_its_maximum(host, guest):
    game = new_game(host, max_players=10)
    guest.post(f"/games/{game['id']}/join")
    response = host.post(f"/games/{game['id']}/start")
    assert response.status_code == 200, response.json()
    assert len(response.json()["seats"]) == 2


# -- POST /games/{id}/leave ------------------------------------------------------------


def test_leaving_a_waiting_game_frees_the_seat_and_later_seats_move_up(host, guest, outsider):
    game = new_game(host)
    guest.post(f"/games/{game['id']}/join")
    outsider.post(f"/games/{game['id']}/join")
    before = footprint(game["id"])
    response = guest.post(f"/games/{game['id']}/leave")
    assert response.status_code == 200, response.json()
    view = host.get(f"/games/{game['id']}").json()
    assert [s["player"]["id"] for s in view["seats"]] == [
        str(host.player.pk),
        str(outsider.player.pk),
    ]
    assert [s["seat"] for s in view["seats"]] == [0, 1]
    assert view["version"] == before.version + 1
    assert outsider.get(f"/games/{game['id']}").json()["you"]["seat"] == 1
    assert guest.get(f"/games/{game['id']}").json()["you"] is None
    events = host.get(f"/games/{game['id']}/events", after=before.last_seq).json()["events"]
    assert [(e["type"], e["seat"]) for e in events] == [("player_left", 1)]
    assert events[0]["data"] == {"player": {"id": str(guest.player.pk), "name": "Guest"}}


def test_a_player_who_left_a_waiting_game_can_join_again(host, guest):
    game = new_game(host)
    guest.post(f"/games/{game['id']}/join")
    guest.post(f"/games/{game['id']}/leave")
    response = guest.post(f"/games/{game['id']}/join")
    assert response.status_code == 200, response.json()
    assert response.json()["you"]["seat"] == 1


def test_when_the_host_leaves_a_waiting_game_the_host_role_passes_on(host, guest, outsider):
    game = new_game(host)
    host.post(f"/games/{game['id']}/bots", {"strategy": "random"})
    guest.post(f"/games/{game['id']}/join")
    outsider.post(f"/games/{game['id']}/join")
    response = host.post(f"/games/{game['id']}/leave")
    assert response.status_code == 200, response.json()
    view = guest.get(f"/games/{game['id']}").json()
    assert view["host"] == {
        "id": str(guest.player.pk),
        "name": "Guest",
        "tag": guest.player.tag,
    }
    assert [s["bot"] for s in view["seats"]] == ["random", None, None]
    assert view["you"]["seat"] == 1
    # the new host has the host's powers, the old one has none left
    assert guest.post(f"/games/{game['id']}/bots", {"strategy": "expert"}).status_code == 201
    assert_error(host.post(f"/games/{game['id']}/start"), 403, "forbidden")
    assert guest.post(f"/games/{game['id']}/start").status_code == 200


def test_leaving_a_running_game_hands_the_seat_to_a_bot(host, guest, outsider):
    game = started(host, guest, outsider)
    before = footprint(game["id"])
    response = guest.post(f"/games/{game['id']}/leave")
    assert response.status_code == 200, response.json()
    view = host.get(f"/games/{game['id']}").json()
    assert view["status"] == "playing"
    assert len(view["seats"]) == 3
    assert view["seats"][1]["bot"] in ("random", "greedy", "expert")
    assert view["seats"][1]["card_count"] == game["seats"][1]["card_count"]
    assert view["version"] == before.version + 1
    events = host.get(f"/games/{game['id']}/events", after=before.last_seq).json()["events"]
    assert [(e["type"], e["seat"]) for e in events] == [
        ("player_left", 1),
        ("seat_taken_by_bot", 1),
    ]
    assert events[0]["data"] == {"player": {"id": str(guest.player.pk), "name": "Guest"}}
    assert events[1]["data"] == {"strategy": view["seats"][1]["bot"]}
    assert guest.get(f"/games/{game['id']}").json()["you"] is None


def test_a_player_who_left_a_running_game_can_no_longer_move_or_rejoin(host, guest, outsider):
    game = started(host, guest, outsider)
    guest.post(f"/games/{game['id']}/leave")
    version = footprint(game["id"]).version
    assert_error(guest.move(game["id"], version, action="draw"), 403, "forbidden")
    assert_error(guest.post(f"/games/{game['id']}/join"), 409, "wrong_phase")
    assert_error(guest.post(f"/games/{game['id']}/leave"), 403, "forbidden")


def test_when_the_last_human_leaves_a_running_game_it_is_abandoned(host, guest):
    game = started(host, guest)
    guest.post(f"/games/{game['id']}/leave")
    response = host.post(f"/games/{game['id']}/leave")
    assert response.status_code == 200, response.json()
    view = host.get(f"/games/{game['id']}").json()
    assert view["status"] == "abandoned"
    assert all(s["bot"] is not None for s in view["seats"])
    log = host.get(f"/games/{game['id']}/events").json()["events"]
    assert [e["type"] for e in log[-3:]] == ["player_left", "seat_taken_by_bot", "game_abandoned"]
    assert log[-1]["data"] == {"reason": "the last player left"}
    assert_error(host.post(f"/games/{game['id']}/leave"), 403, "forbidden")


def test_a_waiting_game_whose_last_human_leaves_ends_with_its_reason(host):
    game = new_game(host)
    host.post(f"/games/{game['id']}/leave")
    log = host.get(f"/games/{game['id']}/events").json()["events"]
    assert log[-1]["type"] == "game_abandoned"
    assert log[-1]["data"] == {"reason": "the last player left"}


def test_an_outsider_cannot_leave_a_game_they_are_not_in(host, outsider):
    game = new_game(host)
    before = footprint(game["id"])
    assert_error(outsider.post(f"/games/{game['id']}/leave"), 403, "forbidden")
    assert footprint(game["id"]) == before


def test_leaving_twice_is_a_403_the_second_time(host, guest):
    game = new_game(host)
    guest.post(f"/games/{game['id']}/join")
    assert guest.post(f"/games/{game['id']}/leave").status_code == 200
    before = footprint(game["id"])
    assert_error(guest.post(f"/games/{game['id']}/leave"), 403, "forbidden")
    assert footprint(game["id"]) == before


def test_leaving_a_finished_game_is_a_409_wrong_phase(host):
    game = stamp_game(host=host.player, status="finished")
    before = footprint(game.pk)
    assert_error(host.post(f"/games/{game.pk}/leave"), 409, "wrong_phase")
    assert footprint(game.pk) == before


def test_leaving_needs_a_token(host, anonymous):
    game = new_game(host)
    response = anonymous.post(f"{API}/games/{game['id']}/leave", format="json")
    assert_error(response, 401, "not_authenticated")


def test_no_lobby_request_leaves_a_gap_in_the_event_seqs(host, guest, outsider):
    game = new_game(host)
    guest.post(f"/games/{game['id']}/join")
    host.post(f"/games/{game['id']}/bots", {"strategy": "random"})
    outsider.post(f"/games/{game['id']}/join")
    guest.post(f"/games/{game['id']}/leave")
    outsider.post(f"/games/{game['id']}/join")  # a no-op
    host.post(f"/games/{game['id']}/start")
    seqs = list(Event.objects.filter(game_id=game["id"]).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    assert Game.objects.get(pk=game["id"]).last_seq == len(seqs)
