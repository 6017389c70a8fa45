"""A local server that answers as a hostile push service would, for the tests of
outbound calls: by the path it is asked, a 307 to another of its paths
(`/redirect`, to `/target`), an answer dripped a byte every `drip_seconds`
(`/drip`), a 500 of 300 MiB streamed in chunks, never held whole (`/huge`), a 200
of n bytes (`/sized/<n>`), or a 201 (anything else). It counts each path's
requests and the bytes it got out. Every answer says `Connection: close`, since the
connection is closed after it: a client that kept it for its next request could
otherwise send that request into a socket the service is closing, and the request
would never arrive."""

from __future__ import annotations

import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator

import pytest

HUGE_BYTES = 300 * 1024 * 1024
CHUNK = 64 * 1024


def _head(status: str, length: int, *more: str) -> bytes:
    lines = [f"HTTP/1.1 {status}", f"Content-Length: {length}", "Connection: close", *more]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


class HostileService:
    def __init__(self, drip_seconds: float = 3.0) -> None:
        self.drip_seconds = drip_seconds
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.hits: Counter[str] = Counter()
        # (path, time.monotonic()) of each request, in order of arrival.
        self.arrivals: list[tuple[str, float]] = []
        self.sent_bytes = 0
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def stop(self) -> None:
        self.stopping.set()
        self.listener.close()

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        with connection:
            try:
                request = self._read_request(connection)
                path = request.split(b" ", 2)[1].decode().split("?")[0]
                with self.lock:
                    self.hits[path.rsplit("/", 1)[-1]] += 1
                    self.arrivals.append((path, time.monotonic()))
                self._answer(connection, path)
            except (OSError, IndexError):
                pass

    def _read_request(self, connection: socket.socket) -> bytes:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = connection.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ),
            0,
        )
        while len(body) < length:
            chunk = connection.recv(65536)
            if not chunk:
                break
            body += chunk
        return head

    def _answer(self, connection: socket.socket, path: str) -> None:
        if path.endswith("/redirect"):
            connection.sendall(
                _head("307 Temporary Redirect", 0, f"Location: {self.origin}/target")
            )
        elif path.endswith("/drip"):
            for byte in _head("201 Created", 0):
                connection.sendall(bytes([byte]))
                self._count(1)
                if self.stopping.wait(self.drip_seconds):
                    return
        elif path.endswith("/huge"):
            connection.sendall(_head("500 Oops", HUGE_BYTES))
            chunk = b"x" * CHUNK
            for _ in range(HUGE_BYTES // CHUNK):
                connection.sendall(chunk)
                self._count(CHUNK)
        elif "/sized/" in path:
            size = int(path.rsplit("/", 1)[1])
            connection.sendall(_head("200 OK", size))
            connection.sendall(b"y" * size)
        else:
            connection.sendall(_head("201 Created", 0))

    def _count(self, sent: int) -> None:
        with self.lock:
            self.sent_bytes += sent

    def wait_for(self, path: str, seconds: float = 30.0) -> None:
        deadline = time.monotonic() + seconds
        while self.hits[path] == 0:
            if time.monotonic() > deadline:
                raise AssertionError(f"nothing asked for {path}: {dict(self.hits)}")
            time.sleep(0.05)


@pytest.fixture
def hostile_service() -> Iterator[HostileService]:
    service = HostileService()
    yield service
    service.stop()
