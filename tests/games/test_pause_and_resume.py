"""Games that would run for ever among bots (docs/rules.md, "Timeouts and leaving"): with
no human left and a timed-out player who may come back, the game pauses, and is
abandoned when nobody resumes within five minutes. A player may hold at most ten
waiting or running games (docs/api.md)."""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import pytest
import time_machine
from django.db import connection

from games import dispatch, replay, services
from games.engine import GameState
from games.models import Event, Game, GameStatus, Seat
from tests.factories import (
    Persona,
    assert_error,
    human_to_act_game,
    make_persona,
    play_out,
    reload,
    seat_table,
    start_game,
)
from tests.openapi import component_validator

pytestmark = pytest.mark.django_db


def to_act(game: Game) -> int | None:
    return GameState.from_snapshot(game.state).to_act


def types_after(game: Game, seq: int) -> list[str]:
    return list(Event.objects.filter(game=game, seq__gt=seq).values_list("type", flat=True))


def time_out(game: Game) -> services.Outcome:
    """Let the deadline of the human to act pass and apply the default action."""
    with time_machine.travel(game.turn_deadline + dt.timedelta(milliseconds=1), tick=False):
        outcome = services.turn_timeout_apply(game_id=game.pk, version=game.version)
    assert outcome is not None
    return outcome


def walk_away(game: Game, seat: int, answer: dict[int, Persona] | None = None) -> Game:
    """Bots play, the humans in `answer` answer at once, and the human at `seat` never
    does: until their seat goes to a bot (or the game ends)."""
    answer = answer or {}
    for _ in range(500):
        game = reload(game)
        if game.status != GameStatus.PLAYING or game.seating[seat]["bot"] is not None:
            return game
        if services.bot_act(game_id=game.pk, version=game.version) is not None:
            continue
        acting = to_act(game)
        if acting in answer:
            view = answer[acting].get(f"/games/{game.pk}").json()
            move = view["you"]["legal_moves"][-1]
            if move["action"] in ("challenge", "accept"):
                body = {"version": view["version"], "challenge": False}
                assert answer[acting].post(f"/games/{game.pk}/challenge", body).status_code == 200
            else:
                assert answer[acting].move(game.pk, view["version"], **move).status_code == 200
            continue
        time_out(game)
    raise AssertionError("the seat never went to a bot")


def abandoned_among_bots(host: Persona) -> Game:
    """The attack: a 10-seat game, 9 expert bots, a 5 s turn timeout; the host walks
    away after starting it."""
    game = start_game(host, *["expert"] * 9, seed=11, target_score=500, turn_timeout=5)
    return walk_away(game, 0)


# -- pausing ------------------------------------------------------------------------------


def test_a_game_left_to_bots_through_timeouts_pauses_instead_of_playing_on(host, sent_tasks):
    game = abandoned_among_bots(host)
    assert game.status == GameStatus.PLAYING
    assert game.paused_until is not None
    last = Event.objects.filter(game=game).order_by("-seq")[:3]
    assert [e.type for e in reversed(last)][-2:] == ["seat_taken_by_bot", "game_paused"]
    assert game.turn_deadline is None
    assert game.bot_due_at is None
    view = host.get(f"/games/{game.pk}").json()
    assert view["paused_until"] == game.paused_until.isoformat()
    assert view["seats"][0]["bot"] == "greedy"


def test_nobody_moves_while_a_game_is_paused(host, sent_tasks):
    game = abandoned_among_bots(host)
    sent_tasks.clear()
    assert services.bot_act(game_id=game.pk, version=game.version) is None
    with time_machine.travel(game.paused_until - dt.timedelta(seconds=1), tick=False):
        assert services.sweep_overdue(bot_grace=dt.timedelta(seconds=2)) == (0, 0, 0, 0, 0)
    assert reload(game).version == game.version
    assert sent_tasks == []


def test_the_pause_arms_its_end_and_nothing_else(
    host, sent_tasks, django_capture_on_commit_callbacks
):
    game = start_game(host, "greedy", seed=11, turn_timeout=5)
    with django_capture_on_commit_callbacks(execute=True):
        game = walk_away(game, 0)
    last = sent_tasks[-1]
    assert last.name == dispatch.PAUSE_EXPIRY
    assert (last.game_id, last.version) == (str(game.pk), game.version)
    assert last.eta is not None
    assert last.eta >= game.paused_until


def test_a_pause_longer_than_half_the_visibility_timeout_is_left_to_the_sweeper(
    host, sent_tasks, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 120}
    game = start_game(host, "greedy", seed=11, turn_timeout=5)
    with django_capture_on_commit_callbacks(execute=True):
        game = walk_away(game, 0)
    assert game.paused_until is not None
    assert not [t for t in sent_tasks if t.name == dispatch.PAUSE_EXPIRY]


def test_a_paused_game_nobody_resumes_is_abandoned_after_five_minutes(host):
    game = abandoned_among_bots(host)
    paused_at = Event.objects.get(game=game, type="game_paused").at
    assert game.paused_until - paused_at == dt.timedelta(minutes=5)
    with time_machine.travel(game.paused_until - dt.timedelta(seconds=1), tick=False):
        assert services.game_pause_expire(game_id=game.pk, version=game.version) is None
    with time_machine.travel(game.paused_until + dt.timedelta(milliseconds=1), tick=False):
        outcome = services.game_pause_expire(game_id=game.pk, version=game.version)
    assert outcome is not None
    ended = reload(game)
    assert ended.status == GameStatus.ABANDONED
    assert ended.paused_until is None
    abandoned = Event.objects.get(game=game, type="game_abandoned")
    assert abandoned.data == {"reason": "no player resumed within the pause"}
    # Once over, the log is complete and still replays exactly.
    replay.verify(ended)


def test_the_sweeper_ends_a_pause_whose_task_was_lost(host):
    game = abandoned_among_bots(host)
    with time_machine.travel(game.paused_until + dt.timedelta(seconds=1), tick=False):
        assert services.sweep_overdue(bot_grace=dt.timedelta(seconds=2)) == (0, 0, 1, 0, 0)
    assert reload(game).status == GameStatus.ABANDONED


def test_an_end_of_pause_for_an_older_version_does_nothing(host, guest):
    game = abandoned_among_bots(host)
    assert host.post(f"/games/{game.pk}/resume").status_code == 200
    with time_machine.travel(game.paused_until + dt.timedelta(seconds=1), tick=False):
        assert services.game_pause_expire(game_id=game.pk, version=game.version) is None
    assert reload(game).status == GameStatus.PLAYING


def test_a_game_with_a_human_still_seated_does_not_pause(host, guest):
    game = human_to_act_game(host, guest, turn_timeout=5)
    game = walk_away(game, 0, answer={1: guest})
    assert game.seating[0]["bot"] == "greedy"
    assert game.paused_until is None
    assert "game_paused" not in types_after(game, 0)


def test_the_last_human_leaving_pauses_the_game_for_a_timed_out_player(host, guest):
    game = human_to_act_game(host, guest, turn_timeout=5)
    game = walk_away(game, 0, answer={1: guest})
    seq = game.last_seq
    assert guest.post(f"/games/{game.pk}/leave").status_code == 200
    after = reload(game)
    assert after.paused_until is not None
    assert types_after(game, seq) == ["player_left", "seat_taken_by_bot", "game_paused"]


def test_the_timed_out_player_can_leave_a_paused_game_which_then_ends(host):
    game = abandoned_among_bots(host)
    left = host.post(f"/games/{game.pk}/leave")
    assert left.status_code == 200, left.json()
    after = reload(game)
    assert after.status == GameStatus.ABANDONED
    assert after.paused_until is None
    assert Seat.objects.get(game=game, seat=0).timed_out is False
    assert_error(host.post(f"/games/{game.pk}/resume"), 409, "wrong_phase")


# -- resuming -----------------------------------------------------------------------------


def test_resuming_a_paused_game_gives_the_seat_back_and_play_goes_on(
    host, sent_tasks, django_capture_on_commit_callbacks
):
    game = abandoned_among_bots(host)
    seq = game.last_seq
    with django_capture_on_commit_callbacks(execute=True):
        answer = host.post(f"/games/{game.pk}/resume")
    assert answer.status_code == 200, answer.json()
    view = answer.json()
    assert view["version"] == game.version + 1
    assert view["paused_until"] is None
    assert view["seats"][0]["bot"] is None
    assert view["seats"][0]["timeouts"] == 0
    assert view["you"]["seat"] == 0
    assert types_after(game, seq) == ["seat_resumed", "game_resumed"]
    resumed = Event.objects.get(game=game, type="seat_resumed")
    assert resumed.seat == 0
    assert resumed.data == {"player": {"id": str(host.player.pk), "name": host.player.name}}
    after = reload(game)
    assert after.turn_deadline is not None or after.bot_due_at is not None
    assert sent_tasks
    assert sent_tasks[-1].version == after.version


def test_a_resumed_player_starts_a_fresh_run_of_timeouts(host, guest):
    game = human_to_act_game(host, guest, turn_timeout=5)
    game = walk_away(game, 0, answer={1: guest})
    assert host.post(f"/games/{game.pk}/resume").status_code == 200
    game = reload(game)
    assert GameState.from_snapshot(game.state).timeouts[0] == 0
    # One more timeout is the first of a new run, not the fourth of the old one.
    for _ in range(50):
        game = reload(game)
        if to_act(game) == 0:
            break
        view = guest.get(f"/games/{game.pk}").json()
        assert (
            guest.move(game.pk, view["version"], **view["you"]["legal_moves"][-1]).status_code
            == 200
        )
    outcome = time_out(reload(game))
    assert outcome.events[0].data == {"timeouts": 1}
    assert reload(game).seating[0]["bot"] is None


def test_a_game_paused_and_resumed_replays_exactly_from_its_log(host):
    game = abandoned_among_bots(host)
    assert host.post(f"/games/{game.pk}/resume").status_code == 200
    game = walk_away(reload(game), 0)  # away again: timeouts from zero, then a bot
    assert host.post(f"/games/{game.pk}/resume").status_code == 200
    game = reload(game)
    assert game.status == GameStatus.PLAYING
    replay.verify(game)  # the stored table, timeouts included, is what the log makes


def test_a_player_cannot_resume_a_seat_they_play_or_left(host, guest, outsider):
    game = human_to_act_game(host, guest, turn_timeout=5)
    assert_error(host.post(f"/games/{game.pk}/resume"), 409, "wrong_phase")
    assert_error(outsider.post(f"/games/{game.pk}/resume"), 403, "forbidden")
    assert guest.post(f"/games/{game.pk}/leave").status_code == 200
    before = reload(game).version
    assert_error(guest.post(f"/games/{game.pk}/resume"), 409, "wrong_phase")
    assert reload(game).version == before


def test_resuming_a_finished_game_is_refused(host):
    game = abandoned_among_bots(host)
    assert host.post(f"/games/{game.pk}/leave").status_code == 200
    assert_error(host.post(f"/games/{game.pk}/resume"), 409, "wrong_phase")


def test_resuming_an_unknown_game_is_a_404(host):
    assert_error(host.post("/games/not-a-game/resume"), 404, "not_found")


# -- playing from a seat a bot took over ---------------------------------------------------


def test_a_move_from_a_seat_a_bot_took_over_says_to_resume_it_and_changes_nothing(host, guest):
    game = walk_away(human_to_act_game(host, guest, turn_timeout=5), 0, answer={1: guest})
    assert game.seating[0]["bot"] == "greedy"
    refused = host.move(game.pk, game.version, action="draw")
    error = assert_error(refused, 409, "seat_taken_over")
    resume = f"/api/v1/games/{game.pk}/resume"
    assert error["details"] == {"seat": 0, "resume": resume}
    assert "resume" in error["message"]
    component_validator("Error409").validate(refused.json())  # the schema declares it
    after = reload(game)
    assert (after.version, after.last_seq) == (game.version, game.last_seq)
    # The path in `details` is the one that gives the seat back.
    assert host.client.post(resume).status_code == 200
    assert reload(game).seating[0]["bot"] is None


def test_a_challenge_from_a_seat_a_bot_took_over_says_to_resume_it(host, guest):
    game = walk_away(human_to_act_game(host, guest, turn_timeout=5), 0, answer={1: guest})
    body = {"version": game.version, "challenge": True}
    error = assert_error(host.post(f"/games/{game.pk}/challenge", body), 409, "seat_taken_over")
    assert error["details"]["seat"] == 0
    assert reload(game).version == game.version


def test_a_move_from_a_seat_taken_over_in_a_paused_game_says_to_resume_it(host):
    game = abandoned_among_bots(host)
    assert game.paused_until is not None
    refused = host.move(game.pk, game.version, action="draw")
    assert assert_error(refused, 409, "seat_taken_over")["details"]["seat"] == 0
    assert reload(game).version == game.version


def test_a_player_who_never_sat_or_left_is_still_not_seated(host, guest, outsider):
    game = walk_away(human_to_act_game(host, guest, turn_timeout=5), 0, answer={1: guest})
    assert_error(outsider.move(game.pk, game.version, action="draw"), 403, "forbidden")
    assert guest.post(f"/games/{game.pk}/leave").status_code == 200
    game = reload(game)
    assert_error(guest.move(game.pk, game.version, action="draw"), 403, "forbidden")
    assert reload(game).version == game.version


def test_a_seat_taken_over_in_a_game_that_ended_is_no_longer_the_players(host, guest):
    game = walk_away(human_to_act_game(host, guest, turn_timeout=5), 0, answer={1: guest})
    game = play_out(game, {1: guest})
    assert game.status == GameStatus.FINISHED
    assert Seat.objects.get(game=game, seat=0).timed_out is True
    assert_error(host.move(game.pk, game.version, action="draw"), 403, "forbidden")
    assert_error(host.post(f"/games/{game.pk}/resume"), 409, "wrong_phase")


# -- at most ten open games ---------------------------------------------------------------


def open_games(persona: Persona, count: int) -> list[str]:
    """The ids of `count` waiting games `persona` hosts."""
    return [str(seat_table(persona).pk) for _ in range(count)]


def test_an_eleventh_open_game_cannot_be_created(host):
    open_games(host, 10)
    refused = host.post("/games", {"max_players": 2})
    error = assert_error(refused, 409, "too_many_games")
    assert error["details"] == {"limit": 10}
    assert Game.objects.count() == 10


def test_an_eleventh_open_game_cannot_be_joined(host, guest):
    open_games(guest, 10)
    game_id = open_games(host, 1)[0]
    before = reload(game_id).version
    assert_error(guest.post(f"/games/{game_id}/join"), 409, "too_many_games")
    assert reload(game_id).version == before


def test_a_game_that_ends_or_is_left_frees_its_place(host, guest):
    ids = open_games(host, 10)
    assert host.post(f"/games/{ids[0]}/leave").status_code == 200  # abandoned: no one left
    assert host.post("/games", {"max_players": 2}).status_code == 201


def test_a_seat_held_by_a_bot_after_timeouts_still_counts_until_it_is_given_up(host, guest):
    game = human_to_act_game(host, guest, turn_timeout=5)
    walk_away(game, 0, answer={1: guest})
    open_games(host, 9)
    assert_error(host.post("/games", {"max_players": 2}), 409, "too_many_games")
    assert host.post(f"/games/{game.pk}/leave").status_code == 200
    assert host.post("/games", {"max_players": 2}).status_code == 201


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_twelve_games_created_at_once_by_one_player_make_exactly_ten(db):
    player = make_persona("Racer")
    answers: list[int] = []
    barrier = threading.Barrier(12)

    def create() -> None:
        from rest_framework.test import APIClient

        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {player.token}")
        barrier.wait()
        try:
            response: Any = client.post("/api/v1/games", {"max_players": 2}, format="json")
            answers.append(response.status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=create) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [201] * 10 + [409] * 2
    assert Game.objects.filter(host=player.player).count() == 10
