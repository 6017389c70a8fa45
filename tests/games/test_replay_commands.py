"""`manage.py replay_game` and `verify_games`: a stored game re-made from its log and
seed, and an edited log caught at the seq that was edited."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from games.models import Event, Game
from tests.factories import play_out, start_game

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def tamper_first_draw(game: Game) -> int:
    drawn = Event.objects.filter(game=game, type="cards_drawn").exclude(data__cards=[])
    event = drawn.order_by("seq").first()
    assert event is not None
    cards = event.data["cards"]
    Event.objects.filter(pk=event.pk).update(
        data={**event.data, "cards": [(cards[0] + 1) % 108, *cards[1:]]}
    )
    return event.seq


def test_replay_game_prints_the_table_after_every_event(host):
    game = play_out(start_game(host, "greedy", "random", seed=3), {0: host})
    lines = run("replay_game", str(game.pk)).splitlines()
    assert len(lines) == game.last_seq
    assert lines[0].startswith("#1 ")
    assert "game_ended" in lines[-1]
    assert "| hands" in lines[-1]


def test_replay_game_prints_no_table_after_game_started_before_the_deal(host):
    game = play_out(start_game(host, "greedy", "random", seed=3), {0: host})
    started = Event.objects.get(game=game, type="game_started")
    lines = run("replay_game", str(game.pk)).splitlines()
    assert lines[started.seq - 1].split()[:2] == [f"#{started.seq}", "game_started"]
    assert "| hands" not in lines[started.seq - 1]
    assert "round_started" in lines[started.seq]
    assert "| hands 7 7 7 |" in lines[started.seq]


def test_replay_game_verify_accepts_a_game_as_played(host):
    game = play_out(start_game(host, "greedy", "random", seed=4), {0: host})
    assert run("replay_game", str(game.pk), "--verify").strip() == (
        f"game {game.pk}: {game.last_seq} events verified"
    )


def test_replay_game_verify_names_the_seq_of_an_edited_event(host):
    game = play_out(start_game(host, "greedy", "random", seed=5), {0: host})
    seq = tamper_first_draw(game)
    with pytest.raises(CommandError, match=f"differs at seq {seq}:"):
        run("replay_game", str(game.pk), "--verify")


def test_replay_game_verify_notices_a_stored_table_edited_by_hand(host):
    game = play_out(start_game(host, "greedy", "random", seed=6), {0: host})
    state = dict(game.state)
    state["scores"] = [s + 1 for s in state["scores"]]
    Game.objects.filter(pk=game.pk).update(state=state)
    with pytest.raises(CommandError, match="replayed table differs"):
        run("replay_game", str(game.pk), "--verify")


def test_replay_game_verify_notices_a_deleted_event(host):
    game = play_out(start_game(host, "greedy", "random", seed=7), {0: host})
    Event.objects.filter(game=game, seq=10).delete()
    with pytest.raises(CommandError, match="differs at seq 10:"):
        run("replay_game", str(game.pk), "--verify")


def test_replay_game_of_an_unknown_game_fails_cleanly(db):
    with pytest.raises(CommandError, match="no game"):
        run("replay_game", "not-a-game")


def test_verify_games_checks_every_started_game_and_fails_on_one_edited(host, guest):
    good = play_out(start_game(host, "greedy", "random", seed=8), {0: host})
    bad = play_out(start_game(host, "random", "greedy", seed=9), {0: host})
    start_game(guest, "greedy", seed=10)  # running: checked too
    seq = tamper_first_draw(bad)
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 of 3 games do not replay"):
        call_command("verify_games", stdout=out)
    assert f"game {bad.pk}: differs at seq {seq}:" in out.getvalue()
    assert str(good.pk) not in out.getvalue()
    assert "3 games checked, 2 verified, 1 failed" in out.getvalue()


def test_verify_games_filters_by_status_and_date(host):
    play_out(start_game(host, "greedy", "random", seed=11), {0: host})
    start_game(host, "greedy", seed=12)
    assert "1 games checked, 1 verified" in run("verify_games", "--status", "finished")
    assert "0 games checked" in run("verify_games", "--since", "2999-01-01")
    with pytest.raises(CommandError, match="not a date"):
        run("verify_games", "--since", "yesterday")
