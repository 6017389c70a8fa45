"""The service's errors: one hierarchy, each class with its API code and HTTP status,
and the one answer each is given (`answer`: status, body, headers).

Plain exceptions, free of any web framework, so that services, tasks and commands
raise them alike; every layer that answers over HTTP (DRF's handler in
`unoservice.api_errors`, the live streams, the server's own refusals, the health
check) sends what `answer` makes of them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class ServiceError(Exception):
    """An error a client can act on. Subclasses fix `status` and `code`."""

    status = 400
    code = "invalid_request"

    def __init__(
        self,
        message: str,
        *,
        details: dict[str, Any] | None = None,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}
        # The seconds a client waits before asking again (its Retry-After): given
        # apart from the details when the body does not name them.
        self.retry_after = retry_after


class InvalidRequest(ServiceError):
    status, code = 400, "invalid_request"


class NotAuthenticated(ServiceError):
    status, code = 401, "not_authenticated"


class PlayerDisabled(NotAuthenticated):
    """The token is a disabled player's: refused like an unknown one, but saying why."""

    status, code = 401, "player_disabled"


class Forbidden(ServiceError):
    status, code = 403, "forbidden"


class CredentialsRefused(ServiceError):
    """A proof of who the player is (an email code, a password, an ID token) that does
    not hold. 403, not 401: the bearer token a request may carry is not in question."""

    status, code = 403, "credentials_refused"


class ProviderOff(ServiceError):
    """Signing in with a provider this service has no client ids for: for this
    service, that way of signing in does not exist."""

    status, code = 404, "provider_off"


class IdentityTaken(ServiceError):
    """The email address or provider account is another player's."""

    status, code = 409, "identity_taken"


class NoEmailLinked(ServiceError):
    """A password asked for by a player with no email address to sign in with it."""

    status, code = 409, "no_email_linked"


class TooManyIdentities(ServiceError):
    status, code = 409, "too_many_identities"


class NotFound(ServiceError):
    status, code = 404, "not_found"


class MethodNotAllowed(ServiceError):
    status, code = 405, "method_not_allowed"


class NotAcceptable(ServiceError):
    status, code = 406, "not_acceptable"


class UnsupportedMediaType(ServiceError):
    status, code = 415, "unsupported_media_type"


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


class TooManyDevices(ServiceError):
    status, code = 409, "too_many_devices"


class TooManyFriends(ServiceError):
    """Either player already has `players.social.friends.MAX_FRIENDS` friends."""

    status, code = 409, "too_many_friends"


class TooManyFriendRequests(ServiceError):
    """The caller has `MAX_PENDING_SENT` friend requests waiting for an answer."""

    status, code = 409, "too_many_friend_requests"


class TooManyBlocks(ServiceError):
    status, code = 409, "too_many_blocks"


class TooManyMutes(ServiceError):
    status, code = 409, "too_many_mutes"


class NotFriends(ServiceError):
    """Inviting to a game a player who is not the caller's friend."""

    status, code = 403, "not_friends"


class AlreadySeated(ServiceError):
    """Inviting to a game a player who already holds a seat in it."""

    status, code = 409, "already_seated"


class TooManyInvites(ServiceError):
    status, code = 409, "too_many_invites"


class FreeTextOff(ServiceError):
    """Typing free text at a table whose host allowed phrases and emotes only."""

    status, code = 403, "free_text_off"


class TalkMuted(ServiceError):
    """Staff muted the player's table talk until `details.until`."""

    status, code = 403, "talk_muted"


class IdempotencyKeyInUse(ServiceError):
    status, code = 409, "idempotency_key_in_use"


class IllegalMoveError(ServiceError):
    status, code = 422, "illegal_move"


class IdempotencyKeyReused(ServiceError):
    status, code = 422, "idempotency_key_reused"


class SettingsConflict(ServiceError):
    """Settings each well-formed that together make no table the rules know (a
    partners table of other than four seats)."""

    status, code = 422, "settings_conflict"


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


# -- the answer ----------------------------------------------------------------------


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """The one shape of every error answer (docs/api.md, Errors)."""
    return {"error": {"code": code, "message": message, "details": details or {}}}


@dataclass(frozen=True)
class ErrorAnswer:
    """What an error is answered with over HTTP, whatever layer sends it."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


def answer(error: ServiceError) -> ErrorAnswer:
    """The answer to `error`: its status, its body in the API's shape, and the headers
    that go with it (a 401's challenge, the wait before asking again)."""
    headers: dict[str, str] = {}
    if error.status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="api"'
    retry_after = error.retry_after
    if retry_after is None and "retry_after" in error.details:
        retry_after = error.details["retry_after"]
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    body = error_body(error.code, printable(error.message), printable(error.details))
    return ErrorAnswer(error.status, body, headers)


def printable(value: Any) -> Any:
    """Error text may echo client input: make it storable and encodable whatever it
    holds (lone surrogates cannot be UTF-8 encoded, PostgreSQL refuses NUL)."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8").replace("\x00", "\ufffd")
    if isinstance(value, dict):
        return {printable(k): printable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [printable(v) for v in value]
    return value
