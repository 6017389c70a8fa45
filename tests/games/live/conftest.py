"""A real server for the live tests: the service's ASGI application under uvicorn,
in a thread of the test process, on the test database (tests here commit, so that
the server's own connections see what they write)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.factories import Persona, start_game
from tests.support import free_port, wait_until


def auth(persona: Persona) -> dict[str, str]:
    """The header that sends `persona`'s token."""
    return {"Authorization": f"Bearer {persona.token}"}


@pytest.fixture
def two_players(host: Persona, guest: Persona) -> str:
    """A started one-round game of the host and the guest; its id."""
    return str(start_game(host, guest, seed=21).pk)


@dataclass
class LiveServer:
    url: str
    port: int

    def stream_url(self, game_id: str, query: str = "") -> str:
        return f"{self.url}/api/v1/games/{game_id}/stream" + (f"?{query}" if query else "")


@pytest.fixture
def live(transactional_db: None) -> Iterator[LiveServer]:
    import uvicorn

    from unoservice.asgi import application

    port = free_port()
    config = uvicorn.Config(
        application,
        host="127.0.0.1",
        port=port,
        lifespan="on",
        proxy_headers=False,
        log_level="warning",
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started or not thread.is_alive(), "the ASGI server", 10, every=0.02)
    if not server.started:
        raise RuntimeError("the ASGI server did not start")
    yield LiveServer(f"http://127.0.0.1:{port}", port)
    server.should_exit = True
    thread.join(timeout=10)
