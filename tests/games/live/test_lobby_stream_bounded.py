"""A lobby stream's memory stays bounded whatever its player does (docs/api.md, "The
lobby stream"): games they leave, and games that end beyond the few that can still
be offered a rematch, are no longer followed, and their channels are let go."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from games import selectors
from games.live import hearing
from games.live import hub as hub_module
from tests.factories import Persona, finish_game, start_game
from tests.games.live.conftest import LiveServer, auth
from tests.games.live.test_lobby_stream import Lobby
from tests.support import wait_until

pytestmark = pytest.mark.django_db(transaction=True)

GAMES = 40


def held_channels(game_ids: set[uuid.UUID]) -> set[uuid.UUID]:
    """Which of these games the server's hub still holds a channel for."""
    return set(hub_module.hub().channels) & game_ids


def catch_up() -> None:
    """Run the hub's catch-up now (it runs on its own every few seconds)."""
    live = hub_module.hub()
    loop = live.tasks[0].get_loop()
    asyncio.run_coroutine_threadsafe(hearing.catch_up(live), loop).result(timeout=10)


def test_games_created_and_left_with_the_lobby_open_are_let_go(
    live: LiveServer, host: Persona, rate_limits_off: None
) -> None:
    lobby = Lobby(live, auth(host))
    try:
        created: set[uuid.UUID] = set()
        for _ in range(GAMES):
            answer = host.post("/games", {})
            assert answer.status_code == 201, answer.json()
            game_id = answer.json()["id"]
            created.add(uuid.UUID(game_id))
            assert host.post(f"/games/{game_id}/leave").status_code == 200
        # Each was followed from its creation (the player's channel heard of it) ...
        wait_until(lambda: not held_channels(created), "the left games let go", 10, every=0.05)
        catch_up()
        mine = hub_module.hub().players[str(host.player.pk)]
        # ... and neither the stream nor the player's channel keeps any of them.
        assert not mine.games & created
        assert not mine.heard_at
    finally:
        lobby.close()


def test_of_the_games_that_end_only_the_last_few_are_followed_for_a_rematch(
    live: LiveServer, host: Persona, guest: Persona, rate_limits_off: None
) -> None:
    lobby = Lobby(live, auth(host))
    try:
        finished: list[uuid.UUID] = []
        for _ in range(selectors.LOBBY_RECENT_GAMES + 5):
            game = start_game(host, guest, seed=21)
            finish_game(game, 0, host)
            finished.append(game.pk)
        for _ in finished:
            lobby.until("game_finished")
        kept = held_channels(set(finished))
        assert kept == set(finished[-selectors.LOBBY_RECENT_GAMES :])
    finally:
        lobby.close()
