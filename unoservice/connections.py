"""What a connection may cost a server process before it has sent a valid request.

uvicorn's httptools protocol keeps every chunk of a request's line and headers until
the head is complete, and neither it nor gunicorn bounds how long a head or a body
may take, nor how many connections a process holds. `GuardedHttpToolsProtocol` is
that protocol with the bounds the server needs to be safe without a proxy in front:

- the request line is at most `MAX_REQUEST_LINE_BYTES` (414 `uri_too_long`) and the
  header section at most `MAX_HEADER_BYTES` (431 `headers_too_large`), counted as
  the bytes arrive, so that what the parser holds is bounded by one read;
- a request's head must be complete within ``HTTP_HEAD_TIMEOUT`` seconds of the
  connection's opening or of the previous answer's end (408 `request_timeout` when
  part of it came, then closed; an idle keep-alive connection is closed sooner, by
  uvicorn's keep-alive timeout);
- a process holds at most ``MAX_CONNECTIONS`` connections, fewer when its open-file
  limit is lower (`connection_cap`), and, with no proxy in front, at most
  ``MAX_CONNECTIONS_PER_ADDRESS`` from one peer address (an IPv6 peer counted with
  the rest of its /64, as every per-address limit counts it): past either, a new connection is
  answered 503 `service_unavailable` and closed at once, so the process never runs
  out of file descriptors for its database, its broker and everyone else's requests;
- a request the parser rejects is answered 400 in the API's error shape, where
  uvicorn answers plain text.

These answers come before the request's Origin is read (or with none at all): where
pages of some origin may call the API, they let every origin read them
(`unoservice.cors.any_origin`), so that a page sees the 503 and its Retry-After
rather than a network error.

What a body may cost is the ASGI application's to bound, as it reads the bodies
(`unoservice.asgi`, `unoservice.wsgi_threads`): its size (413 `payload_too_large`),
its time (``HTTP_BODY_TIMEOUT``) and the bodies a process holds at once. Each
refusal is counted in ``uno_http_refused_total`` by reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import resource
from collections import Counter
from typing import Any

import httptools
from django.conf import settings
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from unoservice import cors, metrics
from unoservice.client_address import address_group
from unoservice.errors import (
    HeadersTooLarge,
    InvalidRequest,
    RequestTimeout,
    ServiceError,
    ServiceUnavailable,
    UriTooLong,
    answer,
)

MAX_REQUEST_LINE_BYTES = 8 * 1024
MAX_HEADER_BYTES = 16 * 1024
# "GET " and " HTTP/1.1\r\n" around the target: not the client's to spend on headers.
_REQUEST_LINE_FRAME = 32
# File descriptors a process keeps for itself beyond its connections: database and
# broker connections, the metrics' files, logs, the hub's listener.
_RESERVED_FILES = 1024
RETRY_AFTER_SECONDS = 1

# Open connections per peer address group in this process (only counted with no
# proxy in front: behind one, every connection comes from the proxy).
_per_address: Counter[str] = Counter()


@functools.cache  # the limit is set before the server starts, once
def connection_cap() -> int:
    """The most connections this process holds: ``MAX_CONNECTIONS``, lowered to
    leave a reserve (a quarter of the limit, at most `_RESERVED_FILES`) below the
    process's open-file limit."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    configured = int(settings.MAX_CONNECTIONS)
    if soft == resource.RLIM_INFINITY:
        return configured
    return max(1, min(configured, soft - min(_RESERVED_FILES, soft // 4)))


class _Refused(Exception):
    """Raised in a parser callback to stop parsing a request that was refused."""


def _answer(error: ServiceError) -> bytes:
    """A whole HTTP answer carrying `error` in the API's shape; the connection closes
    after it."""
    answered = answer(error)
    body = json.dumps(answered.body).encode()
    head = [
        STATUS_LINE[answered.status],
        b"content-type: application/json\r\n",
        b"content-length: %d\r\n" % len(body),
        b"connection: close\r\n",
    ]
    head += [
        b"%s: %s\r\n" % (name.lower().encode(), value.encode())
        for name, value in answered.headers.items()
    ]
    head += [b"%s: %s\r\n" % header for header in cors.any_origin()]
    return b"".join([*head, b"\r\n", body])


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the limits above (see the module's text)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.url = b""
        self._in_head = True
        self._head_bytes = 0
        self._header_bytes = 0
        self._peer: str | None = None
        self._head_deadline: asyncio.TimerHandle | None = None

    # -- the connection ------------------------------------------------------------

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        if len(self.connections) > connection_cap():
            self._refuse(
                ServiceUnavailable(
                    "the server is at its connection limit", retry_after=RETRY_AFTER_SECONDS
                ),
                "busy",
            )
            return
        per_address = int(settings.MAX_CONNECTIONS_PER_ADDRESS)
        if per_address > 0 and int(settings.NUM_PROXIES) == 0 and self.client is not None:
            self._peer = address_group(self.client[0])
            _per_address[self._peer] += 1
            if _per_address[self._peer] > per_address:
                self._refuse(
                    ServiceUnavailable(
                        "too many connections from this address", retry_after=RETRY_AFTER_SECONDS
                    ),
                    "address",
                )
                return
        self._head_deadline = self.loop.call_later(settings.HTTP_HEAD_TIMEOUT, self._head_late)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None
        if self._peer is not None:
            _per_address[self._peer] -= 1
            if _per_address[self._peer] <= 0:
                del _per_address[self._peer]
            self._peer = None
        super().connection_lost(exc)

    def _refuse(self, error: ServiceError, reason: str) -> None:
        """Answer `error` and close, when no other answer is under way on this
        connection; close without an answer otherwise."""
        if self.transport.is_closing():
            return
        metrics.HTTP_REFUSED.labels(reason).inc()
        if self.cycle is None or self.cycle.response_complete:
            self.transport.write(_answer(error))
        self.transport.close()

    # -- the head --------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        # uvicorn's, with the head's bytes counted and the refusals of the callbacks.
        self._unset_keepalive_if_required()
        if self._in_head:
            self._head_bytes += len(data)
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._refuse(InvalidRequest("protocol upgrades are not served"), "invalid")
        except httptools.HttpParserError:
            # A callback that refused the request stopped the parser: answered already.
            self._refuse(InvalidRequest("the request is not valid HTTP/1.1"), "invalid")
        else:
            if self._in_head:
                # A line or a header still incomplete is held by the parser whole.
                with contextlib.suppress(_Refused):
                    self._check_head(self._head_bytes - len(self.url) - _REQUEST_LINE_FRAME)

    def _check_head(self, header_bytes: int) -> None:
        """Refuse the request, and stop the parser, when its head is over a limit."""
        if len(self.url) > MAX_REQUEST_LINE_BYTES:
            self._refuse(
                UriTooLong(f"the request line is longer than {MAX_REQUEST_LINE_BYTES} bytes"),
                "uri_too_long",
            )
            raise _Refused
        if header_bytes > MAX_HEADER_BYTES:
            self._refuse(
                HeadersTooLarge(f"the headers are longer than {MAX_HEADER_BYTES} bytes"),
                "headers_too_large",
            )
            raise _Refused

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._header_bytes = 0

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        self._check_head(0)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_bytes += len(name) + len(value) + 4  # ": " and CRLF
        self._check_head(self._header_bytes)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._head_bytes = 0
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._in_head = True  # what follows is the next request's head
        self.url = b""

    def on_response_complete(self) -> None:
        super().on_response_complete()
        # uvicorn arms its keep-alive timer when no pipelined request waits: the next
        # head is then due within the head timeout.
        if self.timeout_keep_alive_task is not None and self._head_deadline is None:
            self._head_deadline = self.loop.call_later(settings.HTTP_HEAD_TIMEOUT, self._head_late)

    def _head_late(self) -> None:
        self._head_deadline = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a request is being served: its head did arrive
        if self._head_bytes:
            self._refuse(
                RequestTimeout("the request's head did not arrive in time"), "head_timeout"
            )
        else:
            metrics.HTTP_REFUSED.labels("idle").inc()
            self.transport.close()
