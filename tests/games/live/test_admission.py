"""Game streams that open together are checked together, in the order they came
(`games.live.admission`)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from games.live import access, admission
from tests.factories import Persona
from unoservice import stream_caps

pytestmark = pytest.mark.django_db(transaction=True)

GAME = str(uuid.uuid4())


def asked(persona: Persona | None, address: str = "198.18.9.1") -> access.Asked:
    headers = {} if persona is None else {"authorization": f"Bearer {persona.token}"}
    return access.Asked(GAME, headers, {}, {"REMOTE_ADDR": address})


async def on_a_thread(read: Callable[[], Any]) -> Any:
    def run() -> Any:
        try:
            return read()
        finally:
            connection.close()  # the test database is dropped after the tests

    return await asyncio.to_thread(run)


class Reader:
    """The hub's reader threads (one here), with the size of each batch read."""

    def __init__(self) -> None:
        self.batches: list[int] = []

    async def __call__(self, read: Callable[[], Any]) -> Any:
        answers = await on_a_thread(read)
        self.batches.append(len(answers))
        return answers


def admit_all(requests: list[access.Asked]) -> tuple[list[Any], Reader, list[Any]]:
    reader, released = Reader(), []

    async def run() -> list[Any]:
        gate = admission.Admission(reader, released.append)
        return list(await asyncio.gather(*(gate.admit(a) for a in requests)))

    answers = asyncio.run(run())
    stream_caps.release(a.place for a in answers if isinstance(a, admission.Admitted))
    return answers, reader, released


def test_openings_are_answered_in_the_order_they_came_a_batch_at_a_time(
    host: Persona, guest: Persona, settings
) -> None:
    settings.MAX_STREAMS_PER_PLAYER = 100
    settings.MAX_STREAMS_PER_ADDRESS = 1000
    personas = [host, guest] * (admission.BATCH // 2 + 3)

    answers, reader, _ = admit_all([asked(p) for p in personas])

    assert reader.batches == [admission.BATCH, 6]
    assert [a.watcher.player for a in answers] == [p.player for p in personas]
    assert all(a.game_id == uuid.UUID(GAME) and a.resume is None for a in answers)


def test_a_refused_opening_does_not_hold_up_the_others_beside_it(
    host: Persona, guest: Persona, outsider: Persona, settings
) -> None:
    settings.MAX_STREAMS_PER_PLAYER = 1
    unknown = access.Asked(GAME, {"authorization": "Bearer not-a-token"}, {}, {})

    answers, _, _ = admit_all([asked(host), unknown, asked(None), asked(host), asked(guest)])

    assert isinstance(answers[0], admission.Admitted)
    assert (answers[1].status, answers[1].body["error"]["code"]) == (401, "not_authenticated")
    assert answers[2].status == 401  # no credentials at all
    assert (answers[3].status, answers[3].body["error"]["code"]) == (429, "too_many_streams")
    assert answers[4].watcher.player == guest.player


def test_an_opening_whose_client_went_while_it_was_checked_frees_its_place(
    host: Persona,
) -> None:
    released: list[stream_caps.Place] = []

    async def run() -> None:
        waiting: list[asyncio.Task[Any]] = []

        async def read(check: Callable[[], Any]) -> Any:
            waiting[0].cancel()  # the client goes while its opening is checked
            return await on_a_thread(check)

        gate = admission.Admission(read, released.append)
        waiting.append(asyncio.create_task(gate.admit(asked(host))))
        with pytest.raises(asyncio.CancelledError):
            await waiting[0]
        await gate.draining  # type: ignore[misc]

    asyncio.run(run())

    assert len(released) == 1
    stream_caps.release(released)
