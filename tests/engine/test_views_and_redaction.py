"""docs/api.md, "The game view" and "Events, log and replay": what each viewer may see.

A seat sees its own hand and counts for the others; a spectator sees no hand; drawn
cards, dealt hands and a revealed hand are left out of events for everyone they do
not belong to, and the complete log shows everything."""

from __future__ import annotations

import json
from typing import Any

from games.engine import (
    GameConfig,
    GameState,
    Move,
    apply,
    legal_moves,
    new_game,
    player_view,
    render,
    seat_view,
    table_view,
)
from games.engine.cards import card_json
from games.engine.position import build_state, card_in_hand

CARD_KEYS = {"id", "code", "color", "kind", "number"}


def table() -> GameState:
    return build_state(
        [["R7", "W", "B3"], ["G1", "G2", "G3", "G4"], ["Y1", "Y2"]],
        top="R2",
        draw=["R9", "G9", "B8"],
    )


def as_set(bodies: list[dict[str, Any]]) -> set[str]:
    return {json.dumps(body, sort_keys=True) for body in bodies}


def test_a_seat_sees_its_own_hand_and_only_counts_for_the_others() -> None:
    state = table()
    view = seat_view(state, 1)
    assert view["you"]["seat"] == 1
    assert view["you"]["hand"] == [card_json(c) for c in state.hands[1]]
    assert all(set(card) == CARD_KEYS for card in view["you"]["hand"])
    assert [s["card_count"] for s in view["seats"]] == [3, 4, 2]
    assert [s["seat"] for s in view["seats"]] == [0, 1, 2]
    text = json.dumps(view)
    for seat in (0, 2):
        for card in state.hands[seat]:
            assert f'"id": {card},' not in text
    for card in state.draw_pile:
        assert f'"id": {card},' not in text


def test_the_view_carries_the_round_fields_of_the_api() -> None:
    state = table()
    view = seat_view(state, 0)
    assert view["current_seat"] == 0
    assert view["direction"] == "clockwise"
    assert view["current_color"] == "red"
    assert view["top_card"] == card_json(state.discard[-1])
    assert view["draw_pile_count"] == len(state.draw_pile)
    assert view["discard_pile_count"] == 1
    assert view["pending"] is None
    assert view["winner"] is None
    assert view["round"] == 1
    assert view["dealer"] == 0
    for seat in view["seats"]:
        assert {"seat", "card_count", "score", "said_uno", "timeouts"} <= set(seat)


def test_legal_moves_in_the_view_are_api_move_bodies() -> None:
    state = table()
    r7 = card_in_hand(state, 0, "R7")
    wild = card_in_hand(state, 0, "W")
    expected = [{"action": "play", "card": r7}]
    expected += [
        {"action": "play", "card": wild, "color": c} for c in ("red", "yellow", "green", "blue")
    ]
    expected.append({"action": "draw"})
    assert as_set(seat_view(state, 0)["you"]["legal_moves"]) == as_set(expected)
    assert seat_view(state, 1)["you"]["legal_moves"] == []


def test_legal_moves_offer_catches_and_the_challenge_decision_as_bodies() -> None:
    state = build_state([["W+4", "B3"], ["G1", "G2"], ["Y1", "Y2"]], top="R2")
    apply(state, 0, Move("play", card=card_in_hand(state, 0, "W+4"), color=2))
    assert as_set(seat_view(state, 1)["you"]["legal_moves"]) == as_set(
        [
            {"action": "challenge"},
            {"action": "accept"},
            {"action": "catch_uno", "target": 0},
        ]
    )
    assert seat_view(state, 2)["you"]["legal_moves"] == [{"action": "catch_uno", "target": 0}]
    assert seat_view(state, 0)["you"]["legal_moves"] == [{"action": "call_uno"}]
    pending = seat_view(state, 2)["pending"]
    assert pending["type"] == "challenge"
    assert pending["seat"] == 1


def test_a_spectator_sees_no_hand() -> None:
    state = table()
    view = seat_view(state, None)
    assert view["you"] is None
    assert [s["card_count"] for s in view["seats"]] == [3, 4, 2]
    text = json.dumps(view)
    for hand in state.hands:
        for card in hand:
            assert f'"id": {card},' not in text


def test_a_pending_drawn_card_is_shown_only_to_its_seat() -> None:
    state = table()
    apply(state, 0, Move("play", card=card_in_hand(state, 0, "R7")))
    r9 = state.draw_pile[-1]
    apply(state, 1, Move("draw"))
    mine = seat_view(state, 1)
    assert mine["pending"]["type"] == "drawn_card"
    assert mine["pending"]["seat"] == 1
    assert mine["pending"]["card"] == card_json(r9)
    assert card_json(r9) in mine["you"]["hand"]
    assert as_set(mine["you"]["legal_moves"]) == as_set(
        [{"action": "play", "card": r9}, {"action": "pass"}]
    )
    for viewer in (0, 2, None):
        other = seat_view(state, viewer)
        assert other["pending"]["type"] == "drawn_card"
        assert other["pending"]["seat"] == 1
        assert other["pending"].get("card") is None
        assert f'"id": {r9},' not in json.dumps(other)
    assert table_view(state)["pending"]["card"] == card_json(r9)


def test_drawn_cards_are_shown_to_the_drawer_and_only_counted_for_the_others() -> None:
    state = build_state([["R7", "B3"], ["G1", "G2"], ["Y1", "Y2"]], top="R2", draw=["B4"])
    b4 = state.draw_pile[-1]
    drawn = apply(state, 0, Move("draw"))[0]
    assert drawn.type == "cards_drawn"
    mine = render(drawn, 0)
    assert mine["type"] == "cards_drawn"
    assert mine["seat"] == 0
    assert mine["round"] == 1
    assert mine["data"] == {"count": 1, "reason": "draw", "cards": [card_json(b4)]}
    for viewer in (1, 2, None):
        shown = render(drawn, viewer)
        assert shown["data"] == {"count": 1, "reason": "draw"}
        assert shown["seat"] == 0
    assert render(drawn, 2, complete=True)["data"]["cards"] == [card_json(b4)]


def test_penalty_cards_are_hidden_from_the_others_too() -> None:
    state = build_state([["R+2", "B3"], ["G1", "G2"], ["Y1", "Y2"]], top="R2", draw=["B4", "B5"])
    events = apply(state, 0, Move("play", card=card_in_hand(state, 0, "R+2")))
    drawn = next(e for e in events if e.type == "cards_drawn")
    assert len(render(drawn, 1)["data"]["cards"]) == 2
    for viewer in (0, 2, None):
        assert render(drawn, viewer)["data"] == {"count": 2, "reason": "draw_two"}


def test_round_started_shows_each_viewer_only_their_own_hand() -> None:
    state, events = new_game(GameConfig(players=3), seed=4)
    started = next(e for e in events if e.type == "round_started")
    hands = started.data["hands"]
    for viewer in range(3):
        shown = render(started, viewer)["data"]
        assert shown["hand"] == [card_json(c) for c in hands[viewer]]
        assert "hands" not in shown
        assert shown["dealer"] == state.dealer
        assert shown["top_card"] == card_json(started.data["top_card"])
        assert {"current_color", "direction", "current_seat"} <= set(shown)
        text = json.dumps(shown)
        for seat in range(3):
            if seat != viewer:
                for card in hands[seat]:
                    assert f'"id": {card},' not in text
    spectator = render(started, None)["data"]
    assert "hand" not in spectator
    assert "hands" not in spectator


def test_the_complete_log_shows_every_hand_by_seat_number() -> None:
    _, events = new_game(GameConfig(players=3), seed=4)
    started = next(e for e in events if e.type == "round_started")
    complete = render(started, None, complete=True)["data"]
    assert complete["hands"] == {
        str(seat): [card_json(c) for c in hand] for seat, hand in enumerate(started.data["hands"])
    }


def test_card_played_and_round_ended_are_shown_to_everyone() -> None:
    state = build_state([["R7"], ["G1", "W"], ["Y1"]], top="R2", target_score=0)
    events = apply(state, 0, Move("play", card=card_in_hand(state, 0, "R7")))
    played, ended = events[0], events[1]
    assert ended.type == "round_ended"
    for viewer in (0, 1, 2, None):
        assert render(played, viewer)["data"]["card"] == card_json(played.data["card"])
        assert render(played, viewer)["data"]["color"] == "red"
        hands = render(ended, viewer)["data"]["hands"]
        assert hands == {
            "0": [],
            "1": [card_json(c) for c in ended.data["hands"][1]],
            "2": [card_json(c) for c in ended.data["hands"][2]],
        }


def test_a_revealed_hand_is_rendered_only_for_the_challenger() -> None:
    state = build_state([["W+4", "R9", "G7"], ["G1", "G2"], ["Y1", "Y2"]], top="R2")
    apply(state, 0, Move("play", card=card_in_hand(state, 0, "W+4"), color=3))
    hand = list(state.hands[0])
    events = apply(state, 1, Move("challenge"))
    revealed = next(e for e in events if e.type == "hand_revealed")
    assert render(revealed, 1)["data"]["hand"] == [card_json(c) for c in hand]
    for viewer in (2, None):
        assert "hand" not in render(revealed, viewer)["data"]
    challenged = next(e for e in events if e.type == "challenged")
    for viewer in (0, 1, 2, None):
        assert render(challenged, viewer)["data"] == {"by": 1, "guilty": True}


def test_a_bots_view_of_the_round_leaves_out_every_card_it_may_not_see() -> None:
    state, history = new_game(GameConfig(3, 0), 4)
    for _ in range(12):  # drawing whenever it may
        seat = state.to_act
        assert seat is not None
        moves = legal_moves(state, seat)
        history += apply(state, seat, Move("draw") if Move("draw") in moves else moves[0])
    for viewer in range(3):
        seen = player_view(state, viewer, history).history
        assert [e.type for e in seen] == [e.type for e in history if e.round == state.round]
        for event in seen:
            if event.type == "cards_drawn" and event.seat != viewer:
                assert "cards" not in event.data
            if event.type == "round_started":
                assert "hands" not in event.data
                assert event.data["hand"] == history[1].data["hands"][viewer]
    assert player_view(state, 0).history == ()


def test_a_view_names_each_seats_bot_as_the_game_view_does():
    state, _ = new_game(GameConfig(3, 0), 4)
    assert player_view(state, 0, bots=[None, "random", "expert"]).bots == (None, "random", "expert")
    assert player_view(state, 0).bots == ()
