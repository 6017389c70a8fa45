"""GET /games/{id}/log and /games/{id}/replay?seq=n: redacted while the game runs,
complete once it is over and always for staff; the replay re-made from the log."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from games import replay
from games.engine import GameState
from games.models import Event, Game
from tests.factories import Persona, assert_error, play_out, reload, start_game
from tests.openapi import component_validator

# Whole games are played through the API here, faster than any phone would.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rate_limits_off")]


def running_game(host: Persona, guest: Persona) -> Game:
    return reload(start_game(host, guest, "greedy", seed=21))


def finished_game(host: Persona, guest: Persona, seed: int = 21) -> Game:
    game = start_game(host, guest, "greedy", "random", seed=seed)
    return play_out(game, {0: host, 1: guest})


def hands_in(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "round_started"]


def assert_conforms(body: Any, component: str) -> None:
    """`body` is what the schema's component `component` says it is."""
    component_validator(component).validate(body)


def test_a_running_games_log_is_redacted_for_a_player(host, guest):
    game = running_game(host, guest)
    body = guest.get(f"/games/{game.pk}/log").json()
    assert body["complete"] is False
    assert body["seed"] is None
    assert body["seeds"] is None
    assert body["game"]["id"] == str(game.pk)
    (started,) = hands_in(body["events"])
    assert "hands" not in started["data"]
    dealt = Event.objects.get(game=game, type="round_started").data["hands"]
    assert [c["id"] for c in started["data"]["hand"]] == dealt[1]
    assert [e["seq"] for e in body["events"]] == list(range(1, game.last_seq + 1))


def test_a_running_games_log_shows_a_spectator_no_hand(host, guest, outsider):
    game = running_game(host, guest)
    body = outsider.get(f"/games/{game.pk}/log").json()
    (started,) = hands_in(body["events"])
    assert "hands" not in started["data"]
    assert "hand" not in started["data"]
    for event in body["events"]:
        if event["type"] == "cards_drawn":
            assert "cards" not in event["data"]


def test_staff_read_the_complete_log_of_a_running_game_but_not_its_seeds(host, guest, staff):
    game = running_game(host, guest)
    body = staff.get(f"/games/{game.pk}/log").json()
    assert body["complete"] is True
    (started,) = hands_in(body["events"])
    assert len(started["data"]["hands"]) == 3
    # Nobody reads the seeds of a running game (docs/fairness.md): staff neither.
    assert [body[key] for key in ("seed", "seed_text", "seeds", "seeds_text")] == [None] * 4
    assert body["deal"]["server_seed"] is None
    assert body["deal"]["round_seeds"] is None
    assert body["deal"]["commitment"] == body["deal_commitment"]


def test_a_finished_games_log_is_complete_for_everyone(host, guest, outsider):
    game = finished_game(host, guest)
    body = outsider.get(f"/games/{game.pk}/log").json()
    assert body["complete"] is True
    assert body["seed"] == game.seed
    assert len(body["seeds"]) == game.state["round"]
    assert [e["type"] for e in body["events"][-2:]] == ["game_ended", "game_rated"]
    for event in body["events"]:
        if event["type"] == "cards_drawn":
            assert len(event["data"]["cards"]) == event["data"]["count"]


def test_the_log_of_a_game_that_does_not_exist_is_not_found(host):
    assert_error(host.get("/games/0b5c6b8e-0000-4000-8000-000000000000/log"), 404, "not_found")
    assert_error(host.get("/games/nonsense/log"), 404, "not_found")


def test_the_log_needs_a_token(anonymous, host, guest):
    game = running_game(host, guest)
    assert_error(anonymous.get(f"/api/v1/games/{game.pk}/log"), 401, "not_authenticated")


def test_the_replay_of_a_running_game_is_for_staff_only(host, guest, staff):
    game = running_game(host, guest)
    assert_error(host.get(f"/games/{game.pk}/replay", seq=1), 403, "forbidden")
    answer = staff.get(f"/games/{game.pk}/replay", seq=game.last_seq)
    assert answer.status_code == 200, answer.json()
    state = GameState.from_snapshot(game.state)
    assert {int(s): [c["id"] for c in h] for s, h in answer.json()["hands"].items()} == dict(
        enumerate(state.hands)
    )


def test_the_replay_after_the_last_event_is_the_stored_table(host, guest, outsider):
    game = finished_game(host, guest)
    body = outsider.get(f"/games/{game.pk}/replay", seq=game.last_seq).json()
    state = GameState.from_snapshot(game.state)
    assert body["seq"] == game.last_seq
    assert [c["id"] for c in body["discard_pile"]] == state.discard
    assert [c["id"] for c in body["draw_pile"]] == list(reversed(state.draw_pile))
    assert body["scores"] == state.scores
    assert set(body) >= {
        "seq",
        "round",
        "hands",
        "draw_pile",
        "discard_pile",
        "current_seat",
        "current_color",
        "direction",
        "pending",
        "scores",
    }


def test_the_replay_shows_each_hand_as_the_deal_left_it(host, guest, outsider):
    game = finished_game(host, guest)
    started = Event.objects.filter(game=game, type="round_started").order_by("seq").first()
    assert started is not None
    body = outsider.get(f"/games/{game.pk}/replay", seq=started.seq).json()
    dealt = {int(s): [c["id"] for c in h] for s, h in body["hands"].items()}
    assert dealt == dict(enumerate(started.data["hands"]))
    assert body["round"] == 1


def test_the_replay_steps_change_hands_as_the_events_say(host, guest, outsider):
    game = finished_game(host, guest)
    for event in Event.objects.filter(game=game, type="cards_drawn").order_by("seq")[:5]:
        before = outsider.get(f"/games/{game.pk}/replay", seq=event.seq - 1).json()
        after = outsider.get(f"/games/{game.pk}/replay", seq=event.seq).json()
        seat = str(event.seat)
        grown = [c["id"] for c in after["hands"][seat]]
        assert grown == [c["id"] for c in before["hands"][seat]] + event.data["cards"]


def test_the_replay_before_the_deal_is_an_empty_table(host, guest, outsider):
    game = finished_game(host, guest)
    body = outsider.get(f"/games/{game.pk}/replay", seq=1).json()
    assert body["seq"] == 1
    assert body["hands"] == {}
    assert body["round"] is None


def test_the_replay_at_game_started_is_the_table_before_the_first_deal(host, guest, outsider):
    game = finished_game(host, guest)
    started = Event.objects.get(game=game, type="game_started")
    answer = outsider.get(f"/games/{game.pk}/replay", seq=started.seq)
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert body == {
        "seq": started.seq,
        "round": None,
        "hands": {},
        "draw_pile": [],
        "discard_pile": [],
        "current_seat": None,
        "current_color": None,
        "direction": None,
        "pending": None,
        "scores": [],
    }
    assert_conforms(body, "ReplayOut")


def test_every_replay_up_to_the_first_move_conforms_to_the_schema(host, guest, outsider):
    game = finished_game(host, guest)
    dealt = Event.objects.get(game=game, type="round_started")
    for seq in range(1, dealt.seq + 2):
        answer = outsider.get(f"/games/{game.pk}/replay", seq=seq)
        assert answer.status_code == 200, answer.json()
        assert_conforms(answer.json(), "ReplayOut")
    assert outsider.get(f"/games/{game.pk}/replay", seq=dealt.seq).json()["round"] == 1


def test_the_admin_replay_viewer_shows_no_table_at_game_started(host, guest, admin_client):
    game = finished_game(host, guest)
    started = Event.objects.get(game=game, type="game_started")
    url = reverse("admin:games_game_replay", args=[game.pk])
    page = admin_client.get(url, {"seq": started.seq})
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="no-table"' in html
    assert 'data-type="game_started"' in html
    assert 'id="no-table"' not in admin_client.get(url, {"seq": started.seq + 1}).content.decode()


@pytest.mark.parametrize("seq", ["0", "-1", "abc", "", "1.5", "1e3", "\u0661"])
def test_a_replay_seq_that_is_not_a_positive_integer_is_rejected(host, guest, seq):
    game = finished_game(host, guest)
    assert_error(host.get(f"/games/{game.pk}/replay", seq=seq), 400, "invalid_request")


def test_a_replay_without_seq_is_rejected(host, guest):
    game = finished_game(host, guest)
    assert_error(host.get(f"/games/{game.pk}/replay"), 400, "invalid_request")


def test_a_replay_past_the_last_seq_is_not_found(host, guest):
    game = finished_game(host, guest)
    assert_error(host.get(f"/games/{game.pk}/replay", seq=game.last_seq + 1), 404, "not_found")
    assert_error(host.get(f"/games/{game.pk}/replay", seq="9" * 30), 404, "not_found")


def test_a_replay_of_a_tampered_log_says_so(host, guest, staff):
    game = finished_game(host, guest)
    drawn = Event.objects.filter(game=game, type="cards_drawn").order_by("seq").first()
    assert drawn is not None
    Event.objects.filter(pk=drawn.pk).update(data={**drawn.data, "count": 99})
    error = assert_error(
        staff.get(f"/games/{game.pk}/replay", seq=game.last_seq), 500, "log_corrupt"
    )
    assert f"seq {drawn.seq}" in error["message"]


def test_twenty_games_played_through_the_api_with_bots_all_verify(host, guest):
    strategies = [["greedy", "random"], ["random", "expert"], ["greedy", "greedy"]]
    rules = [
        {},
        {"stacking": True, "seven_o": True},
        {"jump_in": True, "draw_until_playable": True},
    ]
    for number in range(20):
        game = start_game(
            host,
            guest,
            *strategies[number % 3],
            seed=1000 + number,
            target_score=0 if number % 4 else 60,
            rules=rules[number % 3],
        )
        finished = play_out(game, {0: host, 1: guest})
        assert finished.status == "finished"
        replay.verify(finished)
