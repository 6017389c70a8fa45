"""Bot turns and turn timeouts in the services: what is armed on each change, and the
guards that make a late, repeated or stale task harmless."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.utils import timezone

from games import bots, dispatch, engine, services
from games.engine import GameState, Move, Rules, legal_moves, position
from games.engine.cards import CODE_OF
from games.engine.moves import CALL_UNO
from games.engine.position import build_state
from games.models import Event, Game, GameStatus, Seat
from tests.factories import human_to_act_game, put_state, reload, seed_where, start_game

pytestmark = pytest.mark.django_db

REAL_SEND = dispatch.send  # before the autouse fixture records sends instead


def to_act(game: Game) -> int | None:
    return GameState.from_snapshot(reload(game).state).to_act


def watch(monkeypatch: pytest.MonkeyPatch, strategy: str) -> list[engine.PlayerView]:
    """Replace `strategy` by a bot that records each view it is given and makes its
    first legal move: the views the services hand that strategy's bots."""
    seen: list[engine.PlayerView] = []

    def watching(view: engine.PlayerView, rng: object) -> Move | None:
        seen.append(view)
        return view.legal_moves[0]

    monkeypatch.setitem(bots.STRATEGIES, strategy, watching)
    return seen


# -- what each change arms ---------------------------------------------------------------


def test_a_bot_to_act_gets_a_due_time_and_a_bot_turn_but_no_turn_deadline(
    host, sent_tasks, django_capture_on_commit_callbacks
):
    seed = seed_where(2, lambda s: s.to_act == 1)
    with django_capture_on_commit_callbacks(execute=True):
        game = start_game(host, "greedy", seed=seed, turn_timeout=30)
    assert game.turn_deadline is None
    assert game.bot_due_at is not None
    assert [(t.name, t.game_id, t.version) for t in sent_tasks] == [
        (dispatch.BOT_TURN, str(game.pk), game.version)
    ]


def test_a_human_to_act_gets_a_deadline_and_a_timer_armed_for_that_version(
    host, sent_tasks, django_capture_on_commit_callbacks
):
    seed = seed_where(2, lambda s: s.to_act == 0)
    with django_capture_on_commit_callbacks(execute=True):
        game = start_game(host, "greedy", seed=seed, turn_timeout=30)
    assert game.bot_due_at is None
    assert game.turn_deadline is not None
    timers = [t for t in sent_tasks if t.name == dispatch.TURN_TIMEOUT]
    assert [(t.game_id, t.version) for t in timers] == [(str(game.pk), game.version)]
    assert timers[0].eta is not None
    assert timers[0].eta > game.turn_deadline


def test_nothing_is_sent_before_the_change_commits(host, sent_tasks):
    seed = seed_where(2, lambda s: s.to_act == 1)
    start_game(host, "greedy", seed=seed, turn_timeout=30)
    assert sent_tasks == []  # the test's transaction never commits


def test_bot_think_time_is_the_countdown_of_a_bot_turn(
    host, sent_tasks, settings, django_capture_on_commit_callbacks
):
    settings.BOT_THINK_SECONDS = 1.5
    seed = seed_where(2, lambda s: s.to_act == 1)
    with django_capture_on_commit_callbacks(execute=True):
        game = start_game(host, "greedy", seed=seed)
    assert sent_tasks[-1].countdown == 1.5
    assert game.bot_due_at is not None
    assert (game.bot_due_at - timezone.now()).total_seconds() == pytest.approx(1.5, abs=0.5)


def test_a_very_long_turn_timeout_is_left_to_the_sweeper(
    host, sent_tasks, django_capture_on_commit_callbacks
):
    seed = seed_where(2, lambda s: s.to_act == 0)
    with django_capture_on_commit_callbacks(execute=True):
        game = start_game(host, "greedy", seed=seed, turn_timeout=604800)
    assert game.turn_deadline is not None
    assert [t for t in sent_tasks if t.name == dispatch.TURN_TIMEOUT] == []


@pytest.mark.parametrize(("turn_timeout", "armed"), [(20, True), (40, False)])
def test_a_timer_task_is_sent_only_within_half_the_brokers_visibility_timeout(
    host, sent_tasks, settings, django_capture_on_commit_callbacks, turn_timeout, armed
):
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 60}
    seed = seed_where(2, lambda s: s.to_act == 0)
    with django_capture_on_commit_callbacks(execute=True):
        game = start_game(host, "greedy", seed=seed, turn_timeout=turn_timeout)
    timers = [t for t in sent_tasks if t.name == dispatch.TURN_TIMEOUT]
    assert [(t.game_id, t.version) for t in timers] == ([(str(game.pk), game.version)] * armed)


def test_a_broker_that_cannot_be_reached_does_not_undo_or_fail_the_move(
    host, monkeypatch, django_capture_on_commit_callbacks
):
    def unreachable(*args: object, **kwargs: object) -> None:
        raise ConnectionRefusedError("broker down")

    monkeypatch.setattr(dispatch, "send", REAL_SEND)
    monkeypatch.setattr(dispatch.app, "send_task", unreachable)
    seed = seed_where(2, lambda s: s.to_act == 1)
    with django_capture_on_commit_callbacks(execute=True):
        game = start_game(host, "greedy", seed=seed)
    assert reload(game).status == GameStatus.PLAYING


# -- bot turns -----------------------------------------------------------------------


def test_a_bot_turn_plays_one_move_for_the_version_it_was_sent_for(host):
    seed = seed_where(2, lambda s: s.to_act == 1)
    game = start_game(host, "greedy", seed=seed)
    outcome = services.bot_act(game_id=game.pk, version=game.version)
    assert outcome is not None
    assert outcome.game.version == game.version + 1
    assert outcome.events[0].seat == 1


def test_a_bot_turn_for_an_older_version_does_nothing(host):
    seed = seed_where(2, lambda s: s.to_act == 1)
    game = start_game(host, "greedy", seed=seed)
    assert services.bot_act(game_id=game.pk, version=game.version) is not None
    again = services.bot_act(game_id=game.pk, version=game.version)  # delivered twice
    assert again is None
    assert reload(game).version == game.version + 1


def test_a_bot_turn_in_a_finished_game_does_nothing(host):
    seed = seed_where(2, lambda s: s.to_act == 1)
    game = start_game(host, "greedy", seed=seed)
    Game.objects.filter(pk=game.pk).update(status=GameStatus.FINISHED)
    assert services.bot_act(game_id=game.pk, version=game.version) is None
    assert reload(game).last_seq == game.last_seq


def test_a_bot_turn_does_nothing_when_a_human_is_to_act_and_no_bot_has_a_move(host):
    seed = seed_where(2, lambda s: s.to_act == 0)
    game = start_game(host, "greedy", seed=seed)
    assert services.bot_act(game_id=game.pk, version=game.version) is None
    assert reload(game).version == game.version


def test_a_bot_turn_for_a_game_that_does_not_exist_does_nothing(db):
    assert services.bot_act(game_id="0b5c6b8e-0000-4000-8000-000000000000", version=1) is None
    assert services.bot_act(game_id="not-a-uuid", version=1) is None


def test_a_bot_catches_a_forgotten_uno_before_the_next_bot_plays(host, sent_tasks):
    game = start_game(host, "greedy", "greedy", seed=1)
    state = build_state([["R5", "R7"], ["B1", "B2", "B3"], ["G1", "G2", "G3"]], top="R1")
    game = put_state(game, state)
    outcome = services.move_apply(
        game_id=game.pk,
        player=host.player,
        version=game.version,
        move=_play(state, 0, "R5"),
    )
    assert outcome.state is not None
    assert outcome.state.uno_owed == 0
    caught = services.bot_act(game_id=game.pk, version=outcome.game.version)
    assert caught is not None
    assert [e.type for e in caught.events][:1] == ["uno_caught"]
    assert caught.events[0].data["by"] in (1, 2)


def test_a_bot_jumps_in_with_the_identical_card_while_a_human_is_to_act(host):
    game = start_game(host, "greedy", "greedy", seed=1)
    state = build_state(
        [["B1", "B7", "G2"], ["Y4", "Y5", "G9"], ["R7", "R5", "Y1"]],
        top="R5",
        rules=Rules(jump_in=True),
    )
    game = put_state(game, state)
    assert state.to_act == 0
    moved = services.bot_act(game_id=game.pk, version=game.version)
    assert moved is not None
    assert moved.events[0].type == "card_played"
    assert moved.events[0].seat == 2
    assert CODE_OF[moved.events[0].data["card"]] == "R5"


def _play(state: GameState, seat: int, code: str) -> Move:
    card = next(c for c in state.hands[seat] if CODE_OF[c] == code)
    return Move("play", card=card)


def test_bots_play_on_until_it_is_the_humans_turn(host, sent_tasks):
    """The worker's loop, run here by hand: each bot move sends the next bot turn."""
    seed = seed_where(4, lambda s: s.to_act == 1)
    game = start_game(host, "greedy", "random", "expert", seed=seed)
    moves = 0
    while to_act(game) != 0 and moves < 50:
        current = reload(game)
        assert current.status == GameStatus.PLAYING
        assert services.bot_act(game_id=game.pk, version=current.version) is not None
        moves += 1
    assert to_act(game) == 0
    assert 1 <= moves < 50
    seqs = list(Event.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))


def test_a_bot_that_reads_the_table_sees_this_rounds_events_without_others_cards(host, monkeypatch):
    game = start_game(host, "greedy", "expert", seed=seed_where(3, lambda s: s.to_act == 1))
    seen = watch(monkeypatch, "expert")
    for _ in range(6):
        current = reload(game)
        if to_act(current) == 0:
            services.move_apply(
                game_id=game.pk,
                player=host.player,
                version=current.version,
                move=legal_moves(GameState.from_snapshot(current.state), 0)[0],
            )
        else:
            assert services.bot_act(game_id=game.pk, version=current.version) is not None
    assert seen
    view = seen[-1]
    stored = Event.objects.filter(game=game, round=view.round).order_by("seq")
    assert [e.type for e in view.history] == [e.type for e in stored][: len(view.history)]
    dealt = next(e for e in view.history if e.type == "round_started")
    assert (
        dealt.data["hand"] == next(e for e in stored if e.type == "round_started").data["hands"][2]
    )
    assert "hands" not in dealt.data
    for event in view.history:
        if event.type == "cards_drawn" and event.seat != 2:
            assert "cards" not in event.data


def test_bots_that_decide_from_the_table_alone_are_not_given_the_history(host, monkeypatch):
    game = start_game(host, "greedy", seed=seed_where(2, lambda s: s.to_act == 1))
    seen = watch(monkeypatch, "greedy")
    assert services.bot_act(game_id=game.pk, version=game.version) is not None
    assert [view.history for view in seen] == [()]


def test_a_bot_sees_which_seats_are_bots_and_of_what_strategy_as_the_game_view_shows(
    host, monkeypatch
):
    game = start_game(host, "random", "expert", seed=seed_where(3, lambda s: s.to_act == 2))
    seen = watch(monkeypatch, "expert")
    assert services.bot_act(game_id=game.pk, version=game.version) is not None
    assert [view.bots for view in seen] == [(None, "random", "expert")]


# -- turn timeouts -------------------------------------------------------------------


def test_a_timeout_before_the_deadline_does_nothing(host, guest):
    game = human_to_act_game(host, guest)
    assert services.turn_timeout_apply(game_id=game.pk, version=game.version) is None
    assert reload(game).version == game.version


def test_a_due_timeout_gives_the_default_action_once(host, guest):
    game = human_to_act_game(host, guest)
    assert game.turn_deadline is not None
    with time_machine.travel(game.turn_deadline + dt.timedelta(milliseconds=5), tick=False):
        outcome = services.turn_timeout_apply(game_id=game.pk, version=game.version)
        again = services.turn_timeout_apply(game_id=game.pk, version=game.version)
    assert outcome is not None
    assert again is None
    types = [e.type for e in outcome.events]
    assert types[0] == "turn_timed_out"
    assert outcome.events[0].data == {"timeouts": 1}
    assert "cards_drawn" in types
    assert Event.objects.filter(game=game, type="turn_timed_out").count() == 1
    after = reload(game)
    assert after.version == game.version + 1
    assert after.turn_deadline is not None
    assert after.turn_deadline > game.turn_deadline


def test_a_timeout_for_an_older_version_does_nothing(host, guest):
    game = human_to_act_game(host, guest)
    with time_machine.travel(game.turn_deadline + dt.timedelta(seconds=1), tick=False):
        assert services.turn_timeout_apply(game_id=game.pk, version=game.version - 1) is None
    assert reload(game).version == game.version


def test_a_timeout_in_a_finished_game_does_nothing(host, guest):
    game = human_to_act_game(host, guest)
    Game.objects.filter(pk=game.pk).update(status=GameStatus.ABANDONED)
    with time_machine.travel(game.turn_deadline + dt.timedelta(seconds=1), tick=False):
        assert services.turn_timeout_apply(game_id=game.pk, version=game.version) is None


def test_a_timeout_never_applies_to_a_bot_seat(host):
    seed = seed_where(2, lambda s: s.to_act == 1)
    game = start_game(host, "greedy", seed=seed, turn_timeout=30)
    # Even with a deadline forced onto the bot's turn, a timer leaves bots alone.
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now())
    with time_machine.travel(timezone.now() + dt.timedelta(seconds=1), tick=False):
        assert services.turn_timeout_apply(game_id=game.pk, version=game.version) is None
    assert reload(game).version == game.version


def test_a_move_out_of_turn_does_not_extend_the_deadline_of_the_seat_to_act(host, guest):
    game = start_game(host, guest, seed=1, turn_timeout=30)
    state = build_state([["R5", "R7", "B9"], ["B1", "R2"]], top="R1", current=1)
    game = put_state(game, state)
    played = services.move_apply(
        game_id=game.pk, player=guest.player, version=game.version, move=_play(state, 1, "R2")
    )
    deadline = played.game.turn_deadline
    assert deadline is not None
    assert to_act(game) == 0
    # The guest, who forgot UNO, says it late: the host's clock keeps running.
    called = services.move_apply(
        game_id=game.pk, player=guest.player, version=played.game.version, move=CALL_UNO
    )
    assert called.game.turn_deadline == deadline


def test_the_third_timeout_in_a_row_hands_the_seat_to_a_bot(host, guest, sent_tasks):
    game = human_to_act_game(host, guest, turn_timeout=5)
    seat_timeouts = 0
    for _ in range(20):
        game = reload(game)
        if to_act(game) != 0:
            # The guest answers at once, so only the host's timeouts count.
            state = GameState.from_snapshot(game.state)
            move = legal_moves(state, 1)[-1]
            services.move_apply(
                game_id=game.pk, player=guest.player, version=game.version, move=move
            )
            continue
        with time_machine.travel(game.turn_deadline + dt.timedelta(milliseconds=1), tick=False):
            outcome = services.turn_timeout_apply(game_id=game.pk, version=game.version)
        assert outcome is not None
        if outcome.events[0].seat == 0:
            seat_timeouts = outcome.events[0].data["timeouts"]
        if seat_timeouts == 3:
            break
    assert seat_timeouts == 3
    types = [e.type for e in outcome.events]
    assert types[-1] == "seat_taken_by_bot"
    assert outcome.events[-1].data == {"strategy": "greedy"}
    assert outcome.events[-1].seat == 0
    after = reload(game)
    assert after.seating[0]["bot"] == "greedy"
    assert Seat.objects.get(game=game, seat=0).bot == "greedy"
    assert after.status == GameStatus.PLAYING  # the player timed out; they did not leave
    assert after.seat_of(host.player) is None


# -- the sweeper ----------------------------------------------------------------------


def test_the_sweeper_applies_an_overdue_timeout_whose_timer_was_lost(host, guest):
    game = human_to_act_game(host, guest)
    with time_machine.travel(game.turn_deadline + dt.timedelta(seconds=1), tick=False):
        assert services.sweep_overdue(bot_grace=dt.timedelta(seconds=2)) == (1, 0, 0, 0, 0)
        assert services.sweep_overdue(bot_grace=dt.timedelta(seconds=2)) == (0, 0, 0, 0, 0)
    assert Event.objects.filter(game=game, type="turn_timed_out").count() == 1


def test_the_sweeper_leaves_a_timeout_that_is_not_due(host, guest):
    game = human_to_act_game(host, guest)
    assert services.sweep_overdue(bot_grace=dt.timedelta(seconds=2)) == (0, 0, 0, 0, 0)
    assert reload(game).version == game.version


def test_the_sweeper_moves_a_bot_whose_turn_was_lost_after_the_grace(host):
    seed = seed_where(2, lambda s: s.to_act == 1)
    game = start_game(host, "greedy", seed=seed)
    grace = dt.timedelta(seconds=2)
    assert services.sweep_overdue(bot_grace=grace) == (0, 0, 0, 0, 0)  # its task may still come
    with time_machine.travel(game.bot_due_at + dt.timedelta(seconds=3), tick=False):
        assert services.sweep_overdue(bot_grace=grace) == (0, 1, 0, 0, 0)
    assert reload(game).version == game.version + 1


def test_a_bot_that_fails_still_moves_so_the_table_never_stalls(host, monkeypatch, caplog):
    game = start_game(host, "greedy", seed=seed_where(2, lambda s: s.to_act == 1))

    def broken(view: object, rng: object) -> None:
        raise RuntimeError("a bug in the bot")

    monkeypatch.setitem(bots.STRATEGIES, "greedy", broken)
    outcome = services.bot_act(game_id=game.pk, version=game.version)
    assert outcome is not None
    assert outcome.events[0].seat == 1
    assert "a bug in the bot" in caplog.text


def test_a_bot_with_nothing_to_say_on_its_turn_makes_its_first_legal_move(host, monkeypatch):
    game = start_game(host, "greedy", seed=seed_where(2, lambda s: s.to_act == 1))
    monkeypatch.setitem(bots.STRATEGIES, "greedy", lambda view, rng: None)
    outcome = services.bot_act(game_id=game.pk, version=game.version)
    assert outcome is not None
    assert outcome.events[0].seat == 1


# -- the break between rounds ---------------------------------------------------------

BREAK = 5.0
THINK = 1.5
TIMEOUT = 30


def near_a_round_s_end(seed: int) -> GameState:
    """Seat 0 (the host) holds one card, the Red 1, and plays next on a Red 5; seat 1
    (a bot) holds two; a game to 500 points, whose next round `seed` deals."""
    return build_state([["R1"], ["B4", "B5"]], top="R5", current=0, seed=seed)


def going_out(state: GameState) -> Move:
    return Move.from_json({"action": "play", "card": position.card_in_hand(state, 0, "R1")})


def seconds_until(when: dt.datetime | None) -> float:
    assert when is not None
    return (when - timezone.now()).total_seconds()


def first_of_round_two(seed: int) -> int | None:
    state = near_a_round_s_end(seed)
    engine.apply(state, 0, going_out(state))
    assert state.round == 2
    return state.to_act


@pytest.mark.parametrize(("first", "what"), [(1, "the bot's first move"), (0, "her turn's timer")])
def test_the_first_turn_of_the_next_round_waits_out_the_round_break(
    host, sent_tasks, settings, django_capture_on_commit_callbacks, first, what
):
    settings.ROUND_BREAK_SECONDS = BREAK
    settings.BOT_THINK_SECONDS = THINK
    seed = next(s for s in range(200) if first_of_round_two(s) == first)
    game = start_game(host, "greedy", seed=seed, turn_timeout=TIMEOUT)
    state = near_a_round_s_end(seed)
    version = put_state(game, state).version

    move = going_out(state)
    with django_capture_on_commit_callbacks(execute=True):
        services.move_apply(game_id=game.pk, player=host.player, version=version, move=move)
    game = reload(game)

    assert GameState.from_snapshot(game.state).round == 2, what
    if first == 1:
        assert seconds_until(game.bot_due_at) == pytest.approx(BREAK + THINK, abs=0.5)
        bot_turns = [t for t in sent_tasks if t.name == dispatch.BOT_TURN]
        assert bot_turns[-1].countdown == pytest.approx(BREAK + THINK, abs=0.5)
    else:
        assert seconds_until(game.turn_deadline) == pytest.approx(BREAK + TIMEOUT, abs=0.5)


def test_within_a_round_a_bot_waits_its_think_time_alone(
    host, sent_tasks, settings, django_capture_on_commit_callbacks
):
    settings.ROUND_BREAK_SECONDS = BREAK
    settings.BOT_THINK_SECONDS = THINK
    seed = seed_where(2, lambda s: s.to_act == 0)
    game = start_game(host, "greedy", seed=seed)
    state = build_state([["R1", "R2"], ["B4", "B5"]], top="R5", current=0, seed=seed)
    version = put_state(game, state).version
    play = Move.from_json({"action": "play", "card": position.card_in_hand(state, 0, "R2")})

    with django_capture_on_commit_callbacks(execute=True):
        services.move_apply(game_id=game.pk, player=host.player, version=version, move=play)

    bot_turns = [t for t in sent_tasks if t.name == dispatch.BOT_TURN]
    assert bot_turns[-1].countdown == pytest.approx(THINK, abs=0.5)
