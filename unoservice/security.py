"""The Content-Security-Policies of the pages the service renders for people.

Each page loads only the service's own files. The admin runs no inline script (its
own pages' scripts are static files: games/admin/*.js); inline styles remain, in
Django's templates and the service's. The API docs pages (`unoservice.api_docs`) run
no inline script either (Swagger UI is started by a static file, ReDoc by its
element's attribute): their origin is the web client's, which keeps its token where
any script of the origin could read it. ReDoc searches in a worker it starts from a
blob.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.security import SecurityMiddleware

from unoservice.asgi_types import Scope

_COMMON = "object-src 'none'; base-uri 'self'; frame-ancestors 'none'"

ADMIN_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    f"img-src 'self' data:; connect-src 'self'; form-action 'self'; {_COMMON}"
)
DOCS_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; "
    f"{_COMMON}"
)
# The web client (/play/): its own scripts and styles only, no inline ones; it talks to
# the API and its streams on the same origin, and registers its own service worker
# (/play/sw.js, which runs under the same policy).
PLAY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    f"connect-src 'self'; worker-src 'self'; form-action 'none'; {_COMMON}"
)
HEADER = "Content-Security-Policy"


class AdminContentSecurityPolicy:
    """Sets `ADMIN_POLICY` on every page under /admin/."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.path_info.startswith("/admin/"):
            response.headers.setdefault(HEADER, ADMIN_POLICY)
        return response


# -- answers given outside Django ------------------------------------------------------


class _ScopeRequest(HttpRequest):
    """A request as Django's security settings read it, from an ASGI scope: its
    scheme, and the header a TLS-terminating proxy sets (SECURE_PROXY_SSL_HEADER)."""

    def __init__(self, scope: Scope) -> None:
        super().__init__()
        self._scope_scheme = str(scope.get("scheme", "http"))
        proxy_header = settings.SECURE_PROXY_SSL_HEADER
        if proxy_header:  # ("HTTP_X_FORWARDED_PROTO", "https"): the one header read
            wanted = proxy_header[0].removeprefix("HTTP_").lower().replace("_", "-").encode()
            sent = [value for name, value in scope["headers"] if name == wanted]
            if sent:  # repeated, joined as the WSGI bridge joins them for Django
                self.META[proxy_header[0]] = b",".join(sent).decode("latin1")

    def _get_scheme(self) -> str:
        return self._scope_scheme


def redirected_to_https(scope: Scope) -> bool:
    """Whether Django would answer `scope` with a redirect to HTTPS
    (SECURE_SSL_REDIRECT); what answers outside Django leave to Django."""
    return bool(settings.SECURE_SSL_REDIRECT) and not _ScopeRequest(scope).is_secure()


def django_headers(scope: Scope) -> list[tuple[bytes, bytes]]:
    """The headers Django's SecurityMiddleware and XFrameOptionsMiddleware set on
    an API answer to `scope` (HSTS only over HTTPS), for an answer given outside
    Django: their own code decides, from the settings they read."""
    secure = _ScopeRequest(scope).is_secure()
    return _django_headers(secure, *(getattr(settings, name) for name in _READ))


# What the two middleware read: their headers are worked out once per combination.
_READ = (
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_CONTENT_TYPE_NOSNIFF",
    "SECURE_REFERRER_POLICY",
    "SECURE_CROSS_ORIGIN_OPENER_POLICY",
    "X_FRAME_OPTIONS",
)


@cache
def _django_headers(secure: bool, *read: object) -> list[tuple[bytes, bytes]]:
    request = _ScopeRequest({"scheme": "https" if secure else "http", "headers": []})
    response = HttpResponse()
    del response["Content-Type"]
    response = SecurityMiddleware(lambda _: response).process_response(request, response)
    response = XFrameOptionsMiddleware(lambda _: response).process_response(request, response)
    return [
        (name.lower().encode("latin1"), value.encode("latin1"))
        for name, value in response.headers.items()
    ]
