"""The combiner: requests for one key that arrive while a batch is being served are
served together in the next, each gets its own answer or error, and none is lost
when a batch fails (games/combining.py). Plain threads, no database."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from games.combining import Combiner

JOIN_TIMEOUT = 10.0


class Refused(Exception):
    """The error one request alone meets."""


class Server:
    """A `serve` function that records its batches; the first batch of each key can
    be held until released, so that requests pile up behind it."""

    def __init__(self, *, hold_first: bool = False, fail_batch: int | None = None) -> None:
        self.batches: list[tuple[str, list[int]]] = []
        self.hold_first = hold_first
        self.fail_batch = fail_batch  # this batch (1, 2, ...) fails as a whole
        self.serving = threading.Event()
        self.release = threading.Event()
        self.guard = threading.Lock()

    def __call__(self, key: str, take: Callable[[], list[int]]) -> list[Any]:
        requests = take()
        with self.guard:
            first = not any(k == key for k, _ in self.batches)
            self.batches.append((key, requests))
        if first and self.hold_first:  # the batch is being served: others queue
            self.serving.set()
            assert self.release.wait(JOIN_TIMEOUT)
        if len(self.batches) == self.fail_batch:
            raise ConnectionError("the batch failed as a whole")
        return [Refused(n) if n < 0 else (key, n * 10) for n in requests]


class Submitted:
    """Requests submitted each on a thread of its own, and their answers or errors."""

    def __init__(self, combiner: Combiner[str, int, Any], calls: list[tuple[str, int]]) -> None:
        self.answers: dict[int, Any] = {}
        self.threads = [threading.Thread(target=self._submit, args=(combiner, *c)) for c in calls]
        for thread in self.threads:
            thread.start()

    def _submit(self, combiner: Combiner[str, int, Any], key: str, request: int) -> None:
        try:
            self.answers[request] = combiner.submit(key, request)
        except BaseException as error:  # the test reads it
            self.answers[request] = error

    def join(self) -> dict[int, Any]:
        for thread in self.threads:
            thread.join(JOIN_TIMEOUT)
        assert not any(thread.is_alive() for thread in self.threads)
        return self.answers


def submit_all(combiner: Combiner[str, int, Any], calls: list[tuple[str, int]]) -> dict[int, Any]:
    return Submitted(combiner, calls).join()


def queued(combiner: Combiner[str, int, Any], key: str, count: int) -> None:
    """Wait until `count` requests of `key` wait in the combiner's queue."""
    deadline = time.monotonic() + JOIN_TIMEOUT
    while len(combiner._queues.get(key, [])) < count and time.monotonic() < deadline:
        time.sleep(0.001)
    assert len(combiner._queues.get(key, [])) == count


def test_a_request_alone_is_served_alone_by_its_own_thread():
    server = Server()
    combiner: Combiner[str, int, Any] = Combiner(server)
    assert combiner.submit("a", 1) == ("a", 10)
    assert server.batches == [("a", [1])]


def test_requests_that_arrive_while_a_batch_is_served_are_served_together_in_the_next():
    server = Server(hold_first=True)
    combiner: Combiner[str, int, Any] = Combiner(server)
    first = Submitted(combiner, [("a", 1)])
    assert server.serving.wait(JOIN_TIMEOUT)
    others = Submitted(combiner, [("a", n) for n in range(2, 9)])
    queued(combiner, "a", 7)
    server.release.set()
    assert first.join() == {1: ("a", 10)}
    rest = others.join()

    assert server.batches[0] == ("a", [1])
    assert [key for key, _ in server.batches] == ["a", "a"]
    assert sorted(server.batches[1][1]) == list(range(2, 9))
    assert rest == {n: ("a", n * 10) for n in range(2, 9)}  # each its own answer
    assert combiner.batches == 2


def test_an_error_one_request_meets_is_raised_in_its_thread_only():
    server = Server(hold_first=True)
    combiner: Combiner[str, int, Any] = Combiner(server)
    first = Submitted(combiner, [("a", 1)])
    assert server.serving.wait(JOIN_TIMEOUT)
    others = Submitted(combiner, [("a", 2), ("a", -3), ("a", 4)])
    queued(combiner, "a", 3)
    server.release.set()
    answers = others.join()
    first.join()

    assert isinstance(answers[-3], Refused)
    assert answers[2] == ("a", 20)
    assert answers[4] == ("a", 40)


def test_when_a_batch_fails_its_leader_gets_the_error_and_the_others_are_served_next():
    server = Server(hold_first=True, fail_batch=2)
    combiner: Combiner[str, int, Any] = Combiner(server)
    first = Submitted(combiner, [("a", 1)])
    assert server.serving.wait(JOIN_TIMEOUT)
    others = Submitted(combiner, [("a", 2), ("a", 3), ("a", 4)])
    queued(combiner, "a", 3)
    server.release.set()
    assert first.join() == {1: ("a", 10)}
    answers = others.join()

    _, failed = server.batches[1]
    assert sorted(failed) == [2, 3, 4]  # the second batch, which failed
    [leader] = [n for n, answer in answers.items() if isinstance(answer, ConnectionError)]
    assert {n: a for n, a in answers.items() if n != leader} == {
        n: ("a", n * 10) for n in (2, 3, 4) if n != leader
    }
    assert sorted(server.batches[2][1]) == sorted(n for n in (2, 3, 4) if n != leader)
    assert not combiner._queues
    assert not combiner._leading


def test_a_batch_that_fails_before_it_takes_its_requests_loses_none_of_the_others():
    calls = []

    def serve(key: str, take: Callable[[], list[int]]) -> list[Any]:
        calls.append(key)
        if len(calls) == 1:
            time.sleep(0.05)  # the others queue meanwhile
            raise ConnectionError("no lock")
        return [(key, n) for n in take()]

    combiner: Combiner[str, int, Any] = Combiner(serve)
    answers = submit_all(combiner, [("a", n) for n in range(1, 6)])

    failed = [n for n, answer in answers.items() if isinstance(answer, ConnectionError)]
    assert len(failed) == 1
    assert {n: answers[n] for n in answers if n not in failed} == {
        n: ("a", n) for n in range(1, 6) if n not in failed
    }
    assert not combiner._queues


def test_a_serve_that_answers_the_wrong_number_of_requests_is_an_error_not_a_hang():
    combiner: Combiner[str, int, Any] = Combiner(lambda key, take: [*take(), "extra"])
    with pytest.raises(RuntimeError, match="got 2 answers"):
        combiner.submit("a", 1)
    assert not combiner._leading


def test_keys_are_served_independently():
    server = Server(hold_first=True)
    combiner: Combiner[str, int, Any] = Combiner(server)
    held = Submitted(combiner, [("a", 1)])
    assert server.serving.wait(JOIN_TIMEOUT)
    server.hold_first = False  # "b" is not held: it is served while "a" still is
    assert combiner.submit("b", 2) == ("b", 20)
    assert server.batches == [("a", [1]), ("b", [2])]
    server.release.set()
    assert held.join() == {1: ("a", 10)}


def test_a_request_served_alone_skips_the_queue_and_gets_its_answer_or_error():
    server = Server(hold_first=True)
    combiner: Combiner[str, int, Any] = Combiner(server)
    held = Submitted(combiner, [("a", 1)])
    assert server.serving.wait(JOIN_TIMEOUT)
    server.hold_first = False
    assert combiner.serve_alone("a", 2) == ("a", 20)  # while "a" has a batch held
    with pytest.raises(Refused):
        combiner.serve_alone("a", -3)
    server.release.set()
    assert held.join() == {1: ("a", 10)}
    assert server.batches == [("a", [1]), ("a", [2]), ("a", [-3])]
