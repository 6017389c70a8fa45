"""The random bot: a random playable card, drawing only when nothing is playable, a
random colour, always says UNO, never challenges, never acts out of turn."""

from __future__ import annotations

import random

from games.bots.common import to_act, with_uno
from games.engine import Move, PlayerView
from games.engine.moves import ACCEPT


def choose(view: PlayerView, rng: random.Random) -> Move | None:
    if to_act(view) != view.seat:
        return None
    legal = [m for m in view.legal_moves if m.action not in ("catch_uno", "call_uno")]
    if not legal:
        return None
    if view.pending is not None and view.pending.type == "challenge":
        return ACCEPT
    plays = [m for m in legal if m.action == "play"]
    if plays:
        return with_uno(view, rng.choice(plays))
    return rng.choice(legal)
