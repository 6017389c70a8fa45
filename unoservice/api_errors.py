"""How errors leave the service over HTTP: every one as ``{"error": {code, message,
details}}``. DRF's exception handler, Django's 400/403/404/500 and CSRF failure
views, and the body they share (the live streams' refusals use it too).

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

from unoservice.errors import InternalError, PayloadTooLarge, RateLimited, ServiceError
from unoservice.throttling import refused_unauthenticated

logger = logging.getLogger(__name__)


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details or {}}}


async def send_error(send: Any, error: ServiceError, *, close: bool = False) -> None:
    """Answer `error` over ASGI, for what is served outside Django; with `close`, the
    connection closes after it (the request's body is left unread)."""
    headers = [(b"content-type", b"application/json")]
    if close:
        headers.append((b"connection", b"close"))
    if error.status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="api"'))
    if "retry_after" in error.details:
        headers.append((b"retry-after", str(error.details["retry_after"]).encode()))
    body = json.dumps(error_body(error.code, error.message, error.details)).encode()
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


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


_DRF_CODES: dict[type[drf.APIException], tuple[int, str]] = {
    drf.NotAuthenticated: (401, "not_authenticated"),
    drf.AuthenticationFailed: (401, "not_authenticated"),
    drf.PermissionDenied: (403, "forbidden"),
    drf.NotFound: (404, "not_found"),
    drf.MethodNotAllowed: (405, "method_not_allowed"),
    drf.NotAcceptable: (406, "not_acceptable"),
    drf.UnsupportedMediaType: (415, "unsupported_media_type"),
    drf.ParseError: (400, "invalid_request"),
    drf.Throttled: (429, "rate_limited"),
}


def _printable(value: Any) -> Any:
    """Error text may echo client input: make it storable and encodable whatever it
    holds (lone surrogates cannot be UTF-8 encoded, PostgreSQL refuses NUL)."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8").replace("\x00", "\ufffd")
    if isinstance(value, dict):
        return {_printable(k): _printable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_printable(v) for v in value]
    return value


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's EXCEPTION_HANDLER: every error leaves in the API shape, never as a 500
    page. (Services roll their own transaction back by raising through it.)"""
    headers: dict[str, str] = {}
    if isinstance(exc, ServiceAuthenticationFailed):
        exc = exc.error
    if isinstance(exc, ServiceError):
        status, code, message, details = exc.status, exc.code, exc.message, exc.details
        if status == 429 and "retry_after" in details:
            headers["Retry-After"] = str(details["retry_after"])
    elif isinstance(exc, drf.ValidationError):
        status, code = 400, "invalid_request"
        message, details = _flatten_validation(exc.detail)
    elif isinstance(exc, drf.APIException):
        status, code = _DRF_CODES.get(type(exc), (exc.status_code, "invalid_request"))
        message, details = str(exc.detail), {}
        if isinstance(exc, drf.Throttled):
            # Set by Throttled.__init__ (DRF's stubs leave the attribute out).
            seconds: float | None = getattr(exc, "wait", None)
            wait = int(seconds or 1)
            headers["Retry-After"] = str(max(wait, 1))
            message, details = "too many requests", {"retry_after": max(wait, 1)}
    elif isinstance(exc, RequestDataTooBig):
        too_large = PayloadTooLarge("the body is too large")
        status, code, message, details = too_large.status, too_large.code, too_large.message, {}
    elif isinstance(exc, Http404):
        status, code, message, details = 404, "not_found", "not found", {}
    elif isinstance(exc, DjangoPermissionDenied):
        status, code, message, details = 403, "forbidden", "forbidden", {}
    elif isinstance(exc, OperationalError | InterfaceError | DatabaseError):
        logger.warning("database unavailable: %s", exc)
        status, code = 503, "service_unavailable"
        message, details = "the database is unavailable; try again shortly", {}
        headers["Retry-After"] = "1"
    else:
        logger.exception("unhandled error", exc_info=exc)
        internal = InternalError()
        status, code, message, details = internal.status, internal.code, internal.message, {}
    if status == 401 and (retry := _unauthenticated_wait(context)) is not None:
        # A flood of bad or missing tokens from one address: limited as sign-ups are.
        limited = RateLimited(
            "too many requests without a valid token", details={"retry_after": retry}
        )
        status, code, message, details = (
            limited.status,
            limited.code,
            limited.message,
            limited.details,
        )
        headers["Retry-After"] = str(retry)
    if status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="api"'
    body = error_body(code, _printable(message), _printable(details))
    return Response(body, status=status, headers=headers)


def _unauthenticated_wait(context: dict[str, Any]) -> int | None:
    request = context.get("request")
    if request is None:
        return None
    return refused_unauthenticated(request)


# Django-level handlers, for URLs outside DRF views (unknown paths, crashes).


def handler404(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse(error_body("not_found", "no such resource"), status=404)


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
    error = InternalError()
    return JsonResponse(error_body(error.code, error.message), status=error.status)


def handler400(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse(error_body("invalid_request", "bad request"), status=400)


def handler403(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse(error_body("forbidden", "forbidden"), status=403)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: API clients get the error shape, not Django's HTML page;
    staff in the admin, a browser, keep the page that tells them what to do."""
    if request.path_info.startswith("/admin/"):
        return django_csrf_failure(request, reason=reason)
    details = {"reason": _printable(reason)} if reason else {}
    return JsonResponse(error_body("forbidden", "CSRF verification failed", details), status=403)
