"""Bots: pure functions of one seat's view, `choose(view, rng) -> Move | None`.

None means the bot has nothing to do now (it is not its turn and it sees no catch,
call or jump-in worth making). Bots see only a `PlayerView`: other hands are counts,
and the round's events come without other seats' cards.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

from games.bots import expert, greedy, random_bot
from games.engine import Move, PlayerView

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
