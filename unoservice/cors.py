"""CORS for the answers given outside Django's middleware: the streams, the long
polls' refusals and the ASGI layer's own early answers (`unoservice.asgi`).

Which origins are let in, which headers a page may read and how a preflight is
answered is django-cors-headers' decision, made from the CORS settings, for
Django's answers (its middleware) and here alike: this module hands the library's
`CorsMiddleware` a request and an answer built from the ASGI scope and takes the
headers it sets. So one check decides for every path, and a preflight the ASGI
layer answers is the one Django would have answered.

The server's answers given before a request's head is whole
(`unoservice.connections`) have no origin to check: `any_origin` gives theirs.
"""

from __future__ import annotations

import re

from corsheaders.conf import conf
from corsheaders.middleware import CorsMiddleware
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase

from unoservice.asgi_types import Scope

Headers = list[tuple[bytes, bytes]]
VARY_ORIGIN = (b"vary", b"origin")

# Only its checks are used: it never calls on to a view.
_cors = CorsMiddleware(lambda request: HttpResponse())


def _request(scope: Scope) -> HttpRequest:
    """The request as the middleware reads it: its method, its path and the headers
    it looks at (Origin, and a preflight's Access-Control-Request-*)."""
    request = HttpRequest()
    request.method = scope["method"]
    request.path = request.path_info = scope["path"]
    for name, value in scope["headers"]:
        if name == b"origin" or name.startswith(b"access-control-request-"):
            key = "HTTP_" + name.decode("latin1").upper().replace("-", "_")
            request.META[key] = value.decode("latin1")
    return request


def covers(path: str) -> bool:
    """Whether CORS applies to `path` (the API's paths)."""
    return re.match(conf.CORS_URLS_REGEX, path) is not None


def preflight(scope: Scope) -> tuple[int, Headers] | None:
    """The answer (status and headers) to `scope` when it is a preflight of a path
    CORS covers, or None when it is not one."""
    if scope["method"] != "OPTIONS" or not covers(scope["path"]):
        return None
    request = _request(scope)
    response = _cors.check_preflight(request)
    if response is None:
        return None
    _cors.add_response_headers(request, response)
    return response.status_code, _encoded(response)


def with_cors(scope: Scope, headers: Headers) -> Headers:
    """`headers` of an answer to `scope`, with the CORS headers the middleware would
    have added; unchanged when it has added them already (the answer is Django's) or
    when CORS does not cover the path."""
    if not covers(scope["path"]):
        return headers
    varies = False
    for name, value in headers:
        if name.lower() == b"vary":
            if b"origin" in value.lower():
                return headers
            varies = True
    if not varies and not any(name == b"origin" for name, _ in scope["headers"]):
        # All the middleware adds without an Origin (most clients: apps, bots, every
        # stream of a native client), without building a request and an answer.
        return [*headers, VARY_ORIGIN]
    request = _request(scope)
    response = HttpResponse()
    kept: Headers = []
    for name, value in headers:
        if name.lower() == b"vary":  # merged with the middleware's
            response.headers["Vary"] = value.decode("latin1")
        else:
            kept.append((name, value))
    _cors.add_response_headers(request, response)
    added = [
        (name, value) for name, value in _encoded(response) if name == b"vary" or _is_cors(name)
    ]
    return [*kept, *added] if added else headers


def allows_any() -> bool:
    """Whether a page of any origin at all may call the API."""
    return bool(
        conf.CORS_ALLOW_ALL_ORIGINS or conf.CORS_ALLOWED_ORIGINS or conf.CORS_ALLOWED_ORIGIN_REGEXES
    )


def any_origin() -> Headers:
    """The CORS headers of the answers that read no origin: when pages of some origin
    may call the API, every page may read them. They carry nothing but an error that
    is the same for everyone (the server is at its connection cap, a request line
    too long), and a page can only retry well if it can read it."""
    if not allows_any():
        return []
    exposed = ", ".join(conf.CORS_EXPOSE_HEADERS).encode("latin1")
    return [(b"access-control-allow-origin", b"*"), (b"access-control-expose-headers", exposed)]


def _is_cors(name: bytes) -> bool:
    return name.startswith(b"access-control-")


def _encoded(response: HttpResponseBase) -> Headers:
    return [
        (name.lower().encode("latin1"), value.encode("latin1"))
        for name, value in response.headers.items()
        if name.lower() != "content-type"
    ]
