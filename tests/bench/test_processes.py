"""bench.processes: waiting for a local server to answer."""

from __future__ import annotations

import http.client
import socket

import pytest

from bench.processes import wait_until


def test_a_server_not_answering_http_yet_is_waited_for_not_failed_on():
    tries: list[int] = []

    def answers() -> bool:
        tries.append(1)
        if len(tries) == 1:
            raise ConnectionRefusedError  # nothing listens yet
        if len(tries) == 2:
            # Connected to itself: the request line read back as the status line.
            raise http.client.BadStatusLine("GET /healthz HTTP/1.1")
        return True

    wait_until(answers, "the server", 5, every=0.01)
    assert len(tries) == 3


def test_a_socket_connected_to_itself_reads_back_what_it_sent():
    """Why the above: on Linux a connection to a free local port may pick that very
    port as its source and connect to itself."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.connect(("127.0.0.1", port))
        sock.sendall(b"GET /healthz HTTP/1.1\r\n\r\n")
        assert sock.recv(64).startswith(b"GET /healthz")


def test_waiting_in_vain_names_what_was_waited_for():
    with pytest.raises(TimeoutError, match="the server: not within"):
        wait_until(lambda: False, "the server", 0.05, every=0.01)
