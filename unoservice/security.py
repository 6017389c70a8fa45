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

from django.http import HttpRequest, HttpResponse

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
