"""Caps on open streams, against the server command with two worker processes: one
player, or one client address, cannot hold more game streams, lobby streams and
waiting long polls together than its cap (docs/api.md, "Caps on open streams")."""

from __future__ import annotations

import contextlib
import http.client
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.factories import Persona, make_persona, start_game
from tests.served import Served, serving
from tests.support import wait_until
from unoclient.sse import StreamRefused, close, connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis, pytest.mark.slow]

Stream = tuple[http.client.HTTPConnection, http.client.HTTPResponse]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Served]:
    with serving(tmp_path, workers=2) as running:
        yield running


@pytest.fixture
def small_address_cap(tmp_path: Path) -> Iterator[Served]:
    with serving(tmp_path, {"MAX_STREAMS_PER_ADDRESS": "5"}, workers=2) as running:
        yield running


class Streams:
    """The streams a test opens, all closed at its end."""

    def __init__(self, server: Served) -> None:
        self.server = server
        self.open: list[Stream] = []

    def game(self, persona: Persona, game_id: str, forwarded: str | None = None) -> Stream:
        return self._open(f"/api/v1/games/{game_id}/stream", persona, forwarded)

    def lobby(self, persona: Persona) -> Stream:
        return self._open("/api/v1/players/me/stream", persona)

    def _open(self, path: str, persona: Persona, forwarded: str | None = None) -> Stream:
        headers = {"Authorization": f"Bearer {persona.token}"}
        if forwarded is not None:
            headers["X-Forwarded-For"] = forwarded
        stream = connect(self.server.url + path, headers)
        self.open.append(stream)
        return stream

    def refused(self, persona: Persona, game_id: str) -> StreamRefused:
        with pytest.raises(StreamRefused) as refused:
            self.game(persona, game_id)
        return refused.value

    def close(self, stream: Stream) -> None:
        self.open.remove(stream)
        close(*stream)

    def close_all(self) -> None:
        for stream in self.open:
            with contextlib.suppress(OSError):
                close(*stream)
        self.open.clear()


@pytest.fixture
def streams(server: Served) -> Iterator[Streams]:
    opened = Streams(server)
    yield opened
    opened.close_all()


def assert_too_many_streams(refused: StreamRefused) -> None:
    assert refused.status == 429
    assert refused.headers["content-type"].startswith("application/json")
    assert int(refused.headers["retry-after"]) >= 1
    error = refused.json()["error"]
    assert error["code"] == "too_many_streams"
    assert error["details"]["retry_after"] == int(refused.headers["retry-after"])


def test_one_player_holds_32_streams_and_the_rest_are_refused_until_one_closes(
    server: Served, streams: Streams
) -> None:
    host, guest = make_persona("Host"), make_persona("Guest")
    game_id = str(start_game(host, guest, seed=21).pk)
    held = [streams.game(host, game_id) for _ in range(31)]
    held.append(streams.lobby(host))  # lobby streams count with game streams

    refusals = [streams.refused(host, game_id) for _ in range(8)]
    for refused in refusals:
        assert_too_many_streams(refused)
    with pytest.raises(StreamRefused) as lobby_refused:
        streams.lobby(host)
    assert_too_many_streams(lobby_refused.value)
    # Another player is not held back by the host's streams.
    streams.game(guest, game_id)

    streams.close(held.pop(0))
    reopened: list[Stream] = []

    def reopen() -> bool:
        with contextlib.suppress(StreamRefused):
            reopened.append(streams.game(host, game_id))
        return bool(reopened)

    wait_until(reopen, "a place freed by a closed stream", 5, every=0.02)
    assert_too_many_streams(streams.refused(host, game_id))


def test_a_long_poll_that_would_wait_counts_against_the_cap(
    server: Served, streams: Streams
) -> None:
    host, guest = make_persona("Host"), make_persona("Guest")
    game = start_game(host, guest, seed=21)
    after = f"after={game.last_seq}"
    path = f"/api/v1/games/{game.pk}/events?{after}&wait=2"
    status, _, body = server.request("GET", path, token=host.token)
    assert status == 200
    assert body["events"] == []

    for _ in range(32):
        streams.game(host, str(game.pk))
    status, headers, body = server.request("GET", path, token=host.token)
    assert status == 429, body
    assert body["error"]["code"] == "too_many_streams"
    assert int(headers["retry-after"]) >= 1
    # A long poll that answers at once needs no place.
    status, _, body = server.request(
        "GET", f"/api/v1/games/{game.pk}/events?wait=2", token=host.token
    )
    assert status == 200
    assert body["events"]


def test_one_address_holds_its_cap_of_streams_whichever_players_open_them(
    small_address_cap: Served,
) -> None:
    opened = Streams(small_address_cap)
    try:
        players = [make_persona(f"P{n}") for n in range(3)]
        game_id = str(start_game(players[0], players[1], seed=21).pk)
        outcomes: list[StreamRefused | None] = []
        for _ in range(3):
            for persona in players:
                try:
                    opened.game(persona, game_id)
                    outcomes.append(None)
                except StreamRefused as refused:
                    outcomes.append(refused)
        assert outcomes.count(None) == 5
        refusals = [refused for refused in outcomes if refused is not None]
        assert len(refusals) == 4
        for refused in refusals:
            assert_too_many_streams(refused)
            assert refused.json()["error"]["details"] == {
                "retry_after": 10,
                "limit": 5,
                "per": "address",
            }

        opened.close(opened.open[0])
        wait_until(lambda: _opens(opened, players[2], game_id), "a place freed for the address", 5)
    finally:
        opened.close_all()


def _opens(opened: Streams, persona: Persona, game_id: str) -> bool:
    try:
        opened.game(persona, game_id)
    except StreamRefused:
        return False
    return True


def test_behind_a_proxy_one_ipv6_network_holds_one_address_cap_of_streams(
    tmp_path: Path,
) -> None:
    env = {"MAX_STREAMS_PER_ADDRESS": "3", "NUM_PROXIES": "1"}
    with serving(tmp_path, env, workers=2) as server:
        opened = Streams(server)
        try:
            players = [make_persona(f"P{n}") for n in range(4)]
            game_id = str(start_game(players[0], players[1], seed=21).pk)
            for n, persona in enumerate(players[:3]):
                opened.game(persona, game_id, forwarded=f"2001:db8:1:2::{n + 1}")
            with pytest.raises(StreamRefused) as refused:
                opened.game(players[3], game_id, forwarded="2001:db8:1:2:ffff::1")
            assert_too_many_streams(refused.value)
            assert refused.value.json()["error"]["details"]["per"] == "address"
            # Another /64 has a cap of its own, as another IPv4 address has.
            opened.game(players[3], game_id, forwarded="2001:db8:1:3::1")
            for n in range(3):
                opened.game(players[3], game_id, forwarded=f"198.51.100.{n + 1}")
        finally:
            opened.close_all()
