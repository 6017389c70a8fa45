"""Exact replay: re-run a game's complete log through the engine from its seed.

The log holds what every move caused, not the moves themselves, yet each move is
plain from the first event it caused: ``card_played`` names the card, its colour,
target and UNO call; ``cards_drawn`` for a ``draw`` (or a stack drawn) is a draw,
``turn_passed`` a pass, ``color_chosen`` a colour choice, ``uno_called`` a call,
``uno_caught`` a catch (``by`` whom), ``challenged`` a challenge, a Wild Draw Four's
penalty with no challenge an accept, and ``turn_timed_out`` the default action.
`replay` applies each move with the validating `apply` and checks that the engine
caused exactly the logged events, in order, with the same data. Events that change
no table (the vocabulary's seat events: who joined, left, or handed a seat to a bot;
pauses and ends) are skipped.

Anyone holding a finished game's complete log (``GET /games/{id}/log``) can run
this and get the stored game back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .cards import COLOR_BY_NAME, IS_WILD
from .errors import EngineError
from .events import Event
from .moves import ACCEPT, CALL_UNO, CATCH_UNO, CHALLENGE, CHOOSE_COLOR, DRAW, PASS, Move
from .rng import SEED_BITS
from .rules import apply, apply_timeout, clear_timeouts, start_game
from .state import GameConfig, GameState
from .vocabulary import SEAT_EVENTS, EventType

# A player taking back their seat from a bot: their run of timeouts starts afresh.
SEAT_RESUMED: Final[EventType] = "seat_resumed"


@dataclass(frozen=True, slots=True)
class LoggedEvent:
    """One entry of a complete log, as stored: card ids, nothing hidden (whoever
    reads a log from storage checks that its types are known)."""

    seq: int
    type: EventType
    seat: int | None
    round: int | None
    data: dict[str, Any]


class ReplayMismatch(Exception):
    """The log is not what the engine makes of it, first at `seq`."""

    def __init__(self, seq: int, reason: str) -> None:
        super().__init__(f"seq {seq}: {reason}")
        self.seq = seq
        self.reason = reason


# Called with each logged event's seq and the table right after it.
Observer = Callable[[int, GameState], None]


class _Checked(list[Event]):
    """The events of one move, each checked against the log as the engine adds it.

    The engine changes the cards before it records what happened, so the table at
    the moment an event is added shows the cards after that event; whose turn it is
    and what is pending are settled only at the end of the move. `tables` keeps a
    copy per event for `finish` to complete and show.
    """

    def __init__(self, logged: Sequence[LoggedEvent], start: int, observe: Observer | None) -> None:
        super().__init__()
        self.logged = logged
        self.start = start
        self.observe = observe
        self.state: GameState | None = None
        self.tables: list[tuple[int, GameState]] = []

    def append(self, event: Event) -> None:
        index = self.start + len(self)
        if index >= len(self.logged):
            seq = self.logged[-1].seq + 1 if self.logged else 1
            raise ReplayMismatch(seq, f"the engine made {event.type!r}, the log has ended")
        logged = self.logged[index]
        why = _same(event, logged)
        if why is not None:
            raise ReplayMismatch(logged.seq, why)
        super().append(event)
        if self.observe is not None and self.state is not None:
            self.tables.append((logged.seq, self.state.copy()))

    def finish(self) -> None:
        """Show `observe` the table after each event of the finished move, with the
        turn and the pending decision as the move left them."""
        final = self.state
        if self.observe is None or final is None:
            return
        for seq, table in self.tables:
            table.current = final.current
            table.pending = final.pending
            table.uno_owed = final.uno_owed
            self.observe(seq, table)

    def extend(self, events: Iterable[Event]) -> None:
        for event in events:
            self.append(event)

    # `log += events` checks as it extends; list's signature returns the list type
    # itself, which this subclass's return type cannot match exactly.
    def __iadd__(self, events: Iterable[Event]) -> _Checked:  # type: ignore[override,misc]
        self.extend(events)
        return self


def _plain(value: Any) -> Any:
    """`value` as it comes back from JSON storage (tuples as lists, and so on)."""
    return json.loads(json.dumps(value))


def _same(made: Event, logged: LoggedEvent) -> str | None:
    """Why `made` is not `logged`, or None when they are the same event."""
    if made.type != logged.type:
        return f"the engine made {made.type!r}, the log has {logged.type!r}"
    if made.seat != logged.seat:
        return f"{made.type} is about seat {made.seat}, the log says seat {logged.seat}"
    if made.round != logged.round:
        return f"{made.type} is in round {made.round}, the log says {logged.round}"
    data = _plain(made.data)
    if data != logged.data:
        return f"{made.type} data is {data}, the log has {logged.data}"
    return None


def move_of(event: LoggedEvent, state: GameState) -> tuple[int, Move] | None:
    """The (seat, move) that caused `event`, the first event of a move; None when
    `event` cannot start one."""
    data = event.data
    seat = event.seat
    kind = event.type
    if kind == "card_played" and seat is not None:
        card = data.get("card")
        if not isinstance(card, int) or not 0 <= card < len(IS_WILD):
            return None
        color = COLOR_BY_NAME.get(str(data.get("color"))) if IS_WILD[card] else None
        target = data.get("target")
        return seat, Move(
            "play",
            card=card,
            color=color,
            target=target if isinstance(target, int) else None,
            uno=data.get("uno") is True,
        )
    if kind == "cards_drawn" and seat is not None:
        pending = state.pending
        if pending is not None and pending.type == "challenge":
            return seat, ACCEPT
        return seat, DRAW
    if kind == "turn_passed" and seat is not None:
        return seat, PASS
    if kind == "color_chosen" and seat is not None:
        color = COLOR_BY_NAME.get(str(data.get("color")))
        return None if color is None else (seat, CHOOSE_COLOR[color])
    if kind == "uno_called" and seat is not None:
        return seat, CALL_UNO
    if kind == "uno_caught" and seat is not None:
        by = data.get("by")
        return None if not isinstance(by, int) else (by, CATCH_UNO[seat])
    if kind == "challenged":
        by = data.get("by")
        return None if not isinstance(by, int) else (by, CHALLENGE)
    return None


def replay(
    config: GameConfig,
    seed: int | str,
    log: Iterable[LoggedEvent],
    *,
    seed_bits: int = SEED_BITS,
    client_seeds: Sequence[str] = (),
    until: int | None = None,
    observe: Observer | None = None,
) -> GameState | None:
    """The table the log leads to, re-made by the engine from `seed` (with its round
    seeds `seed_bits` wide, or with `client_seeds` for a hex server seed); None when the
    log ends before the game started.

    Stops before the first move that starts after event `until`. Raises
    `ReplayMismatch` at the first event the engine does not make exactly so, or
    when the engine would make more than the log holds. `observe` sees the table
    after every logged event the engine made, in order, each its own copy: the cards
    as that event left them, whose turn it is as its whole move left it.
    """
    logged = [e for e in log if e.type not in SEAT_EVENTS]
    position = 0
    state: GameState | None = None
    while position < len(logged):
        first = logged[position]
        if until is not None and first.seq > until:
            break
        if first.type == SEAT_RESUMED:
            _resume_logged(state, first, observe)
            position += 1
            continue
        made = _Checked(logged, position, observe)
        if state is None:
            if first.type != "game_started":
                raise ReplayMismatch(first.seq, f"the log starts with {first.type!r}")
            state = made.state = GameState(
                config, seed, seed_bits=seed_bits, client_seeds=client_seeds
            )
            start_game(state, made)
        else:
            made.state = state
            _apply_logged(state, first, made)
        made.finish()
        position += len(made)
    return state


def _resume_logged(state: GameState | None, event: LoggedEvent, observe: Observer | None) -> None:
    if state is None or event.seat is None:
        raise ReplayMismatch(event.seq, "a seat is resumed in a game that has not started")
    try:
        clear_timeouts(state, event.seat)
    except ValueError as error:
        raise ReplayMismatch(event.seq, str(error)) from None
    if observe is not None:
        observe(event.seq, state.copy())


def _apply_logged(state: GameState, first: LoggedEvent, made: _Checked) -> None:
    """Apply the move (or timeout) that `first` starts, through the validating apply."""
    try:
        if first.type == "turn_timed_out":
            if first.seat != state.to_act:
                raise ReplayMismatch(first.seq, f"seat {first.seat} is not to act")
            apply_timeout(state, into=made)
            return
        found = move_of(first, state)
        if found is None:
            raise ReplayMismatch(first.seq, f"no move starts with {first.type!r}")
        seat, move = found
        apply(state, seat, move, into=made)
    except EngineError as error:
        raise ReplayMismatch(first.seq, f"illegal here: {error.reason}") from None
