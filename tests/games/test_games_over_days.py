"""A game played over days: turns of three days, the clock moved by the test, and
the sweeper run as beat runs it. No countdown task is sent for a deadline that far
away (docs/design.md, Timers), so each timeout is the sweeper's: it must land once,
at its deadline and not before, turn after turn.

`Table` walks a game through its turns on the moved clock; a check that has to
happen at given moments of a turn (a reminder) adds them to `sit_out_turn`'s
sweeps and looks at the game with `on_sweep`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from typing import Any

import pytest
import time_machine

from games import dispatch, tasks
from games.engine import TIMEOUTS_BEFORE_BOT, GameState
from games.models import Event, Game, GameStatus, Seat
from tests.factories import Persona, human_to_act_game, reload

pytestmark = pytest.mark.django_db

THREE_DAYS = 259_200  # seconds
# How far apart the sweeps of a turn are while its deadline is far away; near it,
# they come a second apart and less.
SWEEP_EVERY = dt.timedelta(hours=12)
AROUND_THE_DEADLINE = [
    dt.timedelta(minutes=-1),
    dt.timedelta(seconds=-1),
    dt.timedelta(milliseconds=-1),
    dt.timedelta(0),
    dt.timedelta(milliseconds=20),
    dt.timedelta(seconds=2),
    dt.timedelta(minutes=1),
]


class Table:
    """A game whose clock the test moves: every change and sweep happens at `now`,
    which only goes forward."""

    def __init__(self, game: Game, humans: dict[int, Persona]) -> None:
        self.game = game
        self.humans = humans
        self.now = game.updated_at

    def at(self, moment: dt.datetime) -> time_machine.travel:
        assert moment >= self.now, "the clock only goes forward"
        self.now = moment
        return time_machine.travel(moment, tick=False)

    def sweep(self, moment: dt.datetime) -> dict[str, int]:
        """The sweep beat sends, run at `moment` as the worker runs it."""
        with self.at(moment):
            return tasks.sweep_overdue()

    def timeouts(self) -> list[Event]:
        return list(Event.objects.filter(game=self.game, type="turn_timed_out").order_by("seq"))

    def to_act(self) -> int | None:
        return GameState.from_snapshot(reload(self.game).state).to_act

    def sit_out_turn(
        self,
        *,
        also_at: Iterable[dt.timedelta] = (),
        on_sweep: Callable[[dt.datetime, Game], None] | None = None,
    ) -> Event:
        """Let the human to act miss their turn: sweep every `SWEEP_EVERY` of it and
        around its deadline (and `also_at`, from the turn's start), and return the one
        timeout the sweeps applied, at the deadline and not before."""
        game = reload(self.game)
        seat, deadline, began = self.to_act(), game.turn_deadline, self.now
        assert seat is not None
        assert deadline is not None
        turn_came = Event.objects.filter(game=game).order_by("-seq").first()
        assert turn_came is not None
        assert deadline - turn_came.at == dt.timedelta(seconds=THREE_DAYS)
        far = [began + SWEEP_EVERY * n for n in range(1, 6) if began + SWEEP_EVERY * n < deadline]
        moments = sorted(
            {
                *far,
                *(deadline + offset for offset in AROUND_THE_DEADLINE),
                *(began + offset for offset in also_at),
            }
        )
        before = len(self.timeouts())
        applied_at = []
        for moment in moments:
            swept = self.sweep(moment)
            if swept["timeouts"]:
                applied_at.append(moment)
            if on_sweep is not None:
                on_sweep(moment, reload(self.game))
        assert applied_at == [deadline], "the timeout fires once, when its deadline passes"
        (timeout,) = self.timeouts()[before:]
        assert (timeout.seat, timeout.at) == (seat, deadline)
        return timeout

    def move_after(self, wait: dt.timedelta) -> None:
        """The human to act comes back `wait` into their turn and moves, through the
        API (a play if they have one, else what comes first), until the turn is
        another seat's."""
        with self.at(self.now + wait):
            while (seat := self.to_act()) in self.humans:
                persona = self.humans[seat]
                view = persona.get(f"/games/{self.game.pk}").json()
                moves = [
                    m
                    for m in view["you"]["legal_moves"]
                    if m["action"] not in ("catch_uno", "call_uno")
                ]
                move = next((m for m in moves if m["action"] == "play"), moves[0])
                answer = persona.move(self.game.pk, view["version"], **move)
                assert answer.status_code == 200, answer.json()


def test_each_three_day_turn_times_out_once_at_its_deadline_until_a_bot_takes_the_seat(
    host: Persona, guest: Persona, sent_tasks: list[Any]
) -> None:
    """The host never moves; the guest moves a day into each of their turns."""
    game = human_to_act_game(host, guest, turn_timeout=THREE_DAYS)
    table = Table(game, humans={1: guest})
    for run in range(1, TIMEOUTS_BEFORE_BOT + 1):
        assert table.to_act() == 0
        timeout = table.sit_out_turn()
        assert timeout.data == {"timeouts": run}
        if run < TIMEOUTS_BEFORE_BOT:
            assert table.to_act() == 1
            table.move_after(dt.timedelta(days=1))
    taken = Event.objects.get(game=game, type="seat_taken_by_bot")
    assert (taken.seat, taken.at) == (0, table.timeouts()[-1].at)
    assert reload(game).seating[0]["bot"] == "greedy"
    assert Seat.objects.get(game=game, seat=0).timed_out
    # The guest, who moved each time, never timed out, though sweeps ran past the
    # deadlines their moves cancelled.
    assert [t.seat for t in table.timeouts()] == [0] * TIMEOUTS_BEFORE_BOT
    assert reload(game).status == GameStatus.PLAYING
    # No countdown task was ever held for a deadline days away.
    assert not [t for t in sent_tasks if t.name == dispatch.TURN_TIMEOUT]


def test_a_move_before_the_deadline_leaves_nothing_for_the_sweeper(
    host: Persona, guest: Persona
) -> None:
    game = human_to_act_game(host, guest, turn_timeout=THREE_DAYS)
    table = Table(game, humans={0: host})
    deadline = reload(game).turn_deadline
    assert deadline is not None
    table.move_after(dt.timedelta(days=2, hours=23, minutes=59))
    for moment in (deadline, deadline + dt.timedelta(seconds=2), deadline + dt.timedelta(days=1)):
        assert table.sweep(moment)["timeouts"] == 0
    assert table.timeouts() == []


def test_each_three_day_turn_is_reminded_once_with_a_quarter_left_and_times_out_once(
    host: Persona, guest: Persona, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With notifications on: the host, who never moves, is reminded once in each of
    their turns, 54 hours in (18 left); the guest, who moves a day in, never is."""
    from players import push

    reminded: list[tuple[dt.datetime, push.Notification]] = []
    monkeypatch.setattr(push, "enabled", lambda: True)
    monkeypatch.setattr(push, "deliver_on_commit", lambda note: reminded.append((now(), note)))
    game = human_to_act_game(host, guest, turn_timeout=THREE_DAYS)
    table = Table(game, humans={1: guest})

    def now() -> dt.datetime:
        return table.now

    due = dt.timedelta(hours=54)
    around_the_reminder = [due - dt.timedelta(seconds=1), due, due + dt.timedelta(seconds=1)]
    turns_began = []
    for run in range(1, TIMEOUTS_BEFORE_BOT + 1):
        turns_began.append(table.now)
        table.sit_out_turn(also_at=[*around_the_reminder, due + dt.timedelta(hours=1)])
        if run < TIMEOUTS_BEFORE_BOT:
            table.move_after(dt.timedelta(days=1))
    assert [at for at, _ in reminded] == [began + due for began in turns_began]
    assert {(n.kind, n.player_id, n.seat) for _, n in reminded} == {
        ("your_turn", str(host.player.pk), 0)
    }
    assert all(n.extra == {"reminder": True} for _, n in reminded)
    assert [n.text for _, n in reminded] == ["18 hours left to play your turn"] * 3
    assert [t.seat for t in table.timeouts()] == [0] * TIMEOUTS_BEFORE_BOT
