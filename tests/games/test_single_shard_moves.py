"""Every statement of a move names its game: were the game-keyed tables distributed by
game id (Citus; docs/operations.md, "Sizing for a million players"), a move would be a
single-shard transaction.

The rule checked: a statement that touches a game-keyed table (`GAME_KEYED`: every
table with the game's id as its key or a column of it) names that game's id, in
its WHERE clause (``id`` of the game, ``game_id`` of the others) or among the values
it inserts; the router sends it to that game's shard. Statements on other tables are
not checked: the players' rows (lifetime totals as a round or the game ends) and
the ratings (locked and moved as a rated game ends) are distributed by player, or
replicated as reference tables, so a game's end is a multi-shard transaction once
per game, while every other move stays on one shard.

The one statement known to break the rule is the repeat limit's count in a rated
game's ending move (`games.ratings.writes.repeated`: the pairs of its humans, across
games); the last test pins it as the only one, so that a new offender fails here, and
its fix shows as that test failing.

Played through the services, as the move endpoint, the bot task and the timer task
call them, inside the test's transaction.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services
from games.engine import GameState, Move, Pending, legal_moves
from games.engine.position import build_state
from games.models import Game
from players.models import Rating
from tests.factories import (
    Persona,
    finish_game,
    human_to_act_game,
    put_state,
    reload,
    seat_table,
    start_game,
)

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

# Every table keyed by a game: `games.models` and what refers to a game there.
GAME_KEYED = (
    "games_game",
    "games_seat",
    "games_event",
    "games_result",
    "games_ratingannulment",
    "games_ratedpair",
)
TABLE = re.compile(r'\b(?:FROM|JOIN|UPDATE|INTO)\s+"?(\w+)"?', re.IGNORECASE)
WHERE = re.compile(r"\bWHERE\b", re.IGNORECASE)
# Savepoints and their like name no table.
NO_TABLE = re.compile(r"^\s*(SAVEPOINT|RELEASE|ROLLBACK|BEGIN|COMMIT)\b", re.IGNORECASE)


def names_the_game(sql: str, game_id: uuid.UUID) -> bool:
    """Whether `sql` routes by `game_id`: an INSERT carries it among its values,
    anything else in its WHERE clause (an UPDATE's notification names the game in
    its SET: that does not count)."""
    forms = (str(game_id), game_id.hex)
    if sql.lstrip().upper().startswith("INSERT"):
        return any(form in sql for form in forms)
    clause = WHERE.split(sql, maxsplit=1)
    return len(clause) == 2 and any(form in clause[1] for form in forms)


def offenders(statements: list[str], game_id: uuid.UUID) -> list[str]:
    """The statements that touch a game-keyed table without naming `game_id`."""
    found = []
    for sql in statements:
        if NO_TABLE.match(sql):
            continue
        tables = {name.lower() for name in TABLE.findall(sql)}
        if tables & set(GAME_KEYED) and not names_the_game(sql, game_id):
            found.append(sql)
    return found


class Moves:
    """The statements of each move made through `run`, and the tables they touched."""

    def __init__(self, game_id: uuid.UUID) -> None:
        self.game_id = game_id
        self.statements: list[str] = []
        self.moves = 0

    def run(self, service: Callable[..., Any], **arguments: Any) -> Any:
        """Call `service` with `arguments`, keeping its statements."""
        with CaptureQueriesContext(connection) as captured:
            result = service(**arguments)
        self.statements += [query["sql"] for query in captured.captured_queries]
        self.moves += 1
        return result

    def tables(self) -> set[str]:
        return {name.lower() for sql in self.statements for name in TABLE.findall(sql)}

    def assert_single_shard(self) -> None:
        bad = offenders(self.statements, self.game_id)
        listing = "\n\n".join(f"{i}. {sql[:600]}" for i, sql in enumerate(bad, 1))
        assert not bad, (
            f"{len(bad)} of {len(self.statements)} statements of {self.moves} moves touch "
            f"a game-keyed table without naming game {self.game_id}:\n\n{listing}"
        )


def human_move(state: GameState, seat: int) -> Move:
    """A seated human's move: their first play if they have one, else their first
    legal move (a draw, a pass, a colour, a challenge decision)."""
    moves = legal_moves(state, seat)
    return next((m for m in moves if m.action == "play"), moves[0])


def test_every_statement_of_a_game_played_to_its_rated_end_names_the_game(
    host: Persona, guest: Persona
) -> None:
    game = start_game(host, guest, "expert", seed=11)
    humans = {0: host, 1: guest}
    moves = Moves(game.pk)
    for _ in range(2000):
        game = reload(game)
        if game.status != "playing":
            break
        if moves.run(services.bot_act, game_id=game.pk, version=game.version):
            continue
        state = GameState.from_snapshot(game.state)
        seat = state.to_act
        assert seat in humans, f"seat {seat} is to act and is no human's"
        moves.run(
            services.move_apply,
            game_id=game.pk,
            player=humans[seat].player,
            version=game.version,
            move=human_move(state, seat),
        )

    assert game.status == "finished"
    # Its end was rated: results and ratings were written in the ending move.
    assert {"games_game", "games_event", "games_result", "players_rating"} <= moves.tables()
    # The expert bot read the round's history from the log.
    assert any(sql.startswith("SELECT") and '"games_event"' in sql for sql in moves.statements)
    moves.assert_single_shard()


def test_a_challenge_decision_names_the_game(host: Persona, guest: Persona) -> None:
    game = start_game(host, guest, seed=3)
    state = build_state(
        [["R1", "G3"], ["B4", "B5", "Y6"]], top="W+4", discard=["R5"], color="blue", current=1
    )
    state.pending = Pending("challenge", 1, amount=4, accused=0, guilty=True)
    version = put_state(game, state).version
    moves = Moves(game.pk)

    outcome = moves.run(
        services.move_apply,
        game_id=game.pk,
        player=guest.player,
        version=version,
        move=Move("challenge"),
    )

    assert outcome.events[0].type == "challenged"
    moves.assert_single_shard()


def test_turn_timeouts_that_hand_both_seats_to_bots_name_the_game(
    host: Persona, guest: Persona
) -> None:
    game = human_to_act_game(host, guest, turn_timeout=30)
    moves = Moves(game.pk)
    for _ in range(6):  # three in a row each: both seats go to bots, the game pauses
        Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now())
        version = reload(game).version
        assert moves.run(services.turn_timeout_apply, game_id=game.pk, version=version)

    game = reload(game)
    assert [entry["bot"] for entry in game.seating] == ["greedy", "greedy"]
    assert game.paused_until is not None
    moves.run(services.seat_resume, game_id=game.pk, player=host.player)

    assert reload(game).paused_until is None
    assert "games_seat" in moves.tables()
    moves.assert_single_shard()


def test_leaving_a_waiting_or_a_running_game_names_the_game(
    host: Persona, guest: Persona, outsider: Persona
) -> None:
    waiting = seat_table(host, guest, outsider, max_players=4)
    left = Moves(waiting.pk)
    left.run(services.game_leave, game_id=waiting.pk, player=guest.player)
    assert [entry["player"]["name"] for entry in reload(waiting).seating] == ["Host", "Outsider"]
    left.assert_single_shard()

    running = start_game(host, guest, seed=5)
    left = Moves(running.pk)
    left.run(services.game_leave, game_id=running.pk, player=guest.player)
    assert reload(running).seating[1]["bot"] == "greedy"
    left.assert_single_shard()


def test_the_repeat_limits_count_is_the_one_statement_of_a_move_across_games(
    host: Persona, guest: Persona
) -> None:
    # Both have played enough rated games for the repeat limit to be counted.
    for persona in (host, guest):
        Rating.objects.create(
            key=str(persona.player.pk), player=persona.player, mu=25, sigma=8, ordinal=1, games=5
        )
    game = start_game(host, guest, seed=7)
    moves = Moves(game.pk)

    game = moves.run(finish_game, game=game, winner=0, by=host)

    assert game.status == "finished"
    bad = offenders(moves.statements, game.pk)
    assert len(bad) == 1, bad
    assert re.search(r'FROM "games_ratedpair"\s+WHERE low IN ', bad[0]), bad[0]
