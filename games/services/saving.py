"""Saving a change to a locked game, the one way every service does it
(`commit_change`): the snapshot and what follows from it, the events, the row's
new version with its notification, and the tasks the saved game calls for."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from django.conf import settings
from django.db import connection
from django.utils import timezone

from games import dispatch, engine, notifications
from games.engine import GameState
from games.models import Event, Game, GameStatus
from games.services import notify
from games.services.common import _bot_at
from unoservice import fastsql

# A countdown task fires this long after the deadline, so that it never finds the
# deadline a hair in the future and does nothing.
TIMER_SLACK = dt.timedelta(milliseconds=20)
# The furthest ahead a timer's task is ever due (`longest_countdown`).
COUNTDOWN_CAP = dt.timedelta(minutes=30)
# The fields `adopt_state` sets, which a change with a new engine state writes.
STATE_FIELDS = (
    "state",
    "turn_deadline",
    "reminder_at",
    "bot_due_at",
    "status",
    "winner",
    "finished_at",
)


def commit_change(
    game: Game,
    state: GameState | None,
    items: Sequence[engine.Event],
    now: dt.datetime,
    *,
    fields: Sequence[str] = (),
    turn_changed: bool = False,
    seated: Sequence[object] = (),
    actor: int | None = None,
) -> list[Event]:
    """Save a change to the locked game, in the caller's transaction, and return the
    events it appended. With the engine `state` the change leads to (None: the seats
    or the status alone changed), first set what follows from it (`adopt_state`;
    `turn_changed`: another seat or decision is now awaited). Then: `items` inserted
    as events with the next seqs (one INSERT), `fields` (with a state, `STATE_FIELDS`
    before them) written with `last_seq`, `updated_at` and the next version in one
    UPDATE that carries the notification (`update_game_row`; `seated`: players who
    just got a seat), and on commit the tasks the saved game calls for
    (`schedule_tasks`), the pushes to away players among them
    (`notifications.after_change`; `actor`: the seat whose move this is, if one's)."""
    written = list(fields)
    if state is not None:
        adopt_state(game, state, now, turn_changed=turn_changed, new_round=deals_a_new_round(items))
        written = [*STATE_FIELDS, *fields]
    first_seq = game.last_seq + 1
    events = append_events(game, items, now)
    update_game_row(game, written, seated=seated)
    schedule_tasks(game, state, now)
    notifications.after_change(
        game, state, items, turn_changed=turn_changed, first_seq=first_seq, actor=actor
    )
    return events


def adopt_state(
    game: Game, state: GameState, now: dt.datetime, *, turn_changed: bool, new_round: bool = False
) -> None:
    """Set the game's fields that follow from its new engine state (the caller writes
    them): the snapshot, the end of the game, the timers (`new_round`: the change
    ended a round and dealt the next, whose first turn waits out the round break)."""
    game.state = state.to_snapshot()
    _finish_if_over(game, state, now)
    _set_timers(game, state, now, turn_changed=turn_changed, new_round=new_round)


def deals_a_new_round(items: Sequence[engine.Event]) -> bool:
    """Whether these events end a round and deal the next (not the game's first deal)."""
    return any(item.type == "round_started" and (item.round or 0) > 1 for item in items)


def append_events(game: Game, items: Sequence[engine.Event], now: dt.datetime) -> list[Event]:
    """Insert events with the next seqs (the game row is locked, so seqs cannot race).
    Services build theirs as `engine.Event`s too: one typed vocabulary for both."""
    rows = event_rows(game, items, now)
    fastsql.insert_rows(Event, rows)
    return rows


def event_rows(game: Game, items: Sequence[engine.Event], now: dt.datetime) -> list[Event]:
    """The rows of `items`, with the game's next seqs (its `last_seq` moves on); the
    caller inserts them."""
    rows = []
    for offset, item in enumerate(items, start=1):
        rows.append(
            Event(
                game=game,
                seq=game.last_seq + offset,
                round=item.round,
                type=item.type,
                seat=item.seat,
                data=item.data,
                at=now,
            )
        )
    game.last_seq += len(rows)
    return rows


def update_game_row(game: Game, fields: Sequence[str], *, seated: Sequence[object] = ()) -> None:
    """Write `fields` of the locked row, `last_seq` and `updated_at`, and bump its
    version, in one UPDATE (`fastsql`: this runs on every move). On PostgreSQL the
    statement also sends the live streams' notification (games.services.notify), which
    PostgreSQL delivers only if the transaction commits, and one per player in
    `seated` (they just got a seat here: their lobby streams start watching)."""
    game.version += 1
    game.updated_at = timezone.now()
    # Only PostgreSQL has NOTIFY: elsewhere the hub polls for changes.
    notification = (
        notify.expression(game.pk, game.last_seq, seated=seated)
        if connection.vendor == "postgresql"
        else None
    )
    fastsql.update_fields(game, [*fields, "version", "last_seq", "updated_at"], also=notification)


def longest_countdown() -> dt.timedelta:
    """The furthest ahead a timer's task is sent to run: half the broker's visibility
    timeout, and `COUNTDOWN_CAP` at most. A worker holds a task with an ETA
    unacknowledged until it runs; held past the visibility timeout, Redis would
    deliver it again. A later deadline is left to the sweeper, which finds it in the
    game's row (docs/design.md, Timers)."""
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    return min(COUNTDOWN_CAP, dt.timedelta(seconds=visibility / 2))


def schedule_tasks(game: Game, state: GameState | None, now: dt.datetime) -> None:
    """On commit, send the tasks the saved game calls for, each for this version: a
    waiting quick-match game's bots at its `bots_at`; for a running game (with its
    engine `state`), the end of its pause, or its turn timeout and its bots' turn.
    Only those due within `longest_countdown` are sent: the sweeper applies the
    others, and backs up every one."""
    if game.status == GameStatus.WAITING:
        if game.bots_at is not None:
            _send_timer(dispatch.MATCH_BOTS, game, game.bots_at, now)
        return
    if game.status != GameStatus.PLAYING or state is None:
        return
    if game.paused_until is not None:
        _send_timer(dispatch.PAUSE_EXPIRY, game, game.paused_until, now)
        return
    if game.turn_deadline is not None:
        _send_timer(dispatch.TURN_TIMEOUT, game, game.turn_deadline, now)
    # A bot's turn is due one think time after the change, or after a round break.
    think = settings.BOT_THINK_SECONDS
    if game.bot_due_at is not None:
        think = max(think, (game.bot_due_at - now).total_seconds())
    if _bots_may_act(game, state) and think <= longest_countdown().total_seconds():
        dispatch.send_on_commit(
            dispatch.BOT_TURN, game.pk, game.version, countdown=think if think > 0 else None
        )


def _send_timer(name: str, game: Game, due: dt.datetime, now: dt.datetime) -> None:
    """Send `name` for the game's version to run just after `due`, if that is within
    `longest_countdown` of `now`."""
    eta = due + TIMER_SLACK
    if eta - now <= longest_countdown():
        dispatch.send_on_commit(name, game.pk, game.version, eta=eta)


def _finish_if_over(game: Game, state: GameState, now: dt.datetime) -> None:
    if state.finished:
        game.status = GameStatus.FINISHED
        game.winner = state.winner
        game.finished_at = now


def _set_timers(
    game: Game, state: GameState, now: dt.datetime, *, turn_changed: bool, new_round: bool = False
) -> None:
    """Arm the clock of whoever must act now: a human's turn deadline (kept while the
    same decision is pending, so that moves out of turn do not extend it), or a bot's
    due time, one think time away; both `ROUND_BREAK_SECONDS` later for the first turn
    of a `new_round`. A person may move during the break: it only holds back what
    would move without them."""
    running = game.status == GameStatus.PLAYING and game.paused_until is None
    seat = state.to_act if running else None
    pause = dt.timedelta(seconds=settings.ROUND_BREAK_SECONDS if new_round else 0)
    if seat is None:
        game.turn_deadline = game.bot_due_at = game.reminder_at = None
    elif _bot_at(game, seat) is not None:
        game.turn_deadline = game.reminder_at = None
        game.bot_due_at = now + pause + dt.timedelta(seconds=settings.BOT_THINK_SECONDS)
    else:
        game.bot_due_at = None
        if game.turn_timeout is None:
            game.turn_deadline = game.reminder_at = None
        elif turn_changed or game.turn_deadline is None:
            # A new deadline, and the reminder that goes with it (a kept deadline
            # keeps its reminder, or its lack once sent).
            game.turn_deadline = now + pause + dt.timedelta(seconds=game.turn_timeout)
            game.reminder_at = notifications.reminder_due(game)


def _bots_may_act(game: Game, state: GameState) -> bool:
    """Whether a bot must move (its turn) or may (a catch, a call, a jump-in)."""
    to_act = state.to_act
    for seat, entry in enumerate(game.seating):
        if entry["bot"] is not None and (seat == to_act or engine.legal_moves(state, seat)):
            return True
    return False
