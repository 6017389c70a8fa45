"""Numbers every JSON parser reads exactly (docs/api.md, Seeds and other numbers): no
answer holds an integer beyond 2^53 - 1; a game dealt with 63-bit seeds before still
replays exactly, its seeds given as decimal text; a chosen seed beyond 2^53 - 1 is
refused."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import pytest

from games import engine, replay, services
from games.engine import LEGACY_SEED_BITS, GameConfig, round_seed
from games.models import Event, Game
from tests.factories import Persona, assert_error, play_out, reload, seat_table, start_game
from unoservice.errors import InvalidRequest

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rate_limits_off")]

MAX_EXACT = 2**53 - 1
OLD_SEED = 6983017181972492979  # a seed of the kind games drew before, above 2^53


def integers_in(body: Any, path: str = "") -> Iterator[tuple[str, int]]:
    """Every integer of a JSON answer with where it is (booleans are not numbers)."""
    if isinstance(body, dict):
        for key, value in body.items():
            yield from integers_in(value, f"{path}.{key}")
    elif isinstance(body, list):
        for index, value in enumerate(body):
            yield from integers_in(value, f"{path}[{index}]")
    elif isinstance(body, int) and not isinstance(body, bool):
        yield path, body


def answers_about(game: Game, *readers: Persona) -> dict[str, Any]:
    """What `readers` get from every endpoint that shows the game or its players."""
    answers: dict[str, Any] = {}
    for reader in readers:
        paths = [
            f"/games/{game.pk}",
            "/games?status=finished",
            f"/games/{game.pk}/events?after=0",
            f"/games/{game.pk}/log",
            f"/players/{game.host_id}",
            f"/players/{game.host_id}/games",
            "/players/me",
            "/leaderboard",
            *(
                f"/games/{game.pk}/replay?seq={seq}"
                for seq in (1, game.last_seq // 2, game.last_seq)
            ),
        ]
        for path in paths:
            answer = reader.get(path)
            assert answer.status_code == 200, (path, answer.content)
            answers[f"{reader.player.name} GET {path}"] = answer.json()
    return answers


def too_large(answers: dict[str, Any]) -> list[tuple[str, str, int]]:
    return [
        (where, path, number)
        for where, body in answers.items()
        for path, number in integers_in(body)
        if abs(number) > MAX_EXACT
    ]


def test_no_answer_about_a_game_played_to_its_end_holds_an_integer_beyond_2_to_the_53(
    host, guest, outsider, staff
):
    # Dealt from a seed the service draws, as every game a player creates.
    game = seat_table(host, guest, "greedy", target_score=100)
    assert game.seed <= MAX_EXACT
    game = services.game_start(game_id=game.pk, player=host.player).game
    game = play_out(game, {0: host, 1: guest})
    assert game.status == "finished"
    answers = answers_about(game, host, outsider, staff)
    assert too_large(answers) == []
    log = answers[f"Host GET /games/{game.pk}/log"]
    # Dealt by uno-deal/1: its seeds are hex text, and the integer fields are null.
    assert [log[key] for key in ("seed", "seed_text", "seeds", "seeds_text")] == [None] * 4
    assert log["deal"]["server_seed"] == game.server_seed
    assert log["deal"]["round_seeds"] == replay.round_seeds(game)
    assert len(log["deal"]["round_seeds"]) == game.state["round"]


def test_the_moves_answers_hold_no_integer_beyond_2_to_the_53(host, guest):
    game = seat_table(host, guest)
    game = services.game_start(game_id=game.pk, player=host.player).game
    answers = {}
    for _ in range(20):
        game = reload(game)
        seat = engine.GameState.from_snapshot(game.state).to_act
        mover = host if seat == 0 else guest
        view = mover.get(f"/games/{game.pk}").json()
        move = next(m for m in view["you"]["legal_moves"] if m["action"] not in ("catch_uno",))
        if move["action"] in ("challenge", "accept"):
            body = {"version": view["version"], "challenge": move["action"] == "challenge"}
            answer = mover.post(f"/games/{game.pk}/challenge", body)
        else:
            answer = mover.move(game.pk, view["version"], **move)
        assert answer.status_code == 200, answer.content
        answers[f"move {view['version']}"] = answer.json()
        if reload(game).status != "playing":
            break
    assert len(answers) > 1
    assert too_large(answers) == []


# -- games dealt before ---------------------------------------------------------------


def legacy_game(host: Persona, guest: Persona, monkeypatch: pytest.MonkeyPatch) -> Game:
    """A game as the service dealt them before seeds were drawn below 2^53: a 63-bit
    seed, 63-bit round seeds, and a stored table that says nothing of `seed_bits`."""
    game = seat_table(host, guest, "greedy", target_score=100)
    Game.objects.filter(pk=game.pk).update(seed=OLD_SEED, server_seed="")
    dealt_before = functools.partial(engine.new_game, seed_bits=LEGACY_SEED_BITS)
    with monkeypatch.context() as patch:
        patch.setattr(engine, "new_game", dealt_before)
        services.game_start(game_id=game.pk, player=host.player)
    game = reload(game)
    assert "seed_bits" not in game.state
    return play_out(game, {0: host, 1: guest})


def test_a_game_dealt_with_63_bit_seeds_still_replays_exactly(host, guest, monkeypatch):
    game = legacy_game(host, guest, monkeypatch)
    assert game.status == "finished"
    replay.verify(game)
    state, _ = engine.new_game(GameConfig(3, 100), OLD_SEED, seed_bits=LEGACY_SEED_BITS)
    dealt = Event.objects.get(game=game, type="round_started", round=1).data["hands"]
    assert dealt == state.hands


def test_a_game_dealt_with_63_bit_seeds_gives_them_as_text_and_its_numbers_null(
    host, guest, outsider, monkeypatch
):
    game = legacy_game(host, guest, monkeypatch)
    rounds = range(1, game.state["round"] + 1)
    old_seeds = [round_seed(OLD_SEED, n, LEGACY_SEED_BITS) for n in rounds]
    assert any(seed > MAX_EXACT for seed in old_seeds)
    log = outsider.get(f"/games/{game.pk}/log").json()
    assert log["complete"] is True
    assert (log["seed"], log["seed_text"]) == (None, str(OLD_SEED))
    assert log["seeds"] is None
    # Read back as text, the seeds replay the game in any language: here, as ints.
    assert [int(text) for text in log["seeds_text"]] == old_seeds
    assert too_large(answers_about(game, host, outsider)) == []


def test_a_running_games_log_gives_no_seed_as_number_or_text(host, guest):
    game = start_game(host, guest, seed=5)
    log = guest.get(f"/games/{game.pk}/log").json()
    assert log["complete"] is False
    assert [log[key] for key in ("seed", "seed_text", "seeds", "seeds_text")] == [None] * 4


# -- chosen seeds ----------------------------------------------------------------------


@pytest.mark.parametrize("seed", [MAX_EXACT + 1, OLD_SEED, -1])
def test_a_chosen_seed_outside_0_to_2_to_the_53_minus_1_is_refused(staff, seed):
    refused = staff.post("/games", {"max_players": 2, "seed": seed})
    error = assert_error(refused, 400, "invalid_request")
    assert list(error["details"]["fields"]) == ["seed"]
    assert Game.objects.count() == 0


def test_the_largest_seed_a_client_may_choose_comes_back_exactly(staff, guest):
    created = staff.post("/games", {"max_players": 2, "target_score": 0, "seed": MAX_EXACT})
    assert created.status_code == 201, created.json()
    assert created.json()["deal_algorithm"] == "mt19937/53"
    game_id = created.json()["id"]
    guest.post(f"/games/{game_id}/join")
    staff.post(f"/games/{game_id}/start")
    play_out(reload(game_id), {0: staff, 1: guest})
    log = staff.get(f"/games/{game_id}/log").json()
    assert (log["seed"], log["seed_text"]) == (MAX_EXACT, str(MAX_EXACT))


def test_a_game_among_bots_with_a_seed_beyond_2_to_the_53_is_refused(host):
    with pytest.raises(InvalidRequest):
        services.bot_match_start(host=host.player, strategies=["random", "random"], seed=OLD_SEED)
    assert Game.objects.count() == 0
