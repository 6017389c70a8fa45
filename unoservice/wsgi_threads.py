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
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from a2wsgi.asgi_typing import HTTPScope
from a2wsgi.wsgi import Body, build_environ

from unoservice.observability import EXCHANGE_KEY

# Bodies above this are refused before Django sees them: Django refuses anything
# over its own DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB) anyway, and a body is held in
# memory whole.
MAX_BODY_BYTES = 10 * 1024 * 1024


class ThreadedWSGI:
    def __init__(self, app: Any, threads: int, *, name: str = "api") -> None:
        self.app = app
        self.threads = threads
        self.name = name
        self.executor = ThreadPoolExecutor(threads, thread_name_prefix=name)

    async def stop(self) -> None:
        """Close the threads' database connections (the server is stopping)."""
        from games.live.hub import close_thread_connections

        executor, self.executor = (
            self.executor,
            ThreadPoolExecutor(self.threads, thread_name_prefix=self.name),
        )
        await close_thread_connections(executor, self.threads)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        body = await _read_body(receive)
        if body is None:
            await _too_large(send)
            return
        environ = _environ(scope, body)
        environ["wsgi.errors"] = sys.stderr
        loop = asyncio.get_running_loop()
        status, headers, content = await loop.run_in_executor(self.executor, self._run, environ)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content})

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


def _environ(scope: dict[str, Any], body: bytes) -> dict[str, Any]:
    """a2wsgi's environ for a request whose body is already read. (a2wsgi types the
    scope and environ as TypedDicts and the input as its own streaming `Body`; any
    file-like object serves Django, which takes the environ as a plain dict.)"""
    built = cast(
        "dict[str, Any]", build_environ(cast("HTTPScope", scope), cast("Body", io.BytesIO(body)))
    )
    # The request as the server observes it, for Django's middleware to name.
    built[EXCHANGE_KEY] = scope.get(EXCHANGE_KEY)
    return built


async def _read_body(receive: Any) -> bytes | None:
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        parts.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(parts)


async def _too_large(send: Any) -> None:
    body = {"error": {"code": "invalid_request", "message": "the body is too large", "details": {}}}
    await send(
        {
            "type": "http.response.start",
            "status": 400,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})
