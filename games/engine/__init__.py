"""The UNO rules engine: pure Python, no Django, deterministic from a seed.

Shaped like python-chess: small value types (`Card`, `Move`, `Event`), a mutable
`GameState`, `legal_moves(state, seat)` and `apply(state, seat, move)` returning the
events it caused, with `MalformedMove` and `IllegalMove` kept distinct.
"""

from . import fair
from .cards import CARDS, DECK_SIZE, Card, card_json
from .errors import (
    EngineError,
    IllegalMove,
    InvalidConfig,
    MalformedMove,
    NotYourTurn,
    WrongPhase,
)
from .events import Event, render
from .moves import Move, parse_move
from .rng import LEGACY_SEED_BITS, SEED_BITS, round_seed
from .rules import (
    TIMEOUTS_BEFORE_BOT,
    apply,
    apply_timeout,
    can_draw,
    clear_timeouts,
    is_legal,
    is_playable,
    legal_moves,
    new_game,
    push,
)
from .scoring import hand_points
from .state import GameConfig, GameState, Pending, Rules
from .views import PendingView, PlayerView, player_view, seat_view, table_view
from .vocabulary import EventType

__all__ = [
    "CARDS",
    "DECK_SIZE",
    "LEGACY_SEED_BITS",
    "SEED_BITS",
    "TIMEOUTS_BEFORE_BOT",
    "Card",
    "EngineError",
    "Event",
    "EventType",
    "GameConfig",
    "GameState",
    "IllegalMove",
    "InvalidConfig",
    "MalformedMove",
    "Move",
    "NotYourTurn",
    "Pending",
    "PendingView",
    "PlayerView",
    "Rules",
    "WrongPhase",
    "apply",
    "apply_timeout",
    "can_draw",
    "card_json",
    "clear_timeouts",
    "fair",
    "hand_points",
    "is_legal",
    "is_playable",
    "legal_moves",
    "new_game",
    "parse_move",
    "player_view",
    "push",
    "render",
    "round_seed",
    "seat_view",
    "table_view",
]
