"""Replaying stored games: the log read back from the database and re-run by the
engine (`games.engine.replay`), the table after any event, and verification that
the stored game is exactly what its log and seed make."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from games.engine import (
    LEGACY_SEED_BITS,
    SEED_BITS,
    GameConfig,
    GameState,
    Rules,
    fair,
    round_seed,
)
from games.engine.replay import LoggedEvent, ReplayMismatch, replay
from games.engine.views import table_view
from games.engine.vocabulary import is_event_type
from games.models import Event, Game
from unoservice.fields import MAX_EXACT_INTEGER

__all__ = [
    "ReplayMismatch",
    "Table",
    "client_seeds_of",
    "config_of",
    "round_seeds",
    "seed_bits_of",
    "seeds_json",
    "table_after",
    "tables",
    "verify",
]


def config_of(game: Game) -> GameConfig:
    """The engine's configuration of a started game (its seats are fixed at the start)."""
    return GameConfig(
        len(game.seating),
        game.target_score,
        Rules.from_json(game.rules),
        game.mode,  # type: ignore[arg-type]
        game.partners_see_hands,
        game.deck,  # type: ignore[arg-type]
        game.shuffle_hands_last_card,  # type: ignore[arg-type]
        game.wild_customizable,  # type: ignore[arg-type]
    )


def seed_bits_of(game: Game) -> int:
    """How wide the round seeds of a game are: 53 bits since seeds became exact in
    every JSON parser (a game not started yet is dealt so), 63 for games dealt before
    (their snapshot has no `seed_bits`)."""
    if game.state is None:
        return SEED_BITS
    return int(game.state.get("seed_bits", LEGACY_SEED_BITS))


def client_seeds_of(game: Game) -> list[str]:
    """The client seeds a started game with a server seed was dealt with, by seat."""
    return list(game.state.get("client_seeds", [])) if game.server_seed and game.state else []


def round_seeds(game: Game) -> list[int] | list[str]:
    """The seed of every round dealt so far: each deal and reshuffle comes from it (hex
    for a game with a server seed)."""
    rounds = game.state["round"] if game.state is not None else 0
    if game.server_seed:
        seeds = client_seeds_of(game)
        return [fair.round_seed(game.server_seed, seeds, n) for n in range(1, rounds + 1)]
    bits = seed_bits_of(game)
    return [round_seed(game.seed, number, bits) for number in range(1, rounds + 1)]


def seeds_json(game: Game, *, revealed: bool) -> dict[str, Any]:
    """The integer seeds of the log's answer (docs/api.md, Log and replay): as numbers
    where every JSON parser reads them exactly, as decimal text always; all null until
    they are `revealed`, and for a game with a server seed (its log's `deal` has
    them). A game dealt with 63-bit seeds has its `seed` or `seeds` null."""
    if not revealed or game.server_seed:
        return dict.fromkeys(("seed", "seed_text", "seeds", "seeds_text"))
    seeds = [int(seed) for seed in round_seeds(game)]
    return {
        "seed": game.seed if abs(game.seed) <= MAX_EXACT_INTEGER else None,
        "seed_text": str(game.seed),
        "seeds": seeds if all(seed <= MAX_EXACT_INTEGER for seed in seeds) else None,
        "seeds_text": [str(s) for s in seeds],
    }


def logged(game: Game) -> Iterator[LoggedEvent]:
    """The stored log, in order; an event of a type the vocabulary does not know is a
    log that cannot be replayed."""
    rows = Event.objects.filter(game=game).order_by("seq")
    for seq, type_, seat, round_, data in rows.values_list("seq", "type", "seat", "round", "data"):
        if not is_event_type(type_):
            raise ReplayMismatch(seq, f"no event has the type {type_!r}")
        yield LoggedEvent(seq, type_, seat, round_, data)


def _replayed(game: Game, **options: Any) -> GameState | None:
    if game.state is None:  # never started: only seats in the log
        return None
    return replay(
        config_of(game),
        game.server_seed or game.seed,
        logged(game),
        seed_bits=seed_bits_of(game),
        client_seeds=client_seeds_of(game),
        **options,
    )


def verify(game: Game) -> None:
    """Raise `ReplayMismatch` unless the log is gap-free, the engine re-makes every
    event of it from the seed, and ends on the stored table."""
    expected = 1
    for event in logged(game):
        if event.seq != expected:
            raise ReplayMismatch(expected, f"the log jumps from seq {expected - 1} to {event.seq}")
        expected += 1
    if expected - 1 != game.last_seq:
        raise ReplayMismatch(expected, f"the game says its last seq is {game.last_seq}")
    state = _replayed(game)
    if state is None:
        return
    if json.loads(json.dumps(state.to_snapshot())) != game.state:
        raise ReplayMismatch(game.last_seq, "the replayed table differs from the stored one")


@dataclass(frozen=True)
class Table:
    """The table right after one event."""

    seq: int
    state: GameState | None  # None before the first deal

    def to_json(self) -> dict[str, Any]:
        """docs/api.md's replay shape: every card where it lies."""
        if self.state is None:
            return {
                "seq": self.seq,
                "round": None,
                "hands": {},
                "draw_pile": [],
                "discard_pile": [],
                "current_seat": None,
                "current_color": None,
                "direction": None,
                "pending": None,
                "scores": [],
            }
        return {"seq": self.seq, **table_view(self.state)}


def tables(game: Game, *, until: int | None = None) -> list[Table]:
    """The table after every event of the log (up to `until`), in seq order.

    An event that changes no table (a seat taken, a player gone) shows the table as
    it was.
    """
    after: dict[int, GameState | None] = {}

    def keep(seq: int, state: GameState) -> None:
        # The engine shows `game_started` the table before its move deals round 1
        # (round 0, no cards): that is the table before the first deal, not a round.
        after[seq] = state if state.round > 0 else None

    _replayed(game, until=until, observe=keep)
    shown: list[Table] = []
    current: GameState | None = None
    last = game.last_seq if until is None else min(until, game.last_seq)
    for seq in range(1, last + 1):
        current = after.get(seq, current)
        shown.append(Table(seq, current))
    return shown


def table_after(game: Game, seq: int) -> Table:
    """The table after event `seq` (1 <= seq <= last_seq)."""
    return tables(game, until=seq)[seq - 1]
