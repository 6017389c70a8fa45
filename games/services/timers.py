"""Bots and timers: the bots' moves, turn timeouts, seats resumed after timeouts,
pauses that run out, games abandoned, and the sweeper that backs up every timer."""

from __future__ import annotations

import datetime as dt
import logging
import random
import time
import uuid
from typing import NamedTuple

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from games import bots, engine, notifications, selectors
from games.engine import TIMEOUTS_BEFORE_BOT, GameState, Move
from games.engine.rng import derive
from games.engine.vocabulary import GameAbandonedData, GameResumedData, SeatResumedData
from games.models import OPEN_STATUSES, Game, GameStatus, Heartbeat
from games.services.common import (
    Outcome,
    _bot_at,
    _lock_game,
    _lock_game_for,
    _lock_when_due,
    _player,
    _round_of,
    _seats,
    _timed_out_seat_of,
)
from games.services.matching import match_bots_fill
from games.services.play import _play, commit_play
from games.services.saving import commit_change
from games.services.seating import _hand_to_bot, _reseat, _without_humans
from players.models import Player
from unoservice import metrics
from unoservice.errors import Forbidden, NotFound, ServiceError, WrongPhaseError

log = logging.getLogger(__name__)


def bot_act(*, game_id: uuid.UUID, version: int) -> Outcome | None:
    """Make the next bot move of the game at `version`, if a bot has one.

    Bots that may act out of turn (catch a forgotten UNO, jump in) go before the
    bot whose turn it is, since its move would close their chance. The bot thinks
    without a lock; then the game row is locked and the move applied only if the
    game is still at `version`. Does nothing (returns None) when the game has moved
    on, is not running, or no bot wants to move.
    """
    try:
        game = selectors.game_by_id(game_id)
    except (NotFound, ValueError, TypeError, ValidationError):
        return None
    if not _bots_may_move(game, version):
        return None
    choice = _bot_choice(game, GameState.from_snapshot(game.state))
    if choice is None:
        return None
    seat, move = choice
    with transaction.atomic():
        game = _lock_game(game_id)
        if not _bots_may_move(game, version):
            return None
        state = GameState.from_snapshot(game.state)
        turn_came = game.updated_at  # the change that gave the bot its move
        try:
            outcome = _play(game, state, seat, move, actor="bot")
        except ServiceError:
            # A bot asked for something the engine refused: a bug in the bot, but the
            # game must go on. The bot to act falls back on its first legal move.
            log.exception("bot at seat %s of game %s chose %s", seat, game.pk, move)
            if seat != state.to_act:
                return None
            fallback = engine.legal_moves(state, seat)[0]
            outcome = _play(game, state, seat, fallback, actor="bot")
        strategy = str(game.seating[seat]["bot"])
        reaction = (game.updated_at - turn_came).total_seconds()
        metrics.BOT_REACTION_SECONDS.labels(strategy).observe(max(reaction, 0.0))
        return outcome


def _bots_may_move(game: Game, version: int) -> bool:
    """A bot moves only in a running game at `version` that is not paused."""
    return (
        game.status == GameStatus.PLAYING and game.version == version and game.paused_until is None
    )


def _bot_choice(game: Game, state: GameState) -> tuple[int, Move] | None:
    """The next bot action of the game at its current version (`bots.next_action`):
    each decision drawn from the game's seed, the version and the seat."""

    def decide(
        strategy: str, view: engine.PlayerView, rng: random.Random, seat: int
    ) -> Move | None:
        started = time.perf_counter()
        try:
            return bots.choose(strategy, view, rng)
        except Exception:
            # A bug in a bot must not stall the table: log it, and let the bot to act
            # make its first legal move instead.
            log.exception("bot %s at seat %s of game %s failed", strategy, seat, game.pk)
            return None
        finally:
            metrics.BOT_DECISION_SECONDS.labels(strategy).observe(time.perf_counter() - started)

    return bots.next_action(
        state,
        [taken["bot"] for taken in game.seating],
        history=lambda: selectors.round_history(game, state.round),
        rng_for=lambda seat: random.Random(derive(game.seed, "bot", game.version, seat)),
        decide=decide,
    )


def turn_timeout_apply(
    *, game_id: uuid.UUID, version: int, skip_locked: bool = False
) -> Outcome | None:
    """Give the human to act the default action once their deadline has passed
    (docs/rules.md); the third timeout in a row hands the seat to a bot.

    Locks the game row (with `skip_locked`, a game locked elsewhere is left for a
    later sweep: whoever holds it is changing it). Does nothing (returns None) when
    the game is not at `version`, not running, or the deadline is not yet due.
    """
    with transaction.atomic():
        due = _lock_when_due(game_id, version, lambda game: game.turn_deadline, skip_locked)
        if due is None:
            return None
        game, now = due
        state = GameState.from_snapshot(game.state)
        seat = state.to_act
        if seat is None or _bot_at(game, seat) is not None:
            return None
        assert game.turn_deadline is not None  # due: it has passed
        lateness = (now - game.turn_deadline).total_seconds()
        engine_events = engine.apply_timeout(state)
        items = list(engine_events)
        fields = []
        if state.timeouts[seat] >= TIMEOUTS_BEFORE_BOT and not state.finished:
            seats = _seats(game)
            items.append(_hand_to_bot(game, seats[seat], state.round, timed_out=True))
            items += _without_humans(game, seats, now)
            fields = ["seating", "paused_until"]
        events = commit_play(
            game, state, engine_events, items, now, turn_changed=True, fields=fields
        )
    metrics.MOVES.labels("timeout", "timer").inc()
    metrics.TIMEOUT_LATENESS_SECONDS.labels("sweep" if skip_locked else "timer").observe(lateness)
    return Outcome(game, events, state)


def seat_resume(*, game_id: uuid.UUID, player: Player) -> Outcome:
    """Give `player` back the seat a bot took over after their timeouts (docs/rules.md);
    their run of timeouts starts again from zero, and a game paused for want of
    humans goes on. Locks the game row."""
    with transaction.atomic():
        game = _lock_game_for(game_id, player)
        seats = _seats(game)
        if not any(s.player_id == player.pk for s in seats):
            raise Forbidden("you are not seated in this game")
        if game.status != GameStatus.PLAYING:
            raise WrongPhaseError(f"the game is {game.status}")
        seat = _timed_out_seat_of(seats, player)
        if seat is None:
            raise WrongPhaseError(
                "no seat of yours is held by a bot after timeouts: only such a seat is resumed"
            )
        seat.bot = None
        seat.timed_out = False
        _reseat(game, seat)
        state = GameState.from_snapshot(game.state)
        engine.clear_timeouts(state, seat.seat)
        now = timezone.now()
        resumed = SeatResumedData(player=_player(player))
        items = [engine.Event("seat_resumed", seat.seat, resumed, state.round)]
        if game.paused_until is not None:
            game.paused_until = None
            items.append(engine.Event("game_resumed", None, GameResumedData(), state.round))
        # Timers are re-armed from scratch: a paused game has none, and the seat to
        # act may have changed hands.
        events = commit_change(game, state, items, now, fields=["seating", "paused_until"])
    return Outcome(game, events, state)


def game_pause_expire(
    *, game_id: uuid.UUID, version: int, skip_locked: bool = False
) -> Outcome | None:
    """Abandon a game paused for want of humans once its pause has run out with
    nobody resuming. Locks the game row (with `skip_locked`, a game locked elsewhere
    is left for a later sweep). Does nothing (returns None) when the game is not at
    `version`, not paused, or the pause has not yet run out."""
    with transaction.atomic():
        due = _lock_when_due(game_id, version, lambda game: game.paused_until, skip_locked)
        if due is None:
            return None
        game, now = due
        return _abandon(game, now, "no player resumed within the pause")


def game_abandon(*, game_id: uuid.UUID, reason: str, by: str | None = None) -> Outcome:
    """End a waiting or running game without a winner, for an operator (`reason`
    is recorded in the `game_abandoned` event, with `by`, the staff member's
    username, when given: staff read it, players never do). Locks the game row."""
    with transaction.atomic():
        game = _lock_game(game_id)
        if game.status not in OPEN_STATUSES:
            raise WrongPhaseError(f"the game is {game.status}")
        return _abandon(game, timezone.now(), reason, by)


def _abandon(game: Game, now: dt.datetime, reason: str, by: str | None = None) -> Outcome:
    metrics.GAMES_ENDED.labels(GameStatus.ABANDONED, "false").inc()
    game.status = GameStatus.ABANDONED
    game.finished_at = now
    game.turn_deadline = game.bot_due_at = game.paused_until = game.reminder_at = None
    abandoned = GameAbandonedData(reason=reason)
    if by is not None:
        abandoned["by"] = by
    item = engine.Event("game_abandoned", None, abandoned, _round_of(game))
    fields = ["status", "finished_at", "turn_deadline", "bot_due_at", "paused_until", "reminder_at"]
    events = commit_change(game, None, [item], now, fields=fields)
    return Outcome(game, events)


class Swept(NamedTuple):
    """What one sweep applied."""

    timeouts: int
    bot_moves: int
    pauses_ended: int
    quick_matches_started: int
    reminders: int


def queue_heartbeat(*, queue: str) -> None:
    """Record that a worker ran a task of `queue` now (beat sends each queue one, and
    /healthz reads when each last ran). Locks only that queue's heartbeat row."""
    Heartbeat.objects.update_or_create(
        name=Heartbeat.QUEUE + queue, defaults={"at": timezone.now()}
    )


def sweep_overdue(*, bot_grace: dt.timedelta) -> Swept:
    """The backstop of the timers: apply every overdue turn timeout, move every bot
    overdue by more than `bot_grace` (its task was lost), abandon every game
    whose pause ran out, and give bots the empty seats of every quick-match game
    whose `bots_at` came, and push the turn reminders that are due
    (`notifications.reminders_send`). Each game is locked with skip_locked in its own
    transaction. First, the sweep's heartbeat is recorded, in a transaction of its
    own that locks only that row."""
    now = timezone.now()
    Heartbeat.objects.update_or_create(name=Heartbeat.SWEEP, defaults={"at": now})
    timeouts = sum(
        turn_timeout_apply(game_id=game_id, version=version, skip_locked=True) is not None
        for game_id, version in selectors.overdue_turns(now)
    )
    moved = sum(
        bot_act(game_id=game_id, version=version) is not None
        for game_id, version in selectors.overdue_bots(now - bot_grace)
    )
    ended = sum(
        game_pause_expire(game_id=game_id, version=version, skip_locked=True) is not None
        for game_id, version in selectors.expired_pauses(now)
    )
    started = sum(
        match_bots_fill(game_id=game_id, version=version, skip_locked=True) is not None
        for game_id, version in selectors.overdue_quick_matches(now)
    )
    reminded = notifications.reminders_send(now)
    return Swept(timeouts, moved, ended, started, reminded)
