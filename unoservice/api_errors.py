"""How errors leave the service over HTTP: every one as ``{"error": {code, message,
details}}``. DRF's exception handler, Django's 400/403/404/500 and CSRF failure
views, and the ASGI sender of what is served outside Django, each turning what was
raised into a `ServiceError` and answering what `unoservice.errors.answer` makes
of it.

Services raise `ServiceError`s (`unoservice.errors`) and convert whatever their own
layers below raise; nothing here knows the rules engine.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.csrf import csrf_failure as django_csrf_failure
from rest_framework import exceptions as drf
from rest_framework.response import Response

from players.models import Player
from unoservice.asgi_types import Send
from unoservice.errors import (
    Forbidden,
    InternalError,
    InvalidRequest,
    MethodNotAllowed,
    NotAcceptable,
    NotAuthenticated,
    NotFound,
    PayloadTooLarge,
    RateLimited,
    ServiceError,
    ServiceUnavailable,
    UnsupportedMediaType,
    answer,
)
from unoservice.throttling import refused_unauthenticated

logger = logging.getLogger(__name__)


async def send_error(
    send: Send, error: ServiceError, *, close: bool = False, headers: dict[str, str] | None = None
) -> None:
    """Answer `error` over ASGI, for what is served outside Django; with `close`, the
    connection closes after it (the request's body is left unread); `headers` add to
    the answer's own."""
    answered = answer(error)
    sent = [(b"content-type", b"application/json")]
    if close:
        sent.append((b"connection", b"close"))
    extra = {**answered.headers, **(headers or {})}
    sent += [(name.lower().encode(), value.encode()) for name, value in extra.items()]
    body = json.dumps(answered.body).encode()
    await send({"type": "http.response.start", "status": answered.status, "headers": sent})
    await send({"type": "http.response.body", "body": body})


def json_answer(error: ServiceError, **headers: str) -> JsonResponse:
    """Answer `error` from a plain Django view (`headers` add to or replace the
    answer's own)."""
    answered = answer(error)
    return JsonResponse(
        answered.body, status=answered.status, headers={**answered.headers, **headers}
    )


def _field_errors(detail: Any, path: str, into: dict[str, list[str]]) -> None:
    """Collect the messages of `detail` into `into` by dotted field path: a nested
    serializer's errors come as dicts and a list's items by index, and str() of
    either would hand the client a Python repr."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            # A nested object's own error (not a JSON object, say) is about the
            # field that holds it; only the body's own keeps the DRF name.
            if key == "non_field_errors" and path:
                child = path
            else:
                child = f"{path}.{key}" if path else str(key)
            _field_errors(value, child, into)
    elif isinstance(detail, list | tuple):
        for index, item in enumerate(detail):
            if isinstance(item, dict | list | tuple):
                _field_errors(item, f"{path}.{index}" if path else str(index), into)
            else:
                into.setdefault(path, []).append(str(item))
    else:
        into.setdefault(path, []).append(str(detail))


def _flatten_validation(detail: Any) -> tuple[str, dict[str, Any]]:
    """A readable message and the field errors of a DRF ValidationError, nested
    fields named by path (``rules.stackng``, ``seats.0.name``)."""
    fields: dict[str, list[str]] = {}
    _field_errors(detail, "", fields)
    if not isinstance(detail, dict) and set(fields) <= {""}:
        # Errors about the body as a whole name no field.
        messages = fields.get("", [])
        return (messages[0] if messages else "invalid request"), {}
    first_key = next(iter(fields), None)
    if first_key is None:
        return "invalid request", {"fields": fields}
    message = fields[first_key][0]
    names_no_field = first_key == "non_field_errors" or (
        first_key == "" and not isinstance(detail, dict)
    )
    if not names_no_field:
        message = f"{first_key}: {message}"
    return message, {"fields": fields}


class ServiceAuthenticationFailed(drf.AuthenticationFailed):
    """A `ServiceError` raised while authenticating, carried as the exception DRF
    expects there (DRF lets only its own through authentication), answered as the
    service error it carries."""

    def __init__(self, error: ServiceError) -> None:
        super().__init__(error.message, code=error.code)
        self.error = error


_DRF_ERRORS: dict[type[drf.APIException], type[ServiceError]] = {
    drf.NotAuthenticated: NotAuthenticated,
    drf.AuthenticationFailed: NotAuthenticated,
    drf.PermissionDenied: Forbidden,
    drf.NotFound: NotFound,
    drf.MethodNotAllowed: MethodNotAllowed,
    drf.NotAcceptable: NotAcceptable,
    drf.UnsupportedMediaType: UnsupportedMediaType,
    drf.ParseError: InvalidRequest,
}


def service_error(exc: Exception) -> ServiceError:
    """What `exc`, raised while a request was served, is as the service's error."""
    if isinstance(exc, ServiceAuthenticationFailed):
        return exc.error
    if isinstance(exc, ServiceError):
        return exc
    if isinstance(exc, drf.ValidationError):
        message, details = _flatten_validation(exc.detail)
        return InvalidRequest(message, details=details)
    if isinstance(exc, drf.Throttled):
        # Set by Throttled.__init__ (DRF's stubs leave the attribute out).
        seconds: float | None = getattr(exc, "wait", None)
        wait = max(int(seconds or 1), 1)
        return RateLimited("too many requests", details={"retry_after": wait})
    if isinstance(exc, drf.APIException):
        known = _DRF_ERRORS.get(type(exc))
        if known is not None:
            return known(str(exc.detail))
        error = InvalidRequest(str(exc.detail))
        error.status = exc.status_code
        return error
    if isinstance(exc, RequestDataTooBig):
        return PayloadTooLarge("the body is too large")
    if isinstance(exc, Http404):
        return NotFound("not found")
    if isinstance(exc, DjangoPermissionDenied):
        return Forbidden("forbidden")
    if isinstance(exc, OperationalError | InterfaceError | DatabaseError):
        logger.warning("database unavailable: %s", exc)
        return ServiceUnavailable("the database is unavailable; try again shortly", retry_after=1)
    logger.exception("unhandled error", exc_info=exc)
    return InternalError()


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's EXCEPTION_HANDLER: every error leaves in the API shape, never as a 500
    page. (Services roll their own transaction back by raising through it.)"""
    error = service_error(exc)
    if error.status == 401 and (retry := _unauthenticated_wait(context)) is not None:
        # A flood of bad or missing tokens from one address: limited as sign-ups are.
        error = RateLimited(
            "too many requests without a valid token", details={"retry_after": retry}
        )
    answered = answer(error)
    return Response(answered.body, status=answered.status, headers=answered.headers)


def _unauthenticated_wait(context: dict[str, Any]) -> int | None:
    request = context.get("request")
    if request is None:
        return None
    user: object = request.user
    return refused_unauthenticated(
        meta=request.META, player=user if isinstance(user, Player) else None
    )


# Django-level handlers, for URLs outside DRF views (unknown paths, crashes).


def handler404(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return json_answer(NotFound("no such resource"))


class JsonNotFoundInDevelopment:
    """Middleware: under /api/, a path nothing serves is the API's 404 in its shape
    in development too, where Django answers its debug page (listing every URL)
    instead of calling `handler404`."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.status_code == 404
            and request.path_info.startswith("/api/")
            and request.resolver_match is None
        ):
            return handler404(request)
        return response


def handler500(request: HttpRequest) -> JsonResponse:
    return json_answer(InternalError())


def handler400(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return json_answer(InvalidRequest("bad request"))


def handler403(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return json_answer(Forbidden("forbidden"))


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: API clients get the error shape, not Django's HTML page;
    staff in the admin, a browser, keep the page that tells them what to do."""
    if request.path_info.startswith("/admin/"):
        return django_csrf_failure(request, reason=reason)
    details = {"reason": reason} if reason else {}
    return json_answer(Forbidden("CSRF verification failed", details=details))
