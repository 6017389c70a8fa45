"""When the server stops, its streams end at once and in an order that lets their
clients come back elsewhere soonest (`Hub.close_streams`, `Hub.end_stream`)."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from games.live import hub as hub_module
from games.live.channels import Channel
from games.live.hub import Hub
from unoservice import stream_caps

ADDRESS = "198.18.7.1"


def with_a_hub(body: Callable[[Hub], Awaitable[Any]]) -> Any:
    async def run() -> Any:
        hub = Hub()
        try:
            return await body(hub)
        finally:
            hub.readers.shutdown(wait=True)
            hub.presence_writer.shutdown(wait=True)

    return asyncio.run(run())


def places_held(player_id: str) -> int:
    return len(stream_caps._memory.sets.get(stream_caps.player_key(player_id), {}))


def test_the_places_of_a_stopping_servers_streams_are_free_before_any_stream_is_woken(
    settings,
) -> None:
    settings.MAX_STREAMS_PER_PLAYER = 2
    player_id = str(uuid.uuid4())
    places = [stream_caps.take(player_id=player_id, address=ADDRESS) for _ in range(2)]

    async def stop(hub: Hub) -> int:
        channel = hub.channels[uuid.uuid4()] = Channel(uuid.uuid4())
        hub.places.update(places)
        woken = channel.changed
        hub.close_streams()
        await asyncio.wait_for(woken, 5)
        return places_held(player_id)

    assert places_held(player_id) == 2
    # A client that reconnects elsewhere the moment its stream ends finds its place.
    assert with_a_hub(stop) == 0


def freed_by_a_stream(
    player_id: str, *, server_stops: bool
) -> tuple[stream_caps.Place, list[stream_caps.Place]]:
    """A stream's place, and the places the hub freed one by one while the stream
    held it and ended (with the server stopping meanwhile, or not)."""
    place = stream_caps.take(player_id=player_id, address=ADDRESS)
    freed: list[stream_caps.Place] = []

    async def run(hub: Hub) -> None:
        hub.freeing.free = freed.append  # type: ignore[method-assign]
        with hub.hold(place):
            if server_stops:
                hub.close_streams()
                await asyncio.sleep(0.2)

    with_a_hub(run)
    return place, freed


def test_a_stream_closed_by_the_stop_does_not_free_its_place_a_second_time() -> None:
    player_id = str(uuid.uuid4())
    _, freed = freed_by_a_stream(player_id, server_stops=True)
    assert freed == []
    assert places_held(player_id) == 0


def test_a_stream_that_ends_while_the_server_runs_frees_its_place() -> None:
    place, freed = freed_by_a_stream(str(uuid.uuid4()), server_stops=False)
    assert freed == [place]


def test_when_the_server_stops_every_streams_end_is_written_before_any_closes_its_books() -> None:
    order: list[str] = []

    async def stop(hub: Hub) -> None:
        hub.close_streams()

        async def stream(name: str) -> None:
            async def send(message: dict[str, Any]) -> None:
                assert message == {"type": "http.response.body", "body": b""}
                order.append(f"{name} ended")

            await hub.end_stream(send)
            order.append(f"{name} closed its books")

        await asyncio.gather(*(stream(name) for name in "abc"))

    with_a_hub(stop)
    assert order == [
        "a ended",
        "b ended",
        "c ended",
        "a closed its books",
        "b closed its books",
        "c closed its books",
    ]


def test_a_stream_ended_while_the_server_runs_closes_its_books_at_once() -> None:
    order: list[str] = []

    async def run(hub: Hub) -> None:
        async def stream(name: str) -> None:
            async def send(message: dict[str, Any]) -> None:
                order.append(f"{name} ended")

            await hub.end_stream(send)
            order.append(f"{name} closed its books")

        await asyncio.gather(*(stream(name) for name in "ab"))

    with_a_hub(run)
    assert order == ["a ended", "a closed its books", "b ended", "b closed its books"]


def test_a_cache_that_does_not_answer_delays_the_end_of_the_streams_one_second_at_most(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    never = threading.Event()
    monkeypatch.setattr(stream_caps, "release", lambda places: never.wait(10))

    async def stop(hub: Hub) -> float:
        channel = hub.channels[uuid.uuid4()] = Channel(uuid.uuid4())
        woken = channel.changed
        started = time.monotonic()
        hub.close_streams()
        await asyncio.wait_for(woken, 5)
        took = time.monotonic() - started
        never.set()
        return took

    assert hub_module.CLOSE_RELEASE_WAIT_SECONDS <= with_a_hub(stop) < 3
