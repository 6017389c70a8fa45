"""Combining: requests that must be done one after another are done together.

Quick match serializes the requests for one set of settings (an advisory lock on
PostgreSQL), because each must see the seats the one before it took. Done one at a
time, a crowd forms a queue whose every member pays a whole transaction under the
lock. A `Combiner` lets the threads of one process that wait for the same key hand
their requests to one of them, the leader, which takes the lock once and serves the
whole batch in one transaction (group commit, as databases do for their log): the
longer the queue, the more each transaction serves. Processes still take turns
through the lock, one batch each.

How one key's requests flow through a process:

1. A request joins the key's queue. If no thread leads the key, its thread becomes
   the leader; the others wait on their ticket.
2. The leader calls `serve(key, take)`. `serve` takes the lock the batch needs, then
   calls `take()`, which empties the queue (the leader's own request included, and
   every request that came while it waited for the lock), and returns one result
   per request, or the error that request alone met, once the batch is committed.
3. The leader hands each waiter its result. If requests came meanwhile, it passes
   the lead to the first of them (whose thread wakes and leads the next batch);
   otherwise the key has no leader until the next request.

If `serve` fails as a whole (a lost connection, a bug), the leader's own request
gets the exception, and the others go back to the front of the queue for the next
leader: none is lost, and none gets an answer for a batch that did not commit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)
Request = TypeVar("Request")
Result = TypeVar("Result")


class _Ticket(Generic[Request, Result]):
    __slots__ = ("answer", "leads", "ready", "request")

    def __init__(self, request: Request) -> None:
        self.request = request
        self.ready = threading.Event()
        self.answer: Result | BaseException | None = None
        self.leads = False


class Combiner(Generic[Key, Request, Result]):
    """Serves the requests of one process in batches, one batch at a time per key.

    `serve(key, take)` serves one batch: it calls `take()` once, when the batch may
    be formed (after taking its lock), and returns an answer per request taken, in
    the order taken. It runs on the leader's thread, whose database connection it
    uses."""

    def __init__(
        self,
        serve: Callable[[Key, Callable[[], list[Request]]], Sequence[Result | BaseException]],
    ) -> None:
        self._serve = serve
        self._guard = threading.Lock()
        self._queues: dict[Key, list[_Ticket[Request, Result]]] = {}
        self._leading: set[Key] = set()
        self.batches = 0  # served so far (for tests and measurements)

    def submit(self, key: Key, request: Request) -> Result:
        """Serve `request` in a batch of `key`; returns its result or raises its error."""
        ticket: _Ticket[Request, Result] = _Ticket(request)
        with self._guard:
            self._queues.setdefault(key, []).append(ticket)
            ticket.leads = key not in self._leading
            self._leading.add(key)
        if not ticket.leads:
            ticket.ready.wait()
            if not ticket.leads:
                answer: Result | BaseException | None = ticket.answer
                return _unwrap(answer)
        return self._lead(key, ticket)

    def serve_alone(self, key: Key, request: Request) -> Result:
        """Serve `request` in a batch of its own, on this thread, outside the queue:
        for a caller whose own transaction will hold what the batch writes, so that
        no other request may be answered before it commits."""
        answers = self._serve(key, lambda: [request])
        if len(answers) != 1:
            raise RuntimeError(f"a batch of 1 got {len(answers)} answers")
        return _unwrap(answers[0])

    def _lead(self, key: Key, mine: _Ticket[Request, Result]) -> Result:
        batch: list[_Ticket[Request, Result]] = []

        def take() -> list[Request]:
            with self._guard:
                batch.extend(self._queues.pop(key, []))
            return [ticket.request for ticket in batch]

        try:
            answers = self._serve(key, take)
            if len(answers) != len(batch):
                raise RuntimeError(f"a batch of {len(batch)} got {len(answers)} answers")
        except BaseException:
            with self._guard:
                # The others wait for the next leader; this request ends here.
                others = [ticket for ticket in batch if ticket is not mine]
                queued = [ticket for ticket in self._queues.get(key, []) if ticket is not mine]
                self._queues[key] = others + queued
                self._pass_lead(key)
            raise
        own: Result | BaseException | None = None
        for ticket, answer in zip(batch, answers, strict=True):
            if ticket is mine:
                own = answer
            else:
                ticket.answer = answer
                ticket.ready.set()
        with self._guard:
            self._pass_lead(key)
        self.batches += 1
        return _unwrap(own)

    def _pass_lead(self, key: Key) -> None:
        """Wake the first waiter of `key` as its next leader, or leave it leaderless
        (the caller holds the guard)."""
        queue = self._queues.get(key)
        if not queue:
            self._queues.pop(key, None)
            self._leading.discard(key)
            return
        first = queue[0]
        first.leads = True
        first.ready.set()


def _unwrap(answer: Result | BaseException | None) -> Result:
    if isinstance(answer, BaseException):
        raise answer
    if answer is None:
        raise RuntimeError("a request of the batch got no answer")
    return answer
