"""Signing out everywhere, signing one device out and disabling a player end the
streams opened before, in every process of the server command (two workers here):
game streams and lobby streams opened with the old token or with tickets it issued,
and no other device's."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import transaction
from rest_framework.test import APIClient

from players import services, sessions
from tests.factories import Persona, make_persona, start_game
from tests.served import Served, serving
from tests.support import wait_until
from unoclient.sse import StreamRefused, close, connect, messages

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis, pytest.mark.slow]

# More streams than workers: the kernel hands them to both processes.
STREAMS = 6


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Served]:
    with serving(tmp_path, workers=2) as running:
        yield running


class Watched:
    """A stream read to its end on a thread of its own."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.connection, self.response = connect(url, headers, timeout=30)
        self.ended = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for _ in messages(self.response):
                pass
        except (OSError, ValueError, AttributeError):
            pass
        self.ended.set()

    def close(self) -> None:
        close(self.connection, self.response)


def open_streams(server: Served, persona: Persona, game_id: str) -> list[Watched]:
    header = {"Authorization": f"Bearer {persona.token}"}
    game_url = f"{server.url}/api/v1/games/{game_id}/stream"
    lobby_url = f"{server.url}/api/v1/players/me/stream"
    watched = [Watched(game_url, header) for _ in range(STREAMS)]
    watched.append(Watched(lobby_url, header))
    game_ticket = persona.post(f"/games/{game_id}/stream-ticket").json()["ticket"]
    watched.append(Watched(f"{game_url}?ticket={game_ticket}"))
    lobby_ticket = persona.post("/players/me/stream-ticket").json()["ticket"]
    watched.append(Watched(f"{lobby_url}?ticket={lobby_ticket}"))
    return watched


@pytest.fixture
def players() -> tuple[Persona, Persona, str]:
    host, guest = make_persona("Host"), make_persona("Guest")
    return host, guest, str(start_game(host, guest, seed=21).pk)


def test_a_new_token_ends_every_stream_of_the_old_one_in_every_process(
    server: Served, players: tuple[Persona, Persona, str]
) -> None:
    host, guest, game_id = players
    old = open_streams(server, host, game_id)
    others = [
        Watched(
            f"{server.url}/api/v1/games/{game_id}/stream",
            {"Authorization": f"Bearer {guest.token}"},
        )
    ]
    try:
        status, _, body = server.request("POST", "/api/v1/players/me/token", token=host.token)
        assert status == 200, body
        wait_until(lambda: all(s.ended.is_set() for s in old), "the old token's streams end", 2)
        # Reopening with the old token is refused; the new one opens a stream.
        with pytest.raises(StreamRefused) as refused:
            connect(
                f"{server.url}/api/v1/games/{game_id}/stream",
                {"Authorization": f"Bearer {host.token}"},
            )
        assert refused.value.status == 401
        fresh = Watched(
            f"{server.url}/api/v1/games/{game_id}/stream",
            {"Authorization": f"Bearer {body['token']}"},
        )
        others.append(fresh)
        assert not any(s.ended.wait(0.5) for s in others)
    finally:
        for stream in old + others:
            stream.close()


def test_disabling_a_player_ends_their_streams_in_every_process(
    server: Served, players: tuple[Persona, Persona, str]
) -> None:
    host, guest, game_id = players
    held = open_streams(server, host, game_id)
    guests = Watched(
        f"{server.url}/api/v1/games/{game_id}/stream", {"Authorization": f"Bearer {guest.token}"}
    )
    try:
        services.player_disable(player_id=host.player.pk, by="operator", reason="abuse")
        wait_until(lambda: all(s.ended.is_set() for s in held), "the player's streams end", 2)
        with pytest.raises(StreamRefused) as refused:
            connect(
                f"{server.url}/api/v1/players/me/stream", {"Authorization": f"Bearer {host.token}"}
            )
        assert refused.value.status == 401
        assert refused.value.json()["error"]["code"] == "player_disabled"
        assert not guests.ended.wait(0.5)
    finally:
        for stream in [*held, guests]:
            stream.close()


def test_signing_one_device_out_ends_its_streams_in_every_process_and_no_other_devices(
    server: Served, players: tuple[Persona, Persona, str]
) -> None:
    host, _, game_id = players
    with transaction.atomic():
        _, tablet_token = sessions.session_open(player=host.player, name="tablet", network="")
    tablet_client = APIClient(REMOTE_ADDR="198.18.255.1")
    tablet_client.credentials(HTTP_AUTHORIZATION=f"Bearer {tablet_token}")
    tablet = Persona(host.player, tablet_token, tablet_client)
    on_phone = open_streams(server, host, game_id)
    on_tablet = open_streams(server, tablet, game_id)
    try:
        status, _, listed = server.request("GET", "/api/v1/players/me/sessions", token=host.token)
        assert status == 200, listed
        tablet_session = next(s for s in listed if s["device"] == "tablet")
        status, _, body = server.request(
            "DELETE", f"/api/v1/players/me/sessions/{tablet_session['id']}", token=host.token
        )
        assert status == 204, body
        wait_until(lambda: all(s.ended.is_set() for s in on_tablet), "the tablet's streams end", 2)
        assert not any(s.ended.wait(0.5) for s in on_phone)
        with pytest.raises(StreamRefused) as refused:
            connect(
                f"{server.url}/api/v1/players/me/stream",
                {"Authorization": f"Bearer {tablet_token}"},
            )
        assert refused.value.status == 401
    finally:
        for stream in on_phone + on_tablet:
            stream.close()
