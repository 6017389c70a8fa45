"""What a change of a game pushes to players who are away, and when: the game side
of notifications (games.notifications), with the push layer replaced by a recorder
of what it is handed."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
import time_machine
from django.db import transaction
from django.utils import timezone

from games import dispatch, services, tasks
from games.engine import GameState, Move
from games.engine.position import build_state, card_in_hand
from games.models import Event, Game
from games.notifications import card_in_words
from players import push
from players.models import player_tag
from tests.factories import Persona, finish_game, put_state, reload, seat_table, start_game
from unoservice import presence
from unoservice.errors import ServiceError


def tagged(persona: Persona) -> str:
    """A player's name as a push text names them: with the tag that tells namesakes
    apart."""
    return f"{persona.player.name}#{player_tag(persona.player.pk)}"


pytestmark = pytest.mark.django_db


@pytest.fixture
def pushed(monkeypatch: pytest.MonkeyPatch) -> list[push.Notification]:
    """Notifications on, and what the push layer is handed, in order."""
    handed: list[push.Notification] = []

    def deliver(note: push.Notification) -> int:
        handed.append(note)
        return 1

    monkeypatch.setattr(push, "enabled", lambda: True)
    monkeypatch.setattr(push, "deliver", deliver)
    monkeypatch.setattr(
        push, "deliver_on_commit", lambda note: transaction.on_commit(lambda: deliver(note))
    )
    return handed


def run_sent(sent_tasks: list[Any], name: str) -> None:
    """Run the tasks named `name` that were sent, as the worker would, and forget them."""
    task = {
        dispatch.NOTIFY_CHANGE: tasks.notify_change,
        dispatch.NOTIFY_TURN_LATE: tasks.notify_turn_late,
    }[name]
    for sent in [t for t in sent_tasks if t.name == name]:
        sent_tasks.remove(sent)
        task(*sent.args)


def two_humans_host_to_play(host: Any, guest: Any, **options: Any) -> Game:
    """Ann (the host, seat 0) to play a red 5 on a red 9, Bob (seat 1) next."""
    game = start_game(host, guest, seed=1, **options)
    state = build_state([["R5", "G7", "B2"], ["R1", "Y2", "Y3"]], top="R9", current=0)
    return put_state(game, state)


def play(persona: Any, game: Game, code: str, capture: Callable[..., Any]) -> Game:
    state = GameState.from_snapshot(game.state)
    seat = game.seat_of(persona.player)
    assert seat is not None
    card = card_in_hand(state, seat, code)
    with capture(execute=True):
        answer = persona.move(game.pk, game.version, action="play", card=card)
    assert answer.status_code == 200, answer.json()
    return reload(game)


def test_a_player_away_hears_that_their_turn_began_with_what_began_it(
    host, guest, pushed, sent_tasks, django_capture_on_commit_callbacks
):
    game = two_humans_host_to_play(host, guest, turn_timeout=600)
    game = play(host, game, "R5", django_capture_on_commit_callbacks)
    run_sent(sent_tasks, dispatch.NOTIFY_CHANGE)
    [note] = pushed
    assert note.kind == "your_turn"
    assert note.player_id == str(guest.player.pk)
    assert (note.game_id, note.seat) == (str(game.pk), 1)
    assert note.text == f"{tagged(host)} played a red 5: your turn"
    assert note.deadline == game.turn_deadline.isoformat()
    assert note.expires_at == note.deadline
    assert note.path == f"/play/games/{game.pk}"
    last = Event.objects.get(game=game, seq=game.last_seq)
    assert note.changed_at == last.at.isoformat()  # the delivery's latency counts from it


def test_nothing_is_sent_to_the_worker_while_notifications_are_off(
    host, guest, sent_tasks, django_capture_on_commit_callbacks
):
    game = two_humans_host_to_play(host, guest)
    play(host, game, "R5", django_capture_on_commit_callbacks)
    assert [t for t in sent_tasks if t.name == dispatch.NOTIFY_CHANGE] == []


def test_a_turn_already_played_when_the_task_runs_sends_nothing(
    host, guest, pushed, sent_tasks, django_capture_on_commit_callbacks
):
    game = two_humans_host_to_play(host, guest)
    game = play(host, game, "R5", django_capture_on_commit_callbacks)
    play(guest, game, "R1", django_capture_on_commit_callbacks)  # Bob was quick
    run_sent(sent_tasks, dispatch.NOTIFY_CHANGE)
    # Bob's turn is over; Ann's has begun, and only she hears of it.
    assert [(n.kind, n.player_id) for n in pushed] == [("your_turn", str(host.player.pk))]


def test_a_player_watching_the_game_from_a_stream_hears_of_their_turn_only_if_they_let_it_sit(
    host, guest, pushed, sent_tasks, settings, django_capture_on_commit_callbacks
):
    game = two_humans_host_to_play(host, guest)
    presence.Publisher().follow(str(game.pk), str(guest.player.pk), following=True)
    game = play(host, game, "R5", django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        run_sent(sent_tasks, dispatch.NOTIFY_CHANGE)
    assert pushed == []
    [later] = [t for t in sent_tasks if t.name == dispatch.NOTIFY_TURN_LATE]
    assert later.countdown == settings.NOTIFY_AFTER_SECONDS
    run_sent(sent_tasks, dispatch.NOTIFY_TURN_LATE)
    assert [(n.kind, n.player_id) for n in pushed] == [("your_turn", str(guest.player.pk))]
    assert pushed[0].text == f"{tagged(host)} played a red 5: your turn"


def test_a_late_reminder_of_a_turn_played_in_time_sends_nothing(
    host, guest, pushed, sent_tasks, django_capture_on_commit_callbacks
):
    game = two_humans_host_to_play(host, guest)
    presence.Publisher().follow(str(game.pk), str(guest.player.pk), following=True)
    game = play(host, game, "R5", django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        run_sent(sent_tasks, dispatch.NOTIFY_CHANGE)
    play(guest, game, "R1", django_capture_on_commit_callbacks)
    run_sent(sent_tasks, dispatch.NOTIFY_TURN_LATE)
    assert [n.player_id for n in pushed if n.player_id == str(guest.player.pk)] == []


def test_a_players_own_draw_does_not_tell_them_it_is_their_turn(
    host, guest, pushed, sent_tasks, django_capture_on_commit_callbacks
):
    game = start_game(host, guest, seed=1)
    state = build_state([["G7", "B2"], ["Y1", "Y2"]], top="R9", current=0, draw=["R3"])
    game = put_state(game, state)
    with django_capture_on_commit_callbacks(execute=True):
        answer = host.move(game.pk, game.version, action="draw")
    assert answer.status_code == 200, answer.json()
    assert [t for t in sent_tasks if t.name == dispatch.NOTIFY_CHANGE] == []


def test_a_bots_turn_tells_nobody(host, pushed, sent_tasks, django_capture_on_commit_callbacks):
    game = start_game(host, "greedy", seed=1)
    state = build_state([["R5", "G7"], ["Y1", "Y2", "R3"]], top="R9", current=0)
    game = put_state(game, state)
    play(host, game, "R5", django_capture_on_commit_callbacks)
    assert [t for t in sent_tasks if t.name == dispatch.NOTIFY_CHANGE] == []


def test_the_players_of_a_started_game_hear_of_it_but_not_the_host_who_started_it(
    host, guest, outsider, pushed, sent_tasks, django_capture_on_commit_callbacks
):
    game = seat_table(host, guest, outsider, seed=3)
    with django_capture_on_commit_callbacks(execute=True):
        services.game_start(game_id=game.pk, player=host.player)
    run_sent(sent_tasks, dispatch.NOTIFY_CHANGE)
    found = sorted(n.player_id for n in pushed if n.kind == "match_found")
    assert found == sorted([str(guest.player.pk), str(outsider.player.pk)])
    note = next(n for n in pushed if n.kind == "match_found")
    assert note.text.startswith("Your game with ")
    assert host.player.name in note.text


def test_a_player_following_the_lobby_from_a_stream_is_told_there_and_not_pushed(
    host, guest, pushed, sent_tasks, django_capture_on_commit_callbacks
):
    presence.Publisher().follow(presence.LOBBY, str(guest.player.pk), following=True)
    game = seat_table(host, guest, seed=3)
    with django_capture_on_commit_callbacks(execute=True):
        services.game_start(game_id=game.pk, player=host.player)
    run_sent(sent_tasks, dispatch.NOTIFY_CHANGE)
    assert [n for n in pushed if n.kind == "match_found"] == []


def test_the_end_of_a_game_and_the_rematch_offered_reach_the_other_players(
    host, guest, pushed, sent_tasks, django_capture_on_commit_callbacks
):
    game = start_game(host, guest, seed=1)
    with django_capture_on_commit_callbacks(execute=True):
        finish_game(game, 1, guest)
    run_sent(sent_tasks, dispatch.NOTIFY_CHANGE)
    finished = {n.player_id: n.text for n in pushed if n.kind == "game_finished"}
    assert finished == {
        str(host.player.pk): f"{tagged(guest)} won the game",
        str(guest.player.pk): "You won the game",
    }
    pushed.clear()
    with django_capture_on_commit_callbacks(execute=True):
        rematch = services.game_rematch(game_id=game.pk, player=guest.player).game
    run_sent(sent_tasks, dispatch.NOTIFY_CHANGE)
    [offered] = [n for n in pushed if n.kind == "rematch_offered"]
    assert offered.player_id == str(host.player.pk)
    assert offered.path == f"/play/games/{rematch.pk}"
    assert offered.extra["rematch"] == str(rematch.pk)
    assert offered.text == f"{tagged(guest)} wants a rematch"


def test_a_player_whose_seat_a_bot_took_after_timeouts_is_told_how_to_resume(
    host, guest, pushed, sent_tasks, django_capture_on_commit_callbacks
):
    game = start_game(host, guest, seed=1, turn_timeout=30)
    state = build_state([["R5", "G7", "B2"], ["R1", "Y2", "Y3"]], top="R9", current=0)
    state.timeouts[0] = 2  # Ann let two turns run out already
    game = put_state(game, state)
    late = game.turn_deadline + dt.timedelta(seconds=1)
    with time_machine.travel(late, tick=False), django_capture_on_commit_callbacks(execute=True):
        services.turn_timeout_apply(game_id=game.pk, version=game.version)
    run_sent(sent_tasks, dispatch.NOTIFY_CHANGE)
    [taken] = [n for n in pushed if n.kind == "seat_taken_over"]
    assert taken.player_id == str(host.player.pk)
    assert taken.extra == {"resume": f"/api/v1/games/{game.pk}/resume"}
    assert taken.seat == 0


def test_a_long_turn_is_reminded_once_when_a_quarter_of_it_is_left(
    host, guest, pushed, django_capture_on_commit_callbacks
):
    day = 86_400
    game = two_humans_host_to_play(host, guest, turn_timeout=day)
    game = play(host, game, "R5", django_capture_on_commit_callbacks)
    assert game.reminder_at == game.turn_deadline - dt.timedelta(hours=6)
    grace = dt.timedelta(seconds=2)
    early, due = (game.reminder_at + dt.timedelta(seconds=s) for s in (-1, 1))
    with time_machine.travel(early, tick=False), django_capture_on_commit_callbacks(execute=True):
        assert services.sweep_overdue(bot_grace=grace).reminders == 0
    with time_machine.travel(due, tick=False), django_capture_on_commit_callbacks(execute=True):
        assert services.sweep_overdue(bot_grace=grace).reminders == 1
        assert services.sweep_overdue(bot_grace=grace).reminders == 0
    [reminder] = [n for n in pushed if n.extra.get("reminder")]
    assert reminder.kind == "your_turn"
    assert reminder.player_id == str(guest.player.pk)
    assert reminder.text == "6 hours left to play your turn"
    assert reload(game).reminder_at is None


def test_a_short_turn_has_no_reminder(host, guest, pushed, django_capture_on_commit_callbacks):
    game = two_humans_host_to_play(host, guest, turn_timeout=3599)
    game = play(host, game, "R5", django_capture_on_commit_callbacks)
    assert game.turn_deadline is not None
    assert game.reminder_at is None


def test_a_new_turn_arms_its_own_reminder(host, guest, pushed, django_capture_on_commit_callbacks):
    game = two_humans_host_to_play(host, guest, turn_timeout=3600)
    game = play(host, game, "R5", django_capture_on_commit_callbacks)
    first = game.reminder_at
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=5), tick=False):
        game = play(guest, game, "R1", django_capture_on_commit_callbacks)
    assert game.reminder_at == game.turn_deadline - dt.timedelta(minutes=15)
    assert game.reminder_at != first


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("R7", "a red 7"),
        ("B+2", "a blue Draw Two"),
        ("GS", "a green Skip"),
        ("W+4", "a Wild Draw Four"),
    ],
)
def test_cards_are_named_as_players_say_them(code, words):
    state = build_state([[code], ["Y1"]], top="R9", current=0)
    assert card_in_words(card_in_hand(state, 0, code)) == words


def test_a_move_the_engine_refuses_sends_nothing(host, guest, pushed, sent_tasks):
    game = two_humans_host_to_play(host, guest)
    move = Move.from_json({"action": "pass"})
    with pytest.raises(ServiceError):
        services.move_apply(game_id=game.pk, player=host.player, version=game.version, move=move)
    assert sent_tasks == []


def test_a_turn_that_began_when_the_other_players_time_ran_out_is_pushed(
    host, guest, pushed, sent_tasks, django_capture_on_commit_callbacks
):
    game = two_humans_host_to_play(host, guest, turn_timeout=30)
    late = game.turn_deadline + dt.timedelta(seconds=1)
    with time_machine.travel(late, tick=False), django_capture_on_commit_callbacks(execute=True):
        services.turn_timeout_apply(game_id=game.pk, version=game.version)
    run_sent(sent_tasks, dispatch.NOTIFY_CHANGE)
    [note] = pushed
    assert (note.kind, note.player_id) == ("your_turn", str(guest.player.pk))
    assert note.text == f"{tagged(host)} ran out of time: your turn"


def test_a_challenge_that_fails_hands_the_turn_back_to_the_player_it_was_against(
    host, guest, pushed, sent_tasks, django_capture_on_commit_callbacks
):
    game = start_game(host, guest, seed=1)
    state = build_state([["W+4", "G7", "B2"], ["R1", "Y2", "Y3"]], top="R9", current=0)
    game = put_state(game, state)
    wild = card_in_hand(state, 0, "W+4")
    with django_capture_on_commit_callbacks(execute=True):
        answer = host.move(game.pk, game.version, action="play", card=wild, color="green")
    assert answer.status_code == 200, answer.json()
    run_sent(sent_tasks, dispatch.NOTIFY_CHANGE)
    assert [(n.player_id, n.text) for n in pushed] == [
        (str(guest.player.pk), f"{tagged(host)} played a Wild Draw Four: your turn")
    ]
    pushed.clear()
    game = reload(game)
    with django_capture_on_commit_callbacks(execute=True):
        body = {"version": game.version, "challenge": True}
        answer = guest.post(f"/games/{game.pk}/challenge", body)
    assert answer.status_code == 200, answer.json()
    run_sent(sent_tasks, dispatch.NOTIFY_CHANGE)
    # Ann had no red: Bob draws six and is skipped, and it is Ann's turn again.
    assert [(n.kind, n.player_id) for n in pushed] == [("your_turn", str(host.player.pk))]
    ann, bob = tagged(host), tagged(guest)
    assert pushed[0].text == f"{bob} challenged {ann}'s Wild Draw Four and lost: your turn"
