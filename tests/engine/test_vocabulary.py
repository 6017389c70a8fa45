"""The event vocabulary (games/engine/vocabulary.py) is one declaration, and the
engine reads its rules for events from it: which keys are secret from whom, which
hold cards, which types only change the seats."""

from __future__ import annotations

from games.engine import Event, card_json, render
from games.engine.events import players_data, visible_data
from games.engine.replay import SEAT_EVENTS
from games.engine.vocabulary import CARD_KEYS, EVENT_TYPES, VOCABULARY, data_keys


def test_every_event_type_is_declared_once_with_the_shape_of_its_data():
    assert len(EVENT_TYPES) == len(set(EVENT_TYPES)) == 29
    assert list(VOCABULARY) == list(EVENT_TYPES)
    for event_type, spec in VOCABULARY.items():
        assert spec.data.__doc__, f"{event_type} says what it means"
        assert spec.seat, f"{event_type} says what its seat is"
        assert all(key.doc for key in data_keys(event_type)), f"{event_type} documents its keys"


def test_every_secret_is_a_declared_key_read_by_the_event_seat_a_seat_in_the_data_or_nobody():
    for event_type, spec in VOCABULARY.items():
        keys = {key.name for key in data_keys(event_type)}
        for secret in spec.secrets:
            assert secret.key in keys
            assert secret.reader in (None, "seat", *keys)


def test_every_key_for_staff_alone_is_a_declared_key_a_player_never_gets():
    for event_type, spec in VOCABULARY.items():
        keys = {key.name: key for key in data_keys(event_type)}
        for name in spec.staff_only:
            assert name in keys
            assert not keys[name].required, "old events and players' logs lack it"
    abandoned = Event("game_abandoned", None, {"reason": "spam", "by": "operator"}, 1)
    assert render(abandoned, None, complete=True)["data"] == {"reason": "spam"}
    assert players_data("game_abandoned", {"reason": "spam"}) == {"reason": "spam"}


def test_the_replay_skips_the_types_declared_as_seat_events():
    assert {t for t, spec in VOCABULARY.items() if spec.seat_event} == SEAT_EVENTS
    assert "player_joined" in SEAT_EVENTS
    assert "card_played" not in SEAT_EVENTS


def test_the_keys_that_hold_cards_come_from_the_declared_types():
    assert CARD_KEYS == {
        "card": "card",
        "top_card": "card",
        "cards": "cards",
        "hand": "cards",
        "hands": "hands",
    }
    shown = render(Event("round_ended", 0, {"points": 0, "scores": [0, 0], "hands": [[], [5]]}, 1))
    assert shown["data"]["hands"] == {"0": [], "1": [card_json(5)]}


def test_data_without_a_secret_comes_back_as_it_is():
    data = {"card": 5, "color": "red"}
    assert visible_data("card_played", 0, data, None) is data
    drawn = {"count": 0, "reason": "draw"}
    assert visible_data("cards_drawn", 0, drawn, 1) is drawn
