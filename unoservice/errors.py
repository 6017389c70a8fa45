"""The service's errors: one hierarchy, each class with its API code and HTTP status.

Plain exceptions, free of any web framework, so that services, tasks and commands
raise them alike; `unoservice.api_errors` renders them over HTTP."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """An error a client can act on. Subclasses fix `status` and `code`."""

    status = 400
    code = "invalid_request"

    def __init__(self, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}


class InvalidRequest(ServiceError):
    status, code = 400, "invalid_request"


class NotAuthenticated(ServiceError):
    status, code = 401, "not_authenticated"


class PlayerDisabled(NotAuthenticated):
    """The token is a disabled player's: refused like an unknown one, but saying why."""

    status, code = 401, "player_disabled"


class Forbidden(ServiceError):
    status, code = 403, "forbidden"


class NotFound(ServiceError):
    status, code = 404, "not_found"


class StaleVersion(ServiceError):
    status, code = 409, "stale_version"

    def __init__(self, current: int) -> None:
        super().__init__(
            f"the game has moved on to version {current}", details={"version": current}
        )


class NotYourTurnError(ServiceError):
    status, code = 409, "not_your_turn"


class WrongPhaseError(ServiceError):
    status, code = 409, "wrong_phase"


class RequestTimeout(ServiceError):
    status, code = 408, "request_timeout"


class GameFull(ServiceError):
    status, code = 409, "game_full"


class TooManyGames(ServiceError):
    status, code = 409, "too_many_games"


class TooManyBots(ServiceError):
    status, code = 409, "too_many_bots"


class IdempotencyKeyInUse(ServiceError):
    status, code = 409, "idempotency_key_in_use"


class IllegalMoveError(ServiceError):
    status, code = 422, "illegal_move"


class IdempotencyKeyReused(ServiceError):
    status, code = 422, "idempotency_key_reused"


class PayloadTooLarge(ServiceError):
    status, code = 413, "payload_too_large"


class UriTooLong(ServiceError):
    status, code = 414, "uri_too_long"


class HeadersTooLarge(ServiceError):
    status, code = 431, "headers_too_large"


class RateLimited(ServiceError):
    status, code = 429, "rate_limited"


class TooManyStreams(ServiceError):
    status, code = 429, "too_many_streams"


class ServiceUnavailable(ServiceError):
    status, code = 503, "service_unavailable"


class InternalError(ServiceError):
    """What went wrong in the service itself: the client can only try again later."""

    status, code = 500, "internal_error"

    def __init__(self, message: str = "internal error") -> None:
        super().__init__(message)


class LogCorrupt(ServiceError):
    """A stored log the engine cannot re-make: the database was edited by hand. Not
    something a request can cause, so the one 5xx that names its reason."""

    status, code = 500, "log_corrupt"
