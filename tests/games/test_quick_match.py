"""Quick match: ``POST /matchmaking`` and ``POST /matchmaking/cancel`` (docs/api.md,
Quick match). Players asking for the same settings land in one game, which starts
by itself once full, or with bots once its `bots_after` has passed."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from django.utils import timezone

from games import dispatch, services, tasks
from games.engine import Rules
from games.models import Event, Game
from games.services import matching
from tests.factories import assert_error, footprint, make_persona, reload, stamp_game
from unoservice.errors import TooManyGames

pytestmark = pytest.mark.django_db

SWEEP_GRACE = dt.timedelta(seconds=2)


def ask(persona: Any, body: Any = None, **headers: str) -> Any:
    return persona.post("/matchmaking", {} if body is None else body, **headers)


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Any:
    """Run a request as if its transaction committed, so that its tasks are sent."""

    def run(call: Any, *args: Any, **kwargs: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return call(*args, **kwargs)

    return run


def types_of(game: Game) -> list[str]:
    return list(Event.objects.filter(game=game).order_by("seq").values_list("type", flat=True))


def quick_games() -> list[Game]:
    return list(Game.objects.filter(match_key__isnull=False).order_by("created_at"))


# -- finding a game ------------------------------------------------------------------------


def test_the_first_player_to_ask_creates_a_waiting_quick_match_game_and_hosts_it(host):
    before = timezone.now()
    response = ask(host, {"max_players": 3, "target_score": 0, "bots_after": 60})
    assert response.status_code == 200, response.content
    view = response.json()
    assert view["status"] == "waiting"
    assert view["quick_match"] is True
    assert view["host"]["id"] == str(host.player.pk)
    assert view["you"]["seat"] == 0
    assert (view["max_players"], view["target_score"], view["turn_timeout"]) == (3, 0, None)
    assert (view["visibility"], view["rated"]) == ("public", True)
    bots_at = dt.datetime.fromisoformat(view["bots_at"])
    assert before + dt.timedelta(seconds=60) <= bots_at <= timezone.now() + dt.timedelta(seconds=60)


def test_an_empty_body_asks_for_four_seats_500_points_no_house_rules_and_bots_after_30_s(host):
    view = ask(host).json()
    assert (view["max_players"], view["target_score"]) == (4, 500)
    assert not any(view["rules"].values())
    game = reload(view["id"])
    assert abs((game.bots_at - game.created_at).total_seconds() - 30) < 1


def test_the_second_player_asking_for_the_same_settings_joins_the_same_game(host, guest):
    first = ask(host, {"rules": {"stacking": True}}).json()
    second = ask(guest, {"rules": {"stacking": True, "jump_in": False}}).json()
    assert second["id"] == first["id"]
    assert second["you"]["seat"] == 1
    assert second["status"] == "waiting"
    assert [s["player"]["name"] for s in second["seats"]] == ["Host", "Guest"]


def test_players_asking_for_different_settings_get_different_games(host, guest, outsider):
    games = {
        ask(host, {"max_players": 2}).json()["id"],
        ask(guest, {"max_players": 3}).json()["id"],
        ask(outsider, {"max_players": 2, "rules": {"seven_o": True}}).json()["id"],
    }
    assert len(games) == 3


def test_bots_after_is_not_a_setting_that_is_matched(host, guest):
    first = ask(host, {"bots_after": None}).json()
    assert first["bots_at"] is None
    second = ask(guest, {"bots_after": 5}).json()
    assert second["id"] == first["id"]
    assert second["bots_at"] is None  # the creator's choice stands


def test_the_oldest_waiting_game_with_room_is_chosen(host, guest, outsider):
    older = ask(host, {"max_players": 2}).json()["id"]
    # A second game with the same settings, made later (as after a race elsewhere).
    request = services.MatchRequest(guest.player, 2, 500, Rules(), None)
    built = matching._match_game_build(reload(older).match_key, [request])
    matching._insert_built([built])
    newer = built.outcome.game
    assert str(newer.pk) != older
    assert ask(outsider, {"max_players": 2}).json()["id"] == older


def test_a_player_asking_again_gets_the_same_game_back_and_nothing_changes(host):
    first = ask(host).json()
    before = footprint(first["id"])
    again = ask(host).json()
    assert again["id"] == first["id"]
    assert footprint(first["id"]) == before
    assert len(quick_games()) == 1


def test_ordinary_lobby_games_are_never_matched(host, guest):
    lobby = host.post("/games", {}).json()
    view = ask(guest).json()
    assert view["id"] != lobby["id"]
    assert view["quick_match"] is True
    assert host.get(f"/games/{lobby['id']}").json()["quick_match"] is False


def test_a_game_that_fills_starts_by_itself(host, guest, sent_tasks):
    game_id = ask(host, {"max_players": 2}).json()["id"]
    version_waiting = reload(game_id).version
    view = ask(guest, {"max_players": 2}).json()
    assert view["id"] == game_id
    assert view["status"] == "playing"
    assert view["bots_at"] is None
    assert view["you"]["hand"]
    game = reload(game_id)
    assert game.started_at is not None
    assert types_of(game)[:4] == ["player_joined", "player_joined", "game_started", "round_started"]
    # One request, one change: the seat and the deal are one version.
    assert game.version == version_waiting + 1


def test_a_full_game_starts_by_itself_even_when_its_last_seat_is_taken_by_id(host, guest):
    game_id = ask(host, {"max_players": 2}).json()["id"]
    view = guest.post(f"/games/{game_id}/join").json()
    assert view["status"] == "playing"


def test_a_started_quick_match_is_not_matched_again(host, guest, outsider):
    first = ask(host, {"max_players": 2}).json()["id"]
    ask(guest, {"max_players": 2})
    assert ask(outsider, {"max_players": 2}).json()["id"] != first


def test_the_open_game_cap_counts_quick_match_seats(host, guest):
    for _ in range(services.MAX_OPEN_GAMES):
        stamp_game(host=host.player, seats=[host.player])
    response = ask(host)
    assert_error(response, 409, "too_many_games")
    assert quick_games() == []
    ask(guest)
    before = footprint(quick_games()[0].pk)
    assert_error(ask(host), 409, "too_many_games")
    assert footprint(quick_games()[0].pk) == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"max_players": 1}, "max_players"),
        ({"max_players": "4"}, "max_players"),
        ({"target_score": -1}, "target_score"),
        ({"bots_after": 4}, "bots_after"),
        ({"bots_after": 601}, "bots_after"),
        ({"bots_after": 30.5}, "bots_after"),
        ({"rules": {"stackng": True}}, "rules.stackng"),
        ({"rules": {"stacking": "yes"}}, "rules.stacking"),
        ({"turn_timeout": 30}, "turn_timeout"),
        ({"visibility": "private"}, "visibility"),
    ],
)
def test_a_bad_body_is_a_400_naming_the_field_and_changes_nothing(host, body, field):
    error = assert_error(ask(host, body), 400, "invalid_request")
    assert field in error["details"]["fields"]
    assert quick_games() == []


def test_a_body_that_is_not_an_object_is_a_400(host):
    assert_error(ask(host, [1, 2]), 400, "invalid_request")
    assert quick_games() == []


def test_the_same_idempotency_key_gets_the_first_answer_again(host, guest):
    first = ask(host, {"max_players": 2}, **{"Idempotency-Key": "k1"})
    again = ask(host, {"max_players": 2}, **{"Idempotency-Key": "k1"})
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert_error(ask(host, {"max_players": 3}, **{"Idempotency-Key": "k1"}), 422, None)


def test_asking_needs_a_token(anonymous):
    assert_error(anonymous.post("/api/v1/matchmaking", {}, format="json"), 401, None)


# -- bots after a while ------------------------------------------------------------------------


def test_creating_a_quick_match_arms_the_bots_task_at_bots_at(host, guest, sent_tasks, committed):
    game_id = committed(ask, host, {"bots_after": 20}).json()["id"]
    game = reload(game_id)
    armed = [t for t in sent_tasks if t.name == dispatch.MATCH_BOTS]
    assert [(t.game_id, t.version) for t in armed] == [(game_id, game.version)]
    assert armed[0].eta is not None
    assert armed[0].eta >= game.bots_at
    committed(ask, guest, {"bots_after": 20})
    armed = [t for t in sent_tasks if t.name == dispatch.MATCH_BOTS]
    assert armed[-1].version == reload(game_id).version  # re-armed for the new version


def test_bots_due_beyond_half_the_visibility_timeout_are_left_to_the_sweeper(
    host, sent_tasks, committed, settings
):
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 40}
    game_id = committed(ask, host, {"bots_after": 30}).json()["id"]
    assert reload(game_id).bots_at is not None
    assert not [t for t in sent_tasks if t.name == dispatch.MATCH_BOTS]


def test_no_bots_task_for_a_game_that_waits_for_humans_only(host, sent_tasks, committed):
    committed(ask, host, {"bots_after": None})
    assert not [t for t in sent_tasks if t.name == dispatch.MATCH_BOTS]


def test_when_its_task_comes_the_empty_seats_go_to_greedy_bots_and_the_game_starts(
    host, guest, sent_tasks, committed
):
    game_id = committed(ask, host, {"bots_after": 10}).json()["id"]
    committed(ask, guest, {"bots_after": 10})
    task = [t for t in sent_tasks if t.name == dispatch.MATCH_BOTS][-1]
    with time_machine.travel(task.eta, tick=False):
        assert tasks.quick_match_bots(task.game_id, task.version) is True
    game = reload(game_id)
    assert game.status == "playing"
    assert [(e["player"] and e["player"]["name"], e["bot"]) for e in game.seating] == [
        ("Host", None),
        ("Guest", None),
        (None, "greedy"),
        (None, "greedy"),
    ]
    assert types_of(game)[2:6] == ["bot_added", "bot_added", "game_started", "round_started"]
    assert host.get(f"/games/{game_id}").json()["bots_at"] is None


def test_a_bots_task_that_comes_early_does_nothing(host, sent_tasks, committed):
    game_id = committed(ask, host, {"bots_after": 10}).json()["id"]
    task = [t for t in sent_tasks if t.name == dispatch.MATCH_BOTS][-1]
    before = footprint(game_id)
    assert tasks.quick_match_bots(task.game_id, task.version) is False
    assert footprint(game_id) == before


def test_a_stale_bots_task_does_nothing(host, guest, sent_tasks, committed):
    game_id = committed(ask, host, {"bots_after": 10}).json()["id"]
    stale = [t for t in sent_tasks if t.name == dispatch.MATCH_BOTS][-1]
    committed(ask, guest)  # the game moves on to the next version
    before = footprint(game_id)
    with time_machine.travel(reload(game_id).bots_at + dt.timedelta(seconds=1), tick=False):
        assert tasks.quick_match_bots(stale.game_id, stale.version) is False
    assert footprint(game_id) == before


def test_a_bots_task_for_a_game_that_started_does_nothing(host, guest, sent_tasks, committed):
    game_id = committed(ask, host, {"max_players": 2, "bots_after": 10}).json()["id"]
    task = [t for t in sent_tasks if t.name == dispatch.MATCH_BOTS][-1]
    committed(ask, guest, {"max_players": 2})
    before = footprint(game_id)
    with time_machine.travel(timezone.now() + dt.timedelta(seconds=60), tick=False):
        assert tasks.quick_match_bots(task.game_id, reload(game_id).version) is False
        assert tasks.quick_match_bots(task.game_id, task.version) is False
    assert footprint(game_id) == before


def test_the_sweeper_seats_the_bots_when_the_task_was_lost(host, sent_tasks):
    game_id = ask(host, {"max_players": 3, "bots_after": 5}).json()["id"]
    sent_tasks.clear()  # lost on the way
    assert services.sweep_overdue(bot_grace=SWEEP_GRACE) == (0, 0, 0, 0, 0)  # not yet due
    with time_machine.travel(timezone.now() + dt.timedelta(seconds=6), tick=False):
        assert services.sweep_overdue(bot_grace=SWEEP_GRACE).quick_matches_started == 1
        game = reload(game_id)
        assert game.status == "playing"
        assert [e["bot"] for e in game.seating] == [None, "greedy", "greedy"]
        assert services.sweep_overdue(bot_grace=SWEEP_GRACE).quick_matches_started == 0


def test_a_game_waiting_for_humans_only_is_left_alone_by_the_sweeper(host):
    game_id = ask(host, {"bots_after": None}).json()["id"]
    with time_machine.travel(timezone.now() + dt.timedelta(days=1), tick=False):
        assert services.sweep_overdue(bot_grace=SWEEP_GRACE) == (0, 0, 0, 0, 0)
    assert reload(game_id).status == "waiting"


# -- cancelling ------------------------------------------------------------------------------


def test_cancel_leaves_the_waiting_quick_match_and_answers_its_id(
    host, guest, sent_tasks, committed
):
    game_id = committed(ask, host).json()["id"]
    committed(ask, guest)
    response = committed(host.post, "/matchmaking/cancel")
    assert response.status_code == 200, response.content
    assert response.json() == {"left": [game_id]}
    view = guest.get(f"/games/{game_id}").json()
    assert [s["player"]["name"] for s in view["seats"]] == ["Guest"]
    assert view["host"]["name"] == "Guest"
    # The bots' timer follows the game to its new version.
    assert [t for t in sent_tasks if t.name == dispatch.MATCH_BOTS][-1].version == view["version"]


def test_the_last_player_to_cancel_abandons_the_game(host):
    game_id = ask(host).json()["id"]
    host.post("/matchmaking/cancel")
    assert reload(game_id).status == "abandoned"
    assert ask(host).json()["id"] != game_id


def test_cancel_leaves_every_quick_match_the_player_waits_in(host):
    two = ask(host, {"max_players": 2}).json()["id"]
    three = ask(host, {"max_players": 3}).json()["id"]
    assert host.post("/matchmaking/cancel").json() == {"left": [two, three]}


def test_cancel_with_no_waiting_quick_match_is_a_409_wrong_phase(host, guest):
    assert_error(host.post("/matchmaking/cancel"), 409, "wrong_phase")
    lobby = host.post("/games", {}).json()["id"]  # an ordinary game is not a quick match
    assert_error(host.post("/matchmaking/cancel"), 409, "wrong_phase")
    assert reload(lobby).status == "waiting"


def test_cancel_does_not_touch_a_quick_match_that_started(host, guest):
    game_id = ask(host, {"max_players": 2}).json()["id"]
    ask(guest, {"max_players": 2})
    before = footprint(game_id)
    assert_error(host.post("/matchmaking/cancel"), 409, "wrong_phase")
    assert footprint(game_id) == before


def test_cancel_is_idempotent_with_a_key(host):
    game_id = ask(host).json()["id"]
    first = host.post("/matchmaking/cancel", **{"Idempotency-Key": "c1"})
    again = host.post("/matchmaking/cancel", **{"Idempotency-Key": "c1"})
    assert first.json() == again.json() == {"left": [game_id]}
    assert again["Idempotent-Replayed"] == "true"


def test_a_player_who_cancelled_may_ask_again_and_joins_the_oldest_game(host, guest):
    game_id = ask(host).json()["id"]
    ask(guest)
    guest.post("/matchmaking/cancel")
    third = make_persona("Third")
    assert ask(third).json()["id"] == game_id
    assert ask(guest).json()["id"] == game_id
    assert [e["player"]["name"] for e in reload(game_id).seating] == ["Host", "Third", "Guest"]


# -- a batch of requests (served together, games/combining.py) -----------------------------


def batch(*personas: Any, max_players: int = 4) -> list[Any]:
    """Serve these players' requests as one batch, as the combiner hands them over."""
    requests = [services.MatchRequest(p.player, max_players, 500, Rules(), None) for p in personas]
    key = services.match_key(max_players, 500, Rules())
    return matching._match_batch(key, lambda: requests)


def test_a_batch_fills_the_oldest_waiting_game_first_then_opens_new_ones_in_order():
    players = [make_persona(f"B{n}") for n in range(7)]
    waiting = ask(players[0], {"max_players": 3}).json()["id"]

    answers = batch(*players[1:], max_players=3)

    games = [str(answer.game.pk) for answer in answers]
    assert games[:2] == [waiting, waiting]  # the two free seats of the waiting game
    assert games[2] == games[3] == games[4] != waiting  # then a new game, full
    assert games[5] not in (waiting, games[2])  # and one more, with one player
    assert [reload(g).status for g in (waiting, games[2], games[5])] == [
        "playing",
        "playing",
        "waiting",
    ]
    assert reload(games[5]).host == players[6].player
    assert [s["player"]["name"] for s in reload(games[2]).seating] == ["B3", "B4", "B5"]


def test_a_player_asking_twice_in_one_batch_takes_one_seat_and_gets_one_answer(host, guest):
    answers = batch(host, guest, host)

    assert answers[0] is answers[2]
    assert answers[0].game.pk == answers[1].game.pk
    assert [s["player"]["name"] for s in reload(answers[0].game.pk).seating] == [
        host.player.name,
        guest.player.name,
    ]


def test_in_a_batch_a_player_at_the_cap_is_refused_and_one_already_waiting_is_not_seated_again(
    host, guest, outsider
):
    waiting = ask(guest).json()["id"]
    for _ in range(services.MAX_OPEN_GAMES):
        stamp_game(host=outsider.player, seats=[outsider.player])

    answers = batch(host, guest, outsider)

    assert isinstance(answers[2], TooManyGames)
    assert str(answers[1].game.pk) == waiting
    assert answers[1].events == []
    assert str(answers[0].game.pk) == waiting  # host joined the waiting game
    assert [s["player"]["name"] for s in reload(waiting).seating] == [
        guest.player.name,
        host.player.name,
    ]
    assert not Game.objects.filter(match_key__isnull=False, seats__player=outsider.player).exists()
