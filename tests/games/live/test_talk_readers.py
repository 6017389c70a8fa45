"""The streams' record of each reader's table-talk choices (`games.live.talk.Readers`):
read together for the streams that need them at once, and never kept from a read
that a change overtook."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from games.live import talk


class FakeReads:
    """The hub's reads, answering from `choices` (the hidden players of each reader),
    held until `release` while `hold` is set."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []
        self.choices: dict[str, frozenset[str]] = {}
        self.hold: asyncio.Event | None = None

    def preferences_of(self, ids: list[str]) -> dict[str, tuple[frozenset[str], bool]]:
        self.asked.append(sorted(ids))
        return {i: (self.choices.get(i, frozenset()), False) for i in ids}

    async def read(self, work: Callable[[], Any]) -> Any:
        answer = work()  # what the database said when the read was made
        if self.hold is not None:
            await self.hold.wait()
        return answer


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> FakeReads:
    fake = FakeReads()
    monkeypatch.setattr(talk, "talk_preferences_of", fake.preferences_of)
    return fake


def test_the_streams_woken_together_have_their_readers_choices_read_in_one_read(reads):
    async def scenario() -> list[talk.Preferences]:
        readers = talk.Readers(reads.read)
        found = await asyncio.gather(*(readers.of(f"p{n}") for n in range(20)), readers.of("p0"))
        again = await readers.of("p3")  # known now: no read
        return [*found, again]

    reads.choices["p3"] = frozenset({"p9"})
    found = asyncio.run(scenario())

    assert reads.asked == [sorted(f"p{n}" for n in range(20))]
    assert found[3].hidden == found[-1].hidden == frozenset({"p9"})
    assert found[0] is found[-2]  # the same reader asked twice in the turn: one answer


def test_choices_that_changed_while_being_read_are_read_again_next_time(reads):
    async def scenario() -> tuple[talk.Preferences, talk.Preferences]:
        readers = talk.Readers(reads.read)
        reads.hold = asyncio.Event()
        reading = asyncio.ensure_future(readers.of("ann"))
        await asyncio.sleep(0.01)  # the read is made, its answer held
        reads.choices["ann"] = frozenset({"bob"})  # Ann blocks Bob meanwhile:
        readers.forget(["ann"])  # the note comes before the stale answer
        reads.hold.set()
        stale = await reading
        return stale, await readers.of("ann")

    stale, fresh = asyncio.run(scenario())

    assert stale.hidden == frozenset()
    assert fresh.hidden == frozenset({"bob"})
    assert len(reads.asked) == 2


def test_a_failed_read_reaches_every_stream_waiting_and_the_next_one_tries_again(reads):
    async def scenario() -> talk.Preferences:
        readers = talk.Readers(reads.read)
        failing = reads.preferences_of

        def broken(ids: list[str]) -> Any:
            raise ConnectionError("the database went away")

        talk.talk_preferences_of = broken  # type: ignore[assignment]
        answers = await asyncio.gather(readers.of("a"), readers.of("b"), return_exceptions=True)
        assert [type(a) for a in answers] == [ConnectionError, ConnectionError]
        talk.talk_preferences_of = failing  # type: ignore[assignment]
        return await readers.of("a")

    assert asyncio.run(scenario()).hidden == frozenset()
    assert reads.asked == [["a"]]
