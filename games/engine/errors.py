"""Engine errors. Every rejection leaves the state exactly as it was.

`MalformedMove` means the move could never be valid in any game (wrong shape, unknown
action, unknown card id); `IllegalMove` and its subclasses mean it is well formed but
this state does not allow it. `code` is the API error code each maps to.
"""

from __future__ import annotations


class EngineError(Exception):
    code = "engine_error"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class MalformedMove(EngineError):
    code = "invalid_request"


class IllegalMove(EngineError):
    code = "illegal_move"


class NotYourTurn(IllegalMove):
    code = "not_your_turn"


class WrongPhase(IllegalMove):
    """The action is not one this phase of the game accepts (e.g. a play while a
    challenge decision is pending, or any move once the game is over)."""

    code = "wrong_phase"


class InvalidConfig(EngineError):
    code = "invalid_request"
