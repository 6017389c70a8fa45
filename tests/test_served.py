"""The served service of the tests (tests/served.py): a server whose port another
process took between its choice and the bind starts on another port."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from bench import processes
from tests import served as served_module
from tests.served import serving


def test_a_server_whose_port_was_taken_meanwhile_starts_on_another(
    tmp_path: Path, django_db_setup: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        offered = iter([taken])
        monkeypatch.setattr(
            served_module, "free_port", lambda: next(offered, None) or processes.free_port()
        )
        with serving(tmp_path) as served:
            assert served.port != taken
            status, _, _ = served.request("GET", "/healthz")
            assert status in (200, 503)
