"""Reading a Server-Sent Events stream with the standard library alone.

    for message in read_stream(url, {"Authorization": "Bearer ..."}):
        print(message.id, message.event, message.data)

Each message is dispatched at its blank line, as a browser's EventSource does;
comment lines (``: ping``) are yielded too, as messages whose `event` is
``"comment"``, so that a reader can tell the stream is alive.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Message:
    event: str
    data: str
    id: str | None = None
    retry: int | None = None

    def json(self) -> Any:
        return json.loads(self.data)


class StreamRefused(Exception):
    """The server answered with an error instead of a stream."""

    def __init__(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        super().__init__(f"{status}: {body[:200]!r}")
        self.status = status
        self.body = body
        self.headers = headers

    def json(self) -> Any:
        return json.loads(self.body)


def connect(
    url: str, headers: dict[str, str] | None = None, *, timeout: float = 30.0
) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    """Open the stream at `url`; raises `StreamRefused` for any answer but 200."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port or 80, timeout=timeout)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    connection.request("GET", path, headers={"Accept": "text/event-stream", **(headers or {})})
    sock = connection.sock
    response = connection.getresponse()
    if connection.sock is None:
        # A response that ends with its connection (no length, no chunks: HTTP/1.0)
        # takes the socket from the connection; `close` needs it to wake a reader.
        connection.sock = sock
    if response.status != 200:
        body = response.read()
        connection.close()
        raise StreamRefused(response.status, body, dict(response.getheaders()))
    return connection, response


def messages(response: http.client.HTTPResponse) -> Iterator[Message]:
    """The messages of an open stream, until the server closes it."""
    event, data, event_id, retry = "message", [], None, None
    while True:
        raw = response.readline()
        if not raw:
            return
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data or retry is not None:
                yield Message(event, "\n".join(data), event_id, retry)
            event, data, retry = "message", [], None
            continue
        if line.startswith(":"):
            yield Message("comment", line[1:].strip())
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
        elif name == "id":
            event_id = value
        elif name == "retry" and value.isdigit():
            retry = int(value)


def close(connection: http.client.HTTPConnection, response: http.client.HTTPResponse) -> None:
    """Close a stream now, even while another thread reads it: the server sees the
    client go at once (a response still holds the socket open otherwise)."""
    sock = connection.sock
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
    response.close()
    connection.close()


def read_stream(
    url: str, headers: dict[str, str] | None = None, *, timeout: float = 30.0
) -> Iterator[Message]:
    connection, response = connect(url, headers, timeout=timeout)
    try:
        yield from messages(response)
    finally:
        close(connection, response)
