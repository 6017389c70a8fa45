"""Django's WSGI application behind the ASGI server, on a pool of threads.

One hop per request: the body is read on the event loop, the whole request runs on
a thread (Django reads, works and renders there, as under a WSGI server), and the
finished answer comes back to the loop in one piece. Bridges that stream every
chunk across threads (a2wsgi's `WSGIMiddleware`) pay a round trip to the loop for
the status, each chunk and the end; the API's answers are small JSON documents,
which gain nothing from streaming. The WSGI environ is built by a2wsgi.
"""

from __future__ import annotations

import asyncio
import io
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar, cast

from a2wsgi.asgi_typing import HTTPScope
from a2wsgi.wsgi import Body, build_environ
from django.conf import settings

from unoservice import metrics
from unoservice.api_errors import send_error
from unoservice.asgi_types import Receive, Scope, Send
from unoservice.errors import PayloadTooLarge, RequestTimeout, ServiceUnavailable
from unoservice.observability import EXCHANGE_KEY
from unoservice.thread_connections import close_thread_connections

T = TypeVar("T")


class ThreadedWSGI:
    def __init__(self, app: Any, threads: int, *, name: str = "api") -> None:
        self.app = app
        self.threads = threads
        self.name = name
        self.executor = ThreadPoolExecutor(threads, thread_name_prefix=name)
        # Requests handed to the threads and not yet back, and the last moment a
        # thread was known to be free (`stuck_for`); both kept on the event loop.
        self.busy = 0
        self.free_at = time.monotonic()

    def stuck_for(self) -> float:
        """Seconds every thread has been busy with none finishing; 0 while one is free
        (`unoservice.liveness`)."""
        if self.busy < self.threads:
            return 0.0
        return time.monotonic() - self.free_at

    async def stop(self) -> None:
        """Close the threads' database connections (the server is stopping)."""
        executor, self.executor = (
            self.executor,
            ThreadPoolExecutor(self.threads, thread_name_prefix=self.name),
        )
        await close_thread_connections(executor, self.threads)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            async with asyncio.timeout(float(settings.HTTP_BODY_TIMEOUT)):
                body = await _read_body(receive, int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE))
        except TimeoutError:
            metrics.HTTP_REFUSED.labels("body_timeout").inc()
            await send_error(send, RequestTimeout("the body did not arrive in time"), close=True)
            return
        except (PayloadTooLarge, ServiceUnavailable) as error:
            reason = "payload_too_large" if isinstance(error, PayloadTooLarge) else "bodies"
            metrics.HTTP_REFUSED.labels(reason).inc()
            await send_error(send, error, close=True)
            return
        if body is None:  # the client went
            return
        environ = _environ(scope, body)
        environ["wsgi.errors"] = sys.stderr
        # A client that goes while its request runs is heard (and counted as gone by
        # unoservice.observability); the request runs to its end all the same.
        gone = asyncio.ensure_future(receive())
        try:
            status, headers, content = await self.run(lambda: self._run(environ))
        finally:
            gone.cancel()
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content})

    async def run(self, work: Callable[[], T]) -> T:
        """Run `work` on one of the threads, counted as a request they serve."""
        if self.busy < self.threads:
            self.free_at = time.monotonic()
        self.busy += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self.executor, work)
        finally:
            self.busy -= 1
            self.free_at = time.monotonic()

    def _run(self, environ: dict[str, Any]) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        started: dict[str, Any] = {}
        written: list[bytes] = []

        def start_response(
            status: str, headers: list[tuple[str, str]], exc_info: Any = None
        ) -> Any:
            started["status"] = int(status.split(" ", 1)[0])
            started["headers"] = [
                (name.lower().encode("latin1"), value.encode("latin1")) for name, value in headers
            ]
            return written.append

        result = self.app(environ, start_response)
        try:
            chunks = [*written, *result]
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()  # Django's request_finished: connections are tidied here
        return started["status"], started["headers"], b"".join(chunks)


def _environ(scope: Scope, body: bytes) -> dict[str, Any]:
    """a2wsgi's environ for a request whose body is already read. (a2wsgi types the
    scope and environ as TypedDicts and the input as its own streaming `Body`; any
    file-like object serves Django, which takes the environ as a plain dict.)"""
    built = cast(
        "dict[str, Any]", build_environ(cast("HTTPScope", scope), cast("Body", io.BytesIO(body)))
    )
    # The request as the server observes it, for Django's middleware to name.
    built[EXCHANGE_KEY] = scope.get(EXCHANGE_KEY)
    return built


class BodyBudget:
    """The bytes of request bodies this process holds while they arrive, and their
    bound: each body may be as large as Django's limit, but together they may not
    exceed ``MAX_BODY_BYTES_BUFFERED``, so that many slow senders cannot fill the
    memory (the API's own bodies are small JSON documents). Only the event loop's
    thread counts."""

    def __init__(self) -> None:
        self.held = 0

    def take(self, size: int) -> None:
        if self.held + size > int(settings.MAX_BODY_BYTES_BUFFERED):
            raise ServiceUnavailable(
                "the server is receiving too many bodies; try again shortly",
                details={"retry_after": 1},
            )
        self.held += size

    def give_back(self, size: int) -> None:
        self.held -= size


bodies = BodyBudget()


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The request's body, or None when the client went before it was whole. A body
    over `limit` bytes (a chunked one: `Content-Length` was checked before) is cut
    off there: `PayloadTooLarge`; one that would take this process over its
    `BodyBudget`, `ServiceUnavailable`."""
    body = bytearray()
    try:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            if len(body) + len(chunk) > limit:
                raise PayloadTooLarge(f"the body is larger than {limit} bytes")
            bodies.take(len(chunk))
            body += chunk
            if not message.get("more_body", False):
                return bytes(body)
    finally:
        bodies.give_back(len(body))
