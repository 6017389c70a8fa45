"""Quick-match requests are served on a pool of threads of their own (they wait for
each other by design, unoservice/asgi.py); every other request on the API's."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from tests.factories import Persona
from tests.games.live.conftest import LiveServer, auth
from unoservice import asgi


def post(live: LiveServer, persona: Persona, path: str, body: Any) -> tuple[int, Any]:
    request = urllib.request.Request(
        f"{live.url}/api/v1{path}",
        data=json.dumps(body).encode(),
        headers={**auth(persona), "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


def test_a_quick_match_request_goes_to_the_quick_match_pool_and_a_game_creation_does_not(
    live: LiveServer, host: Persona, monkeypatch: pytest.MonkeyPatch
):
    served: list[tuple[str, str]] = []

    def spy(pool: Any, name: str) -> Any:
        async def serve(scope: dict[str, Any], receive: Any, send: Any) -> None:
            served.append((name, scope["path"]))
            await pool(scope, receive, send)

        return serve

    # Undone before the server stops: its shutdown stops the pools themselves.
    with monkeypatch.context() as patched:
        patched.setattr(asgi, "matchmaking", spy(asgi.matchmaking, "match"))
        patched.setattr(asgi, "api", spy(asgi.api, "api"))
        status, view = post(live, host, "/matchmaking", {"max_players": 2})
        assert (status, view["quick_match"]) == (200, True)
        status, view = post(live, host, "/games", {})
        assert (status, view["quick_match"]) == (201, False)

    assert served == [("match", "/api/v1/matchmaking"), ("api", "/api/v1/games")]
