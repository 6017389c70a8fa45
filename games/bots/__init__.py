"""Bots: pure functions of one seat's view, `choose(view, rng) -> Move | None`.

None means the bot has nothing to do now (it is not its turn and it sees no catch,
call or jump-in worth making). Bots see only a `PlayerView`: other hands are counts,
and the round's events come without other seats' cards.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final

from games.bots import expert, greedy, random_bot
from games.engine import Event, GameState, Move, PlayerView, legal_moves, player_view

Strategy = Callable[[PlayerView, random.Random], Move | None]

STRATEGIES: Final[dict[str, Strategy]] = {
    "random": random_bot.choose,
    "greedy": greedy.choose,
    "expert": expert.choose,
}


# Strategies that read `PlayerView.history` (what the table has shown of each hand):
# the others decide from the table as it stands, so their callers need not load it.
READS_HISTORY: Final = frozenset({"expert"})


def choose(strategy: str, view: PlayerView, rng: random.Random) -> Move | None:
    return STRATEGIES[strategy](view, rng)


def next_action(
    state: GameState,
    seated: Sequence[str | None],
    *,
    history: Callable[[], Sequence[Event]],
    rng_for: Callable[[int], random.Random],
    decide: Callable[[str, PlayerView, random.Random, int], Move | None] | None = None,
) -> tuple[int, Move] | None:
    """The next bot action at the table, if a bot has one: (seat, move).

    `seated` holds each seat's strategy (None for a human). The bots that may act out
    of turn are asked first, in turn order after the seat to act, and the seat to
    act last; a bot to act that says nothing makes its first legal move, since the
    table must go on. `history` gives the round's events, read only if a strategy
    needs them; `rng_for(seat)` the generator of that seat's decision. `decide`
    replaces `choose` (it also gets the seat), to catch a failing bot, say."""
    to_act = state.to_act
    if to_act is None:
        return None
    players = state.players
    seen: Sequence[Event] | None = None
    strategies = tuple(seated)
    for offset in range(1, players + 1):
        seat = (to_act + offset) % players
        strategy = seated[seat]
        if strategy is None or (seat != to_act and not legal_moves(state, seat)):
            continue
        if seen is None and strategy in READS_HISTORY:
            seen = history()
        view = player_view(state, seat, seen or (), bots=strategies)
        rng = rng_for(seat)
        move = choose(strategy, view, rng) if decide is None else decide(strategy, view, rng, seat)
        if move is None and seat == to_act:
            move = legal_moves(state, seat)[0]
        if move is not None:
            return seat, move
    return None
