"""Engine rejections as service errors: the engine knows no HTTP, so every place
that calls it converts what it raises through `from_engine`, and the service's
error handling never has to know the engine."""

from __future__ import annotations

from typing import Any, Final

from django.urls import reverse

from games.engine import (
    EngineError,
    IllegalMove,
    InvalidConfig,
    MalformedMove,
    NotYourTurn,
    WrongPhase,
)
from unoservice.errors import (
    IllegalMoveError,
    InvalidRequest,
    NotYourTurnError,
    ServiceError,
    WrongPhaseError,
)


class SeatTakenOver(ServiceError):
    """A play action from a player whose seat a bot holds after their timeouts: the
    seat is theirs to take back (`POST .../resume`), so the answer says how, where a
    plain "not seated" would leave them guessing."""

    status, code = 409, "seat_taken_over"

    def __init__(self, game_id: Any, seat: int) -> None:
        resume = reverse("game-resume", args=[game_id])
        super().__init__(
            f"a bot holds your seat {seat} after your timeouts: POST {resume} to take it back",
            details={"seat": seat, "resume": resume},
        )


# The one mapping. An engine error without its own entry takes its nearest
# ancestor's, so a new subclass of `IllegalMove` is an `illegal_move` until it is
# given a code of its own.
ENGINE_ERRORS: Final[dict[type[EngineError], type[ServiceError]]] = {
    EngineError: InvalidRequest,
    MalformedMove: InvalidRequest,
    InvalidConfig: InvalidRequest,
    IllegalMove: IllegalMoveError,
    NotYourTurn: NotYourTurnError,
    WrongPhase: WrongPhaseError,
}


def from_engine(error: EngineError) -> ServiceError:
    """The service error for an engine rejection, with the engine's reason."""
    for cls in type(error).__mro__:
        service_error = ENGINE_ERRORS.get(cls)
        if service_error is not None:
            return service_error(error.reason)
    raise TypeError(f"not an engine error: {error!r}")
