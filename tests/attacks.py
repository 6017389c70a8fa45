"""Attacks on a server's connections, as a client without a login would make them.

Each sends over raw sockets, stops by itself (bounded in bytes and in time), and
returns what the server answered, so that a test can check the refusal and the
server's memory around it. `python -m tests.attacks PORT PID` runs them all against
a server already running and prints the worker's memory growth of each."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

CHUNK = 64 * 1024


@dataclass
class Outcome:
    """What one connection of an attack got: the server's first bytes (its answer's
    head, if any), how much of the attack it took, and whether it closed."""

    answer: bytes = b""
    sent: int = 0
    closed: bool = False

    @property
    def status(self) -> int | None:
        if not self.answer.startswith(b"HTTP/1.1 "):
            return None
        return int(self.answer[9:12])


def connect(port: int, source: str = "127.0.0.1", timeout: float = 30) -> socket.socket:
    sock = socket.create_connection(
        ("127.0.0.1", port), timeout=timeout, source_address=(source, 0)
    )
    sock.settimeout(timeout)
    return sock


def _finish(sock: socket.socket, outcome: Outcome, wait: float) -> Outcome:
    """Read what the server says until it closes (or `wait` seconds pass)."""
    sock.settimeout(wait)
    try:
        while True:
            data = sock.recv(CHUNK)
            if not data:
                outcome.closed = True
                break
            outcome.answer += data
    except ConnectionResetError:  # closed with the attack unread
        outcome.closed = True
    except OSError:
        pass
    sock.close()
    return outcome


def _send_until_refused(sock: socket.socket, chunks: Iterator[bytes], most: int) -> Outcome:
    """Send `chunks` until the server answers or closes, or `most` bytes went."""
    outcome = Outcome()
    sock.setblocking(False)
    try:
        for chunk in chunks:
            if outcome.sent >= most:
                break
            with contextlib.suppress(BlockingIOError):
                data = sock.recv(CHUNK)
                if not data:
                    outcome.closed = True
                    return outcome
                outcome.answer += data
                break
            try:
                sock.setblocking(True)
                sock.settimeout(5)
                sock.sendall(chunk)
                sock.setblocking(False)
            except OSError:  # reset, or a send that the server never read
                break
            outcome.sent += len(chunk)
    finally:
        sock.setblocking(True)
    return _finish(sock, outcome, 5)


def endless_headers(port: int, *, most: int = 64 * 1024 * 1024) -> Outcome:
    """One connection sending header lines for ever, never the blank line."""
    line = b"X-Filler: " + b"v" * 90 + b"\r\n"
    lines = line * (CHUNK // len(line))

    def chunks() -> Iterator[bytes]:
        yield b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        while True:
            yield lines

    return _send_until_refused(connect(port), chunks(), most)


def long_request_line(port: int, *, length: int = 40 * 1024 * 1024) -> Outcome:
    """A request line of `length` bytes (40 MB)."""

    def chunks() -> Iterator[bytes]:
        yield b"GET /"
        while True:
            yield b"a" * CHUNK

    return _send_until_refused(connect(port), chunks(), length)


def stalled_bodies(
    port: int, *, connections: int = 30, declared: int, sent: int, wait: float = 60
) -> list[Outcome]:
    """`connections` connections, each declaring a body of `declared` bytes, sending
    `sent` of them, then nothing: how each ended (the server's answer, or nothing
    within `wait` seconds)."""
    head = (
        b"POST /api/v1/players HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % declared
    )
    sockets = [connect(port) for _ in range(connections)]
    outcomes = [Outcome() for _ in sockets]
    body = b"x" * CHUNK

    def feed(sock: socket.socket, outcome: Outcome) -> None:
        try:
            sock.sendall(head)
            while outcome.sent < sent:
                piece = body[: min(CHUNK, sent - outcome.sent)]
                sock.sendall(piece)
                outcome.sent += len(piece)
        except OSError:
            pass

    threads = [
        threading.Thread(target=feed, args=pair) for pair in zip(sockets, outcomes, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    deadline = time.monotonic() + wait
    return [
        _finish(sock, outcome, max(deadline - time.monotonic(), 0.1))
        for sock, outcome in zip(sockets, outcomes, strict=True)
    ]


def silent_connections(port: int, *, count: int, half_head: bool, wait: float) -> list[Outcome]:
    """`count` connections that send nothing (or half a head), then wait up to `wait`
    seconds for the server to close them."""
    sockets = [connect(port) for _ in range(count)]
    for sock in sockets:
        if half_head:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ")
    deadline = time.monotonic() + wait
    return [_finish(sock, Outcome(), max(deadline - time.monotonic(), 0.1)) for sock in sockets]


@dataclass
class HealthWatch:
    """/healthz asked every `every` seconds on fresh connections, while an attack runs."""

    port: int
    every: float = 0.2
    statuses: list[int | str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> HealthWatch:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                sock = connect(self.port, source="127.0.0.9", timeout=10)
                sock.sendall(
                    b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                )
                self.statuses.append(_finish(sock, Outcome(), 10).status or "no answer")
            except OSError as error:
                self.statuses.append(type(error).__name__)
            self._stop.wait(self.every)


@dataclass
class Growth:
    """How much a process's resident memory grew over an attack: at its highest while
    the attack ran, and after it (once the server was done with it)."""

    peak: int
    after: int

    def __str__(self) -> str:
        return f"+{self.peak / 1e6:.1f} MB at the peak, {self.after / 1e6:+.1f} MB after"


def memory_growth(pid: int, attack: Callable[[], object], settle: Callable[[], None]) -> Growth:
    """The growth of process `pid`'s resident memory over `attack`, sampled every
    50 ms while it runs, and read again after `settle()`."""
    from tests.served import rss_bytes

    before = highest = rss_bytes(pid)
    done = threading.Event()

    def sample() -> None:
        nonlocal highest
        while not done.wait(0.05):
            highest = max(highest, rss_bytes(pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        attack()
    finally:
        done.set()
        sampler.join()
    settle()
    return Growth(peak=highest - before, after=rss_bytes(pid) - before)


def _main(port: int, pid: int) -> None:
    def settle() -> None:
        time.sleep(1)

    attacks: dict[str, Callable[[], object]] = {
        "endless header lines": lambda: endless_headers(port),
        "40 MB request line": lambda: long_request_line(port),
        "30 stalled bodies of 10 MB": lambda: stalled_bodies(
            port, declared=10 * 1024 * 1024, sent=10 * 1024 * 1024 - 1024, wait=40
        ),
        "30 stalled bodies just under 2.5 MB": lambda: stalled_bodies(
            port, declared=2_621_440, sent=2_621_440 - 1024, wait=40
        ),
    }
    for name, attack in attacks.items():
        started = time.monotonic()
        growth = memory_growth(pid, attack, settle)
        print(f"{name}: {growth}, in {time.monotonic() - started:.1f} s")
    for half in (False, True):
        started = time.monotonic()
        outcomes = silent_connections(port, count=5, half_head=half, wait=40)
        closed = sum(o.closed for o in outcomes)
        what = "half a head" if half else "nothing"
        took = time.monotonic() - started
        print(f"5 connections sending {what}: {closed} closed within {took:.1f} s")


if __name__ == "__main__":
    _main(int(sys.argv[1]), int(sys.argv[2]))
