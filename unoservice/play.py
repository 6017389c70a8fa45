"""The web client's one page (/play/ and every path under it): the file web/index.html
as it is, not a template. Its scripts and styles are static files (/static/play/), and
it speaks only the public API, so the page itself needs nothing from Django but this,
its service worker (/play/sw.js) and the way there from the root (/)."""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.views.decorators.http import require_safe

from unoservice import security


@cache
def _file(name: str) -> bytes:
    return (settings.BASE_DIR / "web" / name).read_bytes()


def _answer(body: bytes, content_type: str) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    response[security.HEADER] = security.PLAY_POLICY
    # A page or a worker changed by a new release is taken at once, not a stale copy.
    response["Cache-Control"] = "no-cache"
    return response


@require_safe
def play_page(request: HttpRequest, route: str = "") -> HttpResponse:
    """The client reads `route` (games/<id>, its replay, players/<id>, leaderboard,
    join/<code>: web/app.js) itself, once loaded."""
    return _answer(_file("index.html"), "text/html; charset=utf-8")


@require_safe
def root(request: HttpRequest) -> HttpResponse:
    """The service's address alone leads a person to the web client. A temporary
    redirect: the root may lead elsewhere one day, and browsers keep a permanent
    one for good."""
    return HttpResponseRedirect("/play/")


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """web/sw.js, which shows the service's pushes. A worker's scope is at most the
    folder its script is served from, so served here it covers the client's pages,
    /play/, and no more, with nothing else to set. From /static/play/ it would need a
    `Service-Worker-Allowed: /play/` header on that one static file alone, which
    WhiteNoise serves as it serves all the others."""
    return _answer(_file("sw.js"), "text/javascript; charset=utf-8")
