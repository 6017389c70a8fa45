"""The web client's one page (/play/ and every path under it): the file web/index.html
as it is, not a template. Its scripts and styles are static files (/static/play/), and
it speaks only the public API, so the page itself needs nothing from Django but this."""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from unoservice import security


@cache
def _page() -> bytes:
    return (settings.BASE_DIR / "web" / "index.html").read_bytes()


@require_safe
def play_page(request: HttpRequest, route: str = "") -> HttpResponse:
    """The client reads `route` (games/<id>, join/<code>) itself, once loaded."""
    response = HttpResponse(_page(), content_type="text/html; charset=utf-8")
    response[security.HEADER] = security.PLAY_POLICY
    response["Cache-Control"] = "no-cache"
    return response
