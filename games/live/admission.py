"""Game streams that open together are admitted together, in the order they came.

A stream's opening checks its token, counts it against its player's rate and takes
its place under the caps on open streams (`games.live.access`,
`unoservice.stream_caps`): a query and a few cache round trips, on a reader thread.
Each stream making its own trips, a crowd (every client of a restarted server
coming back at once) queued each stream's second trip behind every other stream's
first, so that all of them waited for all of them; and each trip cost a thread
hand-off and its system calls.

Here openings wait in one queue, in arrival order, and are checked `BATCH` at a
time in one trip to a reader thread: one query for all their tokens, one pipeline
for all their places. The first to come are the first served, at most `BATCH` are
being checked at once, and the checks of a crowd cost a fraction of what they cost
one by one.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from games.live import access
from unoservice import stream_caps
from unoservice.client_address import group_in
from unoservice.errors import InternalError, ServiceError

log = logging.getLogger(__name__)

# Openings checked together: enough to spread a query and a round trip over many
# streams, few enough that the first in a crowd are answered within milliseconds.
BATCH = 64


@dataclass
class Admitted:
    """A stream let in: who watches which game from where, and its place."""

    watcher: access.Watcher
    game_id: Any  # uuid.UUID
    resume: int | None
    place: stream_caps.Place


@dataclass
class _Waiting:
    asked: access.Asked
    answer: asyncio.Future[Admitted | access.Refusal] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class Admission:
    """The queue of one process's openings (used on the event loop)."""

    def __init__(
        self,
        read: Callable[[Callable[[], Any]], Any],
        release: Callable[[stream_caps.Place], None],
    ) -> None:
        self.read = read  # the hub's: run on a reader thread
        self.release = release  # a place taken for a client that has gone
        self.waiting: collections.deque[_Waiting] = collections.deque()
        self.draining: asyncio.Task[None] | None = None

    async def admit(self, asked: access.Asked) -> Admitted | access.Refusal:
        waiting = _Waiting(asked)
        self.waiting.append(waiting)
        if self.draining is None or self.draining.done():
            self.draining = asyncio.create_task(self._drain())
        return await waiting.answer

    async def _drain(self) -> None:
        while self.waiting:
            batch = [self.waiting.popleft() for _ in range(min(BATCH, len(self.waiting)))]
            batch = [w for w in batch if not w.answer.done()]  # their clients went
            if not batch:
                continue
            asked = [w.asked for w in batch]
            try:
                answers: list[Admitted | access.Refusal] = await self.read(
                    functools.partial(check, asked)
                )
            except Exception:
                log.exception("stream admission failed")
                answers = [access.refusal(InternalError())] * len(batch)
            for waiting, answer in zip(batch, answers, strict=True):
                if not waiting.answer.done():
                    waiting.answer.set_result(answer)
                elif isinstance(answer, Admitted):
                    self.release(answer.place)


def check(asked: list[access.Asked]) -> list[Admitted | access.Refusal]:
    """The answer to each of these openings, in order (blocking: a reader thread's)."""
    checked = access.open_streams(asked)
    let_in = [(n, c) for n, c in enumerate(checked) if not isinstance(c, access.Refusal)]
    wanted = []
    for n, (watcher, _, _) in let_in:
        player_id = None if watcher.player is None else watcher.player.pk
        wanted.append((player_id, group_in(asked[n].meta)))
    places = stream_caps.take_many(wanted)
    answers: list[Admitted | access.Refusal | None] = [
        c if isinstance(c, access.Refusal) else None for c in checked
    ]
    for (n, (watcher, game_id, resume)), place in zip(let_in, places, strict=True):
        if isinstance(place, ServiceError):
            answers[n] = access.refusal(place)
        else:
            answers[n] = Admitted(watcher, game_id, resume, place)
    return [access.refusal(InternalError()) if a is None else a for a in answers]
