"""``POST /games/{id}/moves`` and ``/challenge`` through HTTP (docs/api.md): every action,
the version check, and every way a move is rejected (which must change nothing)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.engine import Pending, Rules
from games.engine.cards import CODE_OF, NO_COLOR
from games.engine.position import build_state, card_in_hand
from games.engine.state import GameState
from games.models import Event, Game
from tests.factories import API, Persona, assert_error, footprint, put_state, seat_table, start_game

R1, R2, R5, R7 = 1, 2, 5, 7  # ids: colour * 25 + k, k = 1..9 for the first 1-9
G3 = 53
W, W4 = 100, 104
CARD_KEYS = {"id", "code", "color", "kind", "number"}
assert (CODE_OF[R1], CODE_OF[R7], CODE_OF[G3]) == ("R1", "R7", "G3")
assert (CODE_OF[W], CODE_OF[W4]) == ("W", "W+4")


def table(host: Persona, *others: Persona | str, **options: Any) -> str:
    """A running game (seed 9, to 500 points unless `options` say otherwise) of the
    host, then `others` (personas, or bot strategies); its id."""
    return str(start_game(host, *others, seed=9, **{"target_score": 500, **options}).pk)


def basic(**kwargs: Any) -> GameState:
    """Seat 0 to play on a red 5: R1, R7 and the Wild fit, G3 and Y9 do not."""
    return build_state(
        [["R1", "R7", "G3", "W", "Y9"], ["B4", "B5", "Y6", "G8"]], top="R5", **kwargs
    )


def challenge_pending(guilty: bool) -> GameState:
    """Seat 0 played a Wild Draw Four naming blue on a red 5; seat 1 must decide."""
    state = build_state(
        [["R1", "G3"], ["B4", "B5", "Y6"]], top="W+4", discard=["R5"], color="blue", current=1
    )
    state.pending = Pending("challenge", 1, amount=4, accused=0, guilty=guilty)
    return state


def view(persona: Persona, game_id: str) -> dict[str, Any]:
    response = persona.get(f"/games/{game_id}")
    assert response.status_code == 200, response.json()
    return response.json()


def legal(game: dict[str, Any]) -> list[dict[str, Any]]:
    """The legal moves of a game view, each checked to name the view's version and
    given without it."""
    moves = game["you"]["legal_moves"]
    assert all(move["version"] == game["version"] for move in moves), moves
    return [{key: value for key, value in move.items() if key != "version"} for move in moves]


def events_after(persona: Persona, game_id: str, after: int) -> list[dict[str, Any]]:
    return persona.get(f"/games/{game_id}/events", after=after).json()["events"]


def post_raw(persona: Persona, path: str, raw: str) -> Any:
    return persona.client.post(API + path, data=raw, content_type="application/json")


# -- accepted moves --------------------------------------------------------------------


def test_a_legal_play_answers_the_callers_view_and_the_events_it_caused(host, guest):
    game_id = table(host, guest)
    version = put_state(game_id, basic()).version
    before = footprint(game_id)
    response = host.move(game_id, version, action="play", card=R1)
    assert response.status_code == 200, response.json()
    body = response.json()
    assert set(body) == {"game", "events"}
    game = body["game"]
    assert game["version"] == version + 1
    assert game["you"]["seat"] == 0
    assert game["top_card"] == {
        "id": R1,
        "code": "R1",
        "color": "red",
        "kind": "number",
        "number": 1,
    }
    assert R1 not in [c["id"] for c in game["you"]["hand"]]
    assert game["current_seat"] == 1
    events = body["events"]
    assert [e["seq"] for e in events] == list(
        range(before.last_seq + 1, before.last_seq + 1 + len(events))
    )
    assert game["last_seq"] == before.last_seq + len(events)
    played = events[0]
    assert set(played) == {"seq", "at", "round", "type", "seat", "data"}
    assert (played["type"], played["seat"], played["round"]) == ("card_played", 0, 1)
    assert played["data"]["card"]["id"] == R1
    assert played["data"]["color"] == "red"


def test_each_accepted_move_bumps_the_version_by_exactly_one(host, guest):
    game_id = table(host, guest)
    version = put_state(game_id, basic()).version
    first = host.move(game_id, version, action="play", card=R1).json()["game"]
    assert first["version"] == version + 1
    second = guest.move(game_id, first["version"], action="draw").json()["game"]
    assert second["version"] == version + 2
    assert Game.objects.get(pk=game_id).version == version + 2
    seqs = list(Event.objects.filter(game_id=game_id).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))


def test_every_listed_legal_move_is_accepted_as_it_is(host, guest):
    game_id = table(host, guest)
    moves = None
    for index in range(100):
        version = put_state(game_id, basic()).version
        mine = view(host, game_id)
        if moves is None:
            moves = mine["you"]["legal_moves"]
        if index >= len(moves):
            break
        response = host.move(game_id, version, **moves[index])
        assert response.status_code == 200, (moves[index], response.json())
    assert moves is not None
    assert len(moves) == 1 + 1 + 4 + 1  # R1, R7, the Wild in four colours, draw


def test_a_wild_is_listed_once_per_colour(host, guest):
    game_id = table(host, guest)
    put_state(game_id, basic())
    moves = legal(view(host, game_id))
    wilds = [m for m in moves if m.get("card") == W]
    assert sorted(m["color"] for m in wilds) == ["blue", "green", "red", "yellow"]
    assert all(m == {"action": "play", "card": W, "color": m["color"]} for m in wilds)
    assert {"action": "play", "card": R1} in moves
    assert {"action": "draw"} in moves
    assert not [m for m in moves if m.get("card") in (card_in_hand(basic(), 0, "G3"),)]


def test_a_legal_move_is_a_whole_body_that_is_sent_back_as_it_is(host, guest):
    game_id = table(host, guest)
    version = put_state(game_id, basic()).version
    move = view(host, game_id)["you"]["legal_moves"][0]
    assert move["version"] == version
    response = host.post(f"/games/{game_id}/moves", move)
    assert response.status_code == 200, response.json()
    assert response.json()["game"]["version"] > version


def test_a_seven_o_seven_is_listed_once_per_target(host, guest):
    game_id = table(host, guest, "random", rules={"seven_o": True})
    state = build_state(
        [["R7", "G3"], ["B4", "B5"], ["Y6", "Y8"]], top="R5", rules=Rules(seven_o=True)
    )
    version = put_state(game_id, state).version
    moves = legal(view(host, game_id))
    sevens = [m for m in moves if m.get("card") == R7]
    assert sorted(sevens, key=lambda m: m["target"]) == [
        {"action": "play", "card": R7, "target": 1},
        {"action": "play", "card": R7, "target": 2},
    ]
    response = host.move(game_id, version, action="play", card=R7, target=2)
    assert response.status_code == 200, response.json()
    types = [e["type"] for e in response.json()["events"]]
    assert types[:2] == ["card_played", "hands_swapped"]
    assert [c["code"] for c in response.json()["game"]["you"]["hand"]] == ["Y6", "Y8"]


def test_a_seven_o_seven_without_a_target_is_illegal(host, guest):
    game_id = table(host, guest, rules={"seven_o": True})
    state = build_state([["R7", "G3"], ["B4", "B5"]], top="R5", rules=Rules(seven_o=True))
    version = put_state(game_id, state).version
    before = footprint(game_id)
    assert_error(host.move(game_id, version, action="play", card=R7), 422, "illegal_move")
    assert footprint(game_id) == before


def test_playing_the_second_to_last_card_with_uno_says_uno(host, guest):
    game_id = table(host, guest)
    version = put_state(game_id, build_state([["R1", "R2"], ["B4", "B5"]], top="R5")).version
    response = host.move(game_id, version, action="play", card=R1, uno=True)
    assert response.status_code == 200, response.json()
    body = response.json()
    assert [e["type"] for e in body["events"]][:2] == ["card_played", "uno_called"]
    assert body["game"]["seats"][0]["said_uno"] is True
    assert {"action": "catch_uno", "target": 0} not in legal(view(guest, game_id))


def test_an_unsaid_uno_can_be_called_or_caught_once_per_catchable_seat(host, guest, outsider):
    game_id = table(host, guest, outsider)
    state = build_state([["R1", "R2"], ["B4", "B5"], ["Y4", "Y5"]], top="R5")
    version = put_state(game_id, state).version
    response = host.move(game_id, version, action="play", card=R1)
    assert response.status_code == 200, response.json()
    assert {"action": "call_uno"} in legal(response.json()["game"])
    for catcher in (guest, outsider):
        moves = legal(view(catcher, game_id))
        assert [m for m in moves if m["action"] == "catch_uno"] == [
            {"action": "catch_uno", "target": 0}
        ]
    version = response.json()["game"]["version"]
    caught = outsider.move(game_id, version, action="catch_uno", target=0)
    assert caught.status_code == 200, caught.json()
    events = caught.json()["events"]
    assert [(e["type"], e["seat"]) for e in events] == [("uno_caught", 0), ("cards_drawn", 0)]
    assert events[0]["data"] == {"by": 2}
    assert events[1]["data"]["count"] == 2
    assert events[1]["data"]["reason"] == "uno_penalty"
    assert "cards" not in events[1]["data"]  # the catcher does not see the cards
    assert caught.json()["game"]["seats"][0]["card_count"] == 3


def test_calling_uno_out_of_turn_is_accepted_and_then_a_catch_is_illegal(host, guest):
    game_id = table(host, guest)
    version = put_state(game_id, build_state([["R1", "R2"], ["B4", "B5"]], top="R5")).version
    played = host.move(game_id, version, action="play", card=R1).json()["game"]
    called = host.move(game_id, played["version"], action="call_uno")
    assert called.status_code == 200, called.json()
    assert [e["type"] for e in called.json()["events"]] == ["uno_called"]
    version = called.json()["game"]["version"]
    before = footprint(game_id)
    response = guest.move(game_id, version, action="catch_uno", target=0)
    assert_error(response, 422, "illegal_move")
    assert footprint(game_id) == before


def test_drawing_a_playable_card_offers_it_to_the_drawer_only(host, guest):
    game_id = table(host, guest)
    version = put_state(
        game_id, build_state([["G3", "Y9"], ["B4", "B5"]], top="R5", draw=["R2", "B7"])
    ).version
    response = host.move(game_id, version, action="draw")
    assert response.status_code == 200, response.json()
    body = response.json()
    drawn = body["events"][0]
    assert (drawn["type"], drawn["seat"]) == ("cards_drawn", 0)
    assert drawn["data"]["count"] == 1
    assert drawn["data"]["reason"] == "draw"
    assert [c["code"] for c in drawn["data"]["cards"]] == ["R2"]
    pending = body["game"]["pending"]
    assert (pending["type"], pending["seat"]) == ("drawn_card", 0)
    assert pending["card"]["code"] == "R2"
    assert set(pending["card"]) == CARD_KEYS
    r2 = pending["card"]["id"]
    assert sorted(legal(body["game"]), key=str) == sorted(
        [{"action": "play", "card": r2}, {"action": "pass"}], key=str
    )
    theirs = view(guest, game_id)
    assert theirs["pending"]["type"] == "drawn_card"
    assert "card" not in theirs["pending"]
    feed = events_after(guest, game_id, body["game"]["last_seq"] - len(body["events"]))
    assert feed[0]["data"] == {"count": 1, "reason": "draw"}


def test_keeping_the_card_just_drawn_passes_the_turn(host, guest):
    game_id = table(host, guest)
    version = put_state(
        game_id, build_state([["G3", "Y9"], ["B4", "B5"]], top="R5", draw=["R2"])
    ).version
    drawn = host.move(game_id, version, action="draw").json()["game"]
    response = host.move(game_id, drawn["version"], action="pass")
    assert response.status_code == 200, response.json()
    assert [e["type"] for e in response.json()["events"]] == ["turn_passed"]
    assert response.json()["game"]["current_seat"] == 1
    assert response.json()["game"]["pending"] is None


def test_choosing_the_colour_of_a_first_wild(host, guest):
    game_id = table(host, guest)
    state = build_state([["R1", "G3"], ["B4", "B5"]], top="W", color="red")
    state.color = NO_COLOR
    state.pending = Pending("choose_color", 0)
    version = put_state(game_id, state).version
    mine = view(host, game_id)
    assert mine["pending"] == {"type": "choose_color", "seat": 0}
    assert sorted(m["color"] for m in mine["you"]["legal_moves"]) == [
        "blue",
        "green",
        "red",
        "yellow",
    ]
    assert all(m["action"] == "choose_color" for m in mine["you"]["legal_moves"])
    response = host.move(game_id, version, action="choose_color", color="green")
    assert response.status_code == 200, response.json()
    assert [(e["type"], e["data"]) for e in response.json()["events"]] == [
        ("color_chosen", {"color": "green"})
    ]
    assert response.json()["game"]["current_color"] == "green"


def test_going_out_ends_a_single_round_game(host, guest):
    game_id = table(host, guest, target_score=0)
    version = put_state(
        game_id, build_state([["R1"], ["B4", "B5"]], top="R5", target_score=0)
    ).version
    response = host.move(game_id, version, action="play", card=R1)
    assert response.status_code == 200, response.json()
    game = response.json()["game"]
    assert game["status"] == "finished"
    assert game["winner"] == 0
    assert game["you"]["legal_moves"] == []
    assert game["current_seat"] is None
    types = [e["type"] for e in response.json()["events"]]
    assert types == ["card_played", "round_ended", "game_ended", "game_rated"]
    round_ended, ended, rated = response.json()["events"][1:]
    assert [r["seat"] for r in rated["data"]["ratings"]] == [0, 1]
    winner, loser = rated["data"]["ratings"]
    assert winner["change"]["mu"] > 0 > loser["change"]["mu"]
    assert round_ended["seat"] == 0
    assert round_ended["data"]["points"] == 9
    assert round_ended["data"]["scores"] == [9, 0]
    assert ended["data"]["winner"] == 0
    assert ended["data"]["scores"] == [9, 0]
    assert view(guest, game_id)["you"]["legal_moves"] == []
    # what was left in the hands is shown to all
    theirs = events_after(guest, game_id, round_ended["seq"] - 1)[0]
    assert theirs["type"] == "round_ended"
    left = {
        seat: sorted(c["code"] for c in cards) for seat, cards in theirs["data"]["hands"].items()
    }
    assert left == {"0": [], "1": ["B4", "B5"]}


def test_a_reverse_changes_the_direction(host, guest, outsider):
    game_id = table(host, guest, outsider)
    state = build_state([["RR", "G3"], ["B4", "B5"], ["Y4", "Y5"]], top="R5")
    version = put_state(game_id, state).version
    reverse = card_in_hand(state, 0, "RR")
    response = host.move(game_id, version, action="play", card=reverse)
    assert response.status_code == 200, response.json()
    events = response.json()["events"]
    assert [(e["type"], e["data"]) for e in events][1] == (
        "direction_changed",
        {"direction": "counterclockwise"},
    )
    game = response.json()["game"]
    assert game["direction"] == "counterclockwise"
    assert game["current_seat"] == 2


def test_a_skip_skips_the_next_player(host, guest, outsider):
    game_id = table(host, guest, outsider)
    state = build_state([["RS", "G3"], ["B4", "B5"], ["Y4", "Y5"]], top="R5")
    version = put_state(game_id, state).version
    response = host.move(game_id, version, action="play", card=card_in_hand(state, 0, "RS"))
    assert response.status_code == 200, response.json()
    events = response.json()["events"]
    assert [(e["type"], e["seat"]) for e in events] == [("card_played", 0), ("player_skipped", 1)]
    assert response.json()["game"]["current_seat"] == 2


def test_a_stacking_game_shows_a_pending_stack(host, guest):
    game_id = table(host, guest, rules={"stacking": True})
    state = build_state(
        [["R+2", "G3", "G4"], ["B+2", "B5", "Y6"]], top="R5", rules=Rules(stacking=True)
    )
    version = put_state(game_id, state).version
    played = host.move(game_id, version, action="play", card=card_in_hand(state, 0, "R+2"))
    assert played.status_code == 200, played.json()
    pending = played.json()["game"]["pending"]
    assert (pending["type"], pending["seat"]) == ("stack", 1)
    blue = card_in_hand(state, 1, "B+2")
    moves = legal(view(guest, game_id))
    assert sorted(moves, key=str) == sorted(
        [{"action": "play", "card": blue}, {"action": "draw"}], key=str
    )
    version = played.json()["game"]["version"]
    before = footprint(game_id)
    five = card_in_hand(state, 1, "B5")
    assert_error(guest.move(game_id, version, action="play", card=five), 422, "illegal_move")
    assert footprint(game_id) == before
    drawn = guest.move(game_id, version, action="draw")
    assert drawn.status_code == 200, drawn.json()
    events = drawn.json()["events"]
    assert (events[0]["type"], events[0]["data"]["count"]) == ("cards_drawn", 2)
    assert drawn.json()["game"]["pending"] is None


def test_jump_in_lets_an_identical_card_be_played_out_of_turn(host, guest):
    game_id = table(host, guest, rules={"jump_in": True})
    state = build_state([["G3", "Y9"], ["R5", "B4"]], top="R5", rules=Rules(jump_in=True))
    version = put_state(game_id, state).version
    red5 = card_in_hand(state, 1, "R5")
    assert legal(view(guest, game_id)) == [{"action": "play", "card": red5}]
    before = footprint(game_id)
    blue4 = card_in_hand(state, 1, "B4")
    assert_error(guest.move(game_id, version, action="play", card=blue4), 409, "not_your_turn")
    assert footprint(game_id) == before
    response = guest.move(game_id, version, action="play", card=red5)
    assert response.status_code == 200, response.json()
    assert response.json()["game"]["current_seat"] == 0


def test_without_jump_in_an_identical_card_out_of_turn_is_not_your_turn(host, guest):
    game_id = table(host, guest)
    state = build_state([["G3", "Y9"], ["R5", "B4"]], top="R5")
    version = put_state(game_id, state).version
    assert view(guest, game_id)["you"]["legal_moves"] == []
    red5 = card_in_hand(state, 1, "R5")
    before = footprint(game_id)
    assert_error(guest.move(game_id, version, action="play", card=red5), 409, "not_your_turn")
    assert footprint(game_id) == before


# -- the Wild Draw Four challenge --------------------------------------------------------


def test_a_pending_wild_draw_four_lists_challenge_and_accept(host, guest, outsider):
    game_id = table(host, guest)
    put_state(game_id, challenge_pending(guilty=True))
    theirs = view(guest, game_id)
    assert legal(theirs) == [{"action": "challenge"}, {"action": "accept"}]
    assert theirs["pending"]["type"] == "challenge"
    assert theirs["pending"]["seat"] == 1
    assert view(host, game_id)["you"]["legal_moves"] == []
    spectator = view(outsider, game_id)
    assert spectator["pending"]["type"] == "challenge"
    assert "guilty" not in spectator["pending"]


def test_a_successful_challenge_makes_the_wild_draw_four_player_draw_four(host, guest):
    game_id = table(host, guest)
    version = put_state(game_id, challenge_pending(guilty=True)).version
    response = guest.post(f"/games/{game_id}/challenge", {"version": version, "challenge": True})
    assert response.status_code == 200, response.json()
    body = response.json()
    assert set(body) == {"game", "events"}
    events = body["events"]
    assert [(e["type"], e["seat"]) for e in events] == [
        ("challenged", 0),
        ("hand_revealed", 0),
        ("cards_drawn", 0),
    ]
    assert events[0]["data"] == {"by": 1, "guilty": True}
    assert events[1]["data"]["to"] == 1
    assert sorted(c["code"] for c in events[1]["data"]["hand"]) == ["G3", "R1"]
    assert events[2]["data"]["count"] == 4
    assert events[2]["data"]["reason"] == "challenge"
    game = body["game"]
    assert game["version"] == version + 1
    assert game["pending"] is None
    assert game["current_seat"] == 1
    assert game["current_color"] == "blue"
    assert game["top_card"]["code"] == "W+4"
    assert game["seats"][0]["card_count"] == 6
    # the accused's hand is shown to the challenger only
    feed = events_after(host, game_id, events[0]["seq"] - 1)
    assert "hand" not in feed[1]["data"]


def test_a_failed_challenge_makes_the_challenger_draw_six_and_lose_the_turn(host, guest):
    game_id = table(host, guest)
    version = put_state(game_id, challenge_pending(guilty=False)).version
    response = guest.post(f"/games/{game_id}/challenge", {"version": version, "challenge": True})
    assert response.status_code == 200, response.json()
    events = response.json()["events"]
    assert [(e["type"], e["seat"]) for e in events] == [
        ("challenged", 0),
        ("hand_revealed", 0),
        ("cards_drawn", 1),
        ("player_skipped", 1),
    ]
    assert events[0]["data"] == {"by": 1, "guilty": False}
    assert events[2]["data"]["count"] == 6
    assert len(events[2]["data"]["cards"]) == 6
    game = response.json()["game"]
    assert game["seats"][1]["card_count"] == 9
    assert game["current_seat"] == 0


def test_accepting_a_wild_draw_four_draws_four_and_loses_the_turn(host, guest):
    game_id = table(host, guest)
    version = put_state(game_id, challenge_pending(guilty=True)).version
    response = guest.post(f"/games/{game_id}/challenge", {"version": version, "challenge": False})
    assert response.status_code == 200, response.json()
    events = response.json()["events"]
    assert [(e["type"], e["seat"]) for e in events] == [("cards_drawn", 1), ("player_skipped", 1)]
    assert events[0]["data"]["count"] == 4
    assert events[0]["data"]["reason"] == "wild_draw_four"
    game = response.json()["game"]
    assert game["seats"][1]["card_count"] == 7
    assert game["current_seat"] == 0
    assert game["pending"] is None


def test_the_accused_cannot_decide_the_challenge(host, guest):
    game_id = table(host, guest)
    version = put_state(game_id, challenge_pending(guilty=True)).version
    before = footprint(game_id)
    response = host.post(f"/games/{game_id}/challenge", {"version": version, "challenge": True})
    assert_error(response, 409, "not_your_turn")
    assert footprint(game_id) == before


def test_a_challenge_with_no_wild_draw_four_pending_is_a_409_wrong_phase(host, guest):
    game_id = table(host, guest)
    version = put_state(game_id, basic()).version
    before = footprint(game_id)
    for challenge in (True, False):
        response = host.post(
            f"/games/{game_id}/challenge", {"version": version, "challenge": challenge}
        )
        assert_error(response, 409, "wrong_phase")
    assert footprint(game_id) == before


def test_a_challenge_out_of_turn_is_a_409_not_your_turn(host, guest):
    game_id = table(host, guest)
    version = put_state(game_id, basic()).version
    before = footprint(game_id)
    response = guest.post(f"/games/{game_id}/challenge", {"version": version, "challenge": True})
    assert_error(response, 409, "not_your_turn")
    assert footprint(game_id) == before


@pytest.mark.parametrize(
    "move",
    [{"action": "draw"}, {"action": "play", "card": 75 + 4}, {"action": "pass"}],
    ids=["draw", "play", "pass"],
)
def test_other_moves_while_a_challenge_is_pending_are_a_409_wrong_phase(host, guest, move):
    game_id = table(host, guest)
    version = put_state(game_id, challenge_pending(guilty=True)).version
    before = footprint(game_id)
    assert_error(guest.move(game_id, version, **move), 409, "wrong_phase")
    assert footprint(game_id) == before


def test_a_stale_challenge_is_a_409_with_the_current_version(host, guest):
    game_id = table(host, guest)
    version = put_state(game_id, challenge_pending(guilty=True)).version
    before = footprint(game_id)
    for stale in (version - 1, version + 1, 0):
        response = guest.post(f"/games/{game_id}/challenge", {"version": stale, "challenge": True})
        error = assert_error(response, 409, "stale_version")
        assert error["details"]["version"] == version
    assert footprint(game_id) == before


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"challenge": True},
        {"version": "CURRENT"},
        {"version": "CURRENT_AS_STRING", "challenge": True},
        {"version": None, "challenge": True},
        {"version": True, "challenge": True},
        {"version": 1.5, "challenge": True},
        {"version": -1, "challenge": True},
        {"version": "CURRENT", "challenge": None},
        {"version": "CURRENT", "challenge": 1},
        {"version": "CURRENT", "challenge": 0},
        {"version": "CURRENT", "challenge": "true"},
        {"version": "CURRENT", "challenge": "yes"},
        {"version": "CURRENT", "challenge": [True]},
        {"version": "CURRENT", "challenge": True, "action": "challenge"},
        {"version": "CURRENT", "challenge": True, "extra": 1},
        {"version": "CURRENT", "action": "challenge"},
        {"version": "CURRENT", "action": "accept"},
    ],
    ids=repr,
)
def test_a_malformed_challenge_body_is_a_400(host, guest, body):
    game_id = table(host, guest)
    version = put_state(game_id, challenge_pending(guilty=True)).version
    filled = {
        k: version if v == "CURRENT" else str(version) if v == "CURRENT_AS_STRING" else v
        for k, v in body.items()
    }
    before = footprint(game_id)
    assert_error(guest.post(f"/games/{game_id}/challenge", filled), 400, "invalid_request")
    assert footprint(game_id) == before


@pytest.mark.parametrize("raw", ["null", "[]", "true", "1", '"challenge"', '[{"version": 1}]'])
def test_a_challenge_body_that_is_not_an_object_is_a_400(host, guest, raw):
    game_id = table(host, guest)
    put_state(game_id, challenge_pending(guilty=True))
    before = footprint(game_id)
    assert_error(post_raw(guest, f"/games/{game_id}/challenge", raw), 400, "invalid_request")
    assert footprint(game_id) == before


def test_an_outsider_cannot_challenge(host, guest, outsider):
    game_id = table(host, guest)
    version = put_state(game_id, challenge_pending(guilty=True)).version
    before = footprint(game_id)
    response = outsider.post(f"/games/{game_id}/challenge", {"version": version, "challenge": True})
    assert_error(response, 403, "forbidden")
    assert footprint(game_id) == before


def test_challenging_needs_a_token(host, guest, anonymous):
    game_id = table(host, guest)
    version = put_state(game_id, challenge_pending(guilty=True)).version
    response = anonymous.post(
        f"{API}/games/{game_id}/challenge", {"version": version, "challenge": True}, format="json"
    )
    assert_error(response, 401, "not_authenticated")


# -- rejected moves ----------------------------------------------------------------------


# Each kind of engine rejection, as the mover, the table, the move and the answer.
REJECTIONS = {
    "malformed": ("host", basic, {"action": "play", "card": W}, 400, "invalid_request"),
    "illegal": ("host", basic, {"action": "play", "card": G3}, 422, "illegal_move"),
    "not your turn": ("guest", basic, {"action": "draw"}, 409, "not_your_turn"),
    "wrong phase": (
        "guest",
        lambda: challenge_pending(guilty=True),
        {"action": "draw"},
        409,
        "wrong_phase",
    ),
}


@pytest.mark.parametrize("key", [None, "once"], ids=["plain", "with an Idempotency-Key"])
@pytest.mark.parametrize("kind", REJECTIONS.values(), ids=REJECTIONS.keys())
def test_every_kind_of_rejected_move_comes_back_with_its_code_and_changes_nothing(
    host, guest, kind, key
):
    mover, position, move, status, code = kind
    game_id = table(host, guest)
    version = put_state(game_id, position()).version
    before = footprint(game_id)
    headers = {} if key is None else {"Idempotency-Key": key}
    persona = {"host": host, "guest": guest}[mover]
    response = persona.post(f"/games/{game_id}/moves", {**move, "version": version}, **headers)
    assert_error(response, status, code)
    assert footprint(game_id) == before


def test_an_outsider_cannot_move(host, guest, outsider):
    game_id = table(host, guest)
    version = put_state(game_id, basic()).version
    before = footprint(game_id)
    assert_error(outsider.move(game_id, version, action="draw"), 403, "forbidden")
    assert_error(outsider.move(game_id, version, action="play", card=R1), 403, "forbidden")
    assert footprint(game_id) == before


def test_moving_needs_a_token(host, guest, anonymous):
    game_id = table(host, guest)
    version = put_state(game_id, basic()).version
    response = anonymous.post(
        f"{API}/games/{game_id}/moves", {"version": version, "action": "draw"}, format="json"
    )
    assert_error(response, 401, "not_authenticated")
    assert footprint(game_id).version == version


@pytest.mark.parametrize(
    "move",
    [
        {"action": "draw"},
        {"action": "play", "card": card_in_hand(basic(), 1, "B4")},
        {"action": "pass"},
    ],
    ids=["draw", "play", "pass"],
)
def test_moving_out_of_turn_is_a_409_not_your_turn(host, guest, move):
    game_id = table(host, guest)
    version = put_state(game_id, basic()).version
    before = footprint(game_id)
    assert_error(guest.move(game_id, version, **move), 409, "not_your_turn")
    assert footprint(game_id) == before


@pytest.mark.parametrize(
    "move",
    [
        {"action": "play", "card": R1},
        {"action": "draw"},
        {"action": "pass"},
    ],
    ids=["play", "draw", "pass"],
)
def test_only_a_colour_can_be_chosen_while_a_first_wild_waits_for_one(host, guest, move):
    game_id = table(host, guest)
    state = build_state([["R1", "G3"], ["B4", "B5"]], top="W", color="red")
    state.color = NO_COLOR
    state.pending = Pending("choose_color", 0)
    version = put_state(game_id, state).version
    before = footprint(game_id)
    assert_error(host.move(game_id, version, **move), 409, "wrong_phase")
    assert footprint(game_id) == before


@pytest.mark.parametrize(
    ("state", "move"),
    [
        (basic(), {"action": "play", "card": card_in_hand(basic(), 1, "B4")}),
        (basic(), {"action": "play", "card": card_in_hand(basic(), 0, "G3")}),
        (basic(), {"action": "play", "card": card_in_hand(basic(), 0, "Y9")}),
        (basic(), {"action": "play", "card": R5}),
        (basic(), {"action": "pass"}),
        (basic(), {"action": "call_uno"}),
        (basic(), {"action": "catch_uno", "target": 1}),
        (basic(), {"action": "catch_uno", "target": 0}),
        (basic(), {"action": "catch_uno", "target": 9}),
        (basic(), {"action": "catch_uno", "target": 99}),
        (basic(), {"action": "catch_uno", "target": -1}),
        (basic(), {"action": "play", "card": R7, "target": 1}),
        (
            build_state([["R1", "Y9"], ["B4"]], top="R5", draw=["R2"]),
            "DRAW_THEN_PLAY_R1",
        ),
    ],
    ids=[
        "card not in hand",
        "no match by colour",
        "no match at all",
        "the top card itself",
        "pass without drawing",
        "nothing to call",
        "catch a seat with many cards",
        "catch oneself",
        "catch a seat not at the table",
        "catch a seat number past any table",
        "catch a negative seat",
        "seven target without seven_o",
        "another card than the one just drawn",
    ],
)
def test_a_move_the_rules_forbid_is_a_422_illegal_move(host, guest, state, move):
    game_id = table(host, guest)
    version = put_state(game_id, state).version
    if move == "DRAW_THEN_PLAY_R1":
        version = host.move(game_id, version, action="draw").json()["game"]["version"]
        move = {"action": "play", "card": R1}
    before = footprint(game_id)
    assert_error(host.move(game_id, version, **move), 422, "illegal_move")
    assert footprint(game_id) == before


def test_drawing_again_while_holding_the_card_just_drawn_is_a_409_wrong_phase(host, guest):
    game_id = table(host, guest)
    version = put_state(
        game_id, build_state([["G3", "Y9"], ["B4", "B5"]], top="R5", draw=["R2"])
    ).version
    version = host.move(game_id, version, action="draw").json()["game"]["version"]
    before = footprint(game_id)
    assert_error(host.move(game_id, version, action="draw"), 409, "wrong_phase")
    assert footprint(game_id) == before


def test_moving_in_a_game_that_has_not_started_is_a_409_wrong_phase(host, guest):
    game_id = str(seat_table(host, guest, max_players=4).pk)
    before = footprint(game_id)
    version = before.version
    assert_error(host.move(game_id, version, action="draw"), 409, "wrong_phase")
    response = guest.post(f"/games/{game_id}/challenge", {"version": version, "challenge": True})
    assert_error(response, 409, "wrong_phase")
    assert footprint(game_id) == before


def test_moving_in_a_finished_game_is_a_409_wrong_phase(host, guest):
    game_id = table(host, guest, target_score=0)
    version = put_state(
        game_id, build_state([["R1"], ["B4", "B5"]], top="R5", target_score=0)
    ).version
    version = host.move(game_id, version, action="play", card=R1).json()["game"]["version"]
    before = footprint(game_id)
    assert_error(guest.move(game_id, version, action="draw"), 409, "wrong_phase")
    response = guest.post(f"/games/{game_id}/challenge", {"version": version, "challenge": False})
    assert_error(response, 409, "wrong_phase")
    assert footprint(game_id) == before


# -- the version ---------------------------------------------------------------------------


@pytest.mark.parametrize("offset", [-1, 1, -5, 1000])
def test_a_stale_version_is_a_409_carrying_the_current_version(host, guest, offset):
    game_id = table(host, guest)
    version = put_state(game_id, basic()).version
    before = footprint(game_id)
    response = host.move(game_id, max(version + offset, 0), action="play", card=R1)
    error = assert_error(response, 409, "stale_version")
    assert error["details"]["version"] == version
    assert footprint(game_id) == before


def test_a_move_made_on_an_old_view_is_stale_after_another_move(host, guest):
    game_id = table(host, guest)
    version = put_state(game_id, basic()).version
    assert host.move(game_id, version, action="play", card=R1).status_code == 200
    before = footprint(game_id)
    error = assert_error(guest.move(game_id, version, action="draw"), 409, "stale_version")
    assert error["details"]["version"] == version + 1
    assert footprint(game_id) == before


def test_sending_the_same_move_twice_applies_it_once(host, guest):
    game_id = table(host, guest)
    version = put_state(game_id, basic()).version
    assert host.move(game_id, version, action="play", card=R1).status_code == 200
    before = footprint(game_id)
    assert_error(host.move(game_id, version, action="play", card=R1), 409, "stale_version")
    assert footprint(game_id) == before


# -- malformed moves -------------------------------------------------------------------------

MALFORMED_MOVES = {
    "empty object": {},
    "version missing": {"action": "draw"},
    "version missing on a play": {"action": "play", "card": R1},
    "version as a string": {"version": "V_STR", "action": "draw"},
    "version null": {"version": None, "action": "draw"},
    "version true": {"version": True, "action": "draw"},
    "version a float": {"version": 1.5, "action": "draw"},
    "version a whole float": {"version": "V_FLOAT", "action": "draw"},
    "version negative": {"version": -1, "action": "draw"},
    "version a list": {"version": ["V"], "action": "draw"},
    "action missing": {"version": "V"},
    "unknown action": {"version": "V", "action": "fly"},
    "action in capitals": {"version": "V", "action": "DRAW"},
    "action null": {"version": "V", "action": None},
    "action a number": {"version": "V", "action": 1},
    "action a list": {"version": "V", "action": ["draw"]},
    "play without card": {"version": "V", "action": "play"},
    "card as a string": {"version": "V", "action": "play", "card": "1"},
    "card a code": {"version": "V", "action": "play", "card": "R1"},
    "card a float": {"version": "V", "action": "play", "card": 1.0},
    "card true": {"version": "V", "action": "play", "card": True},
    "card null": {"version": "V", "action": "play", "card": None},
    "card id 108": {"version": "V", "action": "play", "card": 108},
    "card id -1": {"version": "V", "action": "play", "card": -1},
    "card id huge": {"version": "V", "action": "play", "card": 10**30},
    "card an object": {"version": "V", "action": "play", "card": {"id": 1}},
    "wild without colour": {"version": "V", "action": "play", "card": W},
    "wild with colour null": {"version": "V", "action": "play", "card": W, "color": None},
    "wild with unknown colour": {"version": "V", "action": "play", "card": W, "color": "purple"},
    "wild with colour in capitals": {"version": "V", "action": "play", "card": W, "color": "RED"},
    "wild with colour a number": {"version": "V", "action": "play", "card": W, "color": 0},
    "colour on a non-wild": {"version": "V", "action": "play", "card": R1, "color": "red"},
    "uno as a string": {"version": "V", "action": "play", "card": R1, "uno": "yes"},
    "uno as a number": {"version": "V", "action": "play", "card": R1, "uno": 1},
    "uno null": {"version": "V", "action": "play", "card": R1, "uno": None},
    "target on a non-seven": {"version": "V", "action": "play", "card": R1, "target": 1},
    "target as a string": {"version": "V", "action": "play", "card": R7, "target": "1"},
    "unknown field on play": {"version": "V", "action": "play", "card": R1, "cards": [R1]},
    "card on draw": {"version": "V", "action": "draw", "card": R1},
    "unknown field on draw": {"version": "V", "action": "draw", "foo": 1},
    "uno on draw": {"version": "V", "action": "draw", "uno": True},
    "colour on pass": {"version": "V", "action": "pass", "color": "red"},
    "target on call_uno": {"version": "V", "action": "call_uno", "target": 0},
    "choose_color without colour": {"version": "V", "action": "choose_color"},
    "choose_color unknown colour": {"version": "V", "action": "choose_color", "color": "pink"},
    "choose_color with a card": {
        "version": "V",
        "action": "choose_color",
        "color": "red",
        "card": W,
    },
    "catch_uno without target": {"version": "V", "action": "catch_uno"},
    "catch_uno target a string": {"version": "V", "action": "catch_uno", "target": "1"},
    "catch_uno target null": {"version": "V", "action": "catch_uno", "target": None},
    "catch_uno target a float": {"version": "V", "action": "catch_uno", "target": 1.0},
}


def fill_version(body: dict[str, Any], version: int) -> dict[str, Any]:
    replace = {"V": version, "V_STR": str(version), "V_FLOAT": float(version)}
    out = {}
    for key, value in body.items():
        if isinstance(value, str) and value in replace:
            value = replace[value]
        elif value == ["V"]:
            value = [version]
        out[key] = value
    return out


@pytest.mark.parametrize("body", MALFORMED_MOVES.values(), ids=MALFORMED_MOVES.keys())
def test_a_malformed_move_is_a_400_and_changes_nothing(host, guest, body):
    game_id = table(host, guest)
    version = put_state(game_id, basic()).version
    before = footprint(game_id)
    response = host.post(f"/games/{game_id}/moves", fill_version(body, version))
    assert_error(response, 400, "invalid_request")
    assert footprint(game_id) == before


@pytest.mark.parametrize("body", MALFORMED_MOVES.values(), ids=MALFORMED_MOVES.keys())
def test_a_malformed_move_out_of_turn_is_still_a_400(host, guest, body):
    game_id = table(host, guest)
    version = put_state(game_id, basic()).version
    before = footprint(game_id)
    response = guest.post(f"/games/{game_id}/moves", fill_version(body, version))
    assert_error(response, 400, "invalid_request")
    assert footprint(game_id) == before


@pytest.mark.parametrize(
    "raw", ["null", "[]", '["draw"]', "true", "0", '"draw"', '[{"version": 1, "action": "draw"}]']
)
def test_a_move_body_that_is_not_an_object_is_a_400(host, guest, raw):
    game_id = table(host, guest)
    put_state(game_id, basic())
    before = footprint(game_id)
    assert_error(post_raw(host, f"/games/{game_id}/moves", raw), 400, "invalid_request")
    assert footprint(game_id) == before


@pytest.mark.parametrize("raw", ["", "{", '{"version": 1, "action": "draw"', "{'a': 1}", "NaN"])
def test_a_move_body_that_is_not_json_is_a_400(host, guest, raw):
    game_id = table(host, guest)
    put_state(game_id, basic())
    before = footprint(game_id)
    assert_error(post_raw(host, f"/games/{game_id}/moves", raw), 400, "invalid_request")
    assert footprint(game_id) == before


def test_a_move_with_a_huge_version_is_stale_not_a_crash(host, guest):
    game_id = table(host, guest)
    version = put_state(game_id, basic()).version
    response = host.post(f"/games/{game_id}/moves", {"version": 2**70, "action": "draw"})
    error = assert_error(response, 409, "stale_version")
    assert error["details"]["version"] == version


def test_a_move_sent_as_form_data_is_a_415(host, guest):
    game_id = table(host, guest)
    version = put_state(game_id, basic()).version
    before = footprint(game_id)
    response = host.client.post(
        f"{API}/games/{game_id}/moves", {"version": version, "action": "draw"}, format="multipart"
    )
    assert response.status_code == 415, response.content
    assert response.json()["error"]["code"]
    assert footprint(game_id) == before


def test_the_move_response_events_match_the_feed_as_the_caller_sees_it(host, guest):
    game_id = table(host, guest)
    version = put_state(game_id, basic()).version
    played = host.move(game_id, version, action="play", card=R1).json()
    drawn = guest.move(game_id, played["game"]["version"], action="draw").json()
    after = played["game"]["last_seq"]
    assert events_after(guest, game_id, after) == drawn["events"]
    assert drawn["events"][0]["type"] == "cards_drawn"
    assert len(drawn["events"][0]["data"]["cards"]) == 1
    for_host = events_after(host, game_id, after)
    assert "cards" not in for_host[0]["data"]
    assert for_host[0]["data"]["count"] == 1
    assert json.dumps(events_after(host, game_id, 0)).count('"hands"') == 0
