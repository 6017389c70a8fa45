"""The database connections that pools of threads keep (Django keeps one per
thread): read without a health check each time, and closed when a server process
stops (only their own thread may close them)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from django.db import InterfaceError, OperationalError, connection, connections

T = TypeVar("T")


def reopening(read: Callable[[], T]) -> T:
    """Run `read` (a query that changes nothing) on this thread's connection, which
    was not checked first (Django's health check costs a round trip): found broken
    (the server restarted, a pooler dropped it), it is reopened once and `read`
    tried again."""
    try:
        return read()
    except (OperationalError, InterfaceError):
        connection.close()
        return read()


async def close_thread_connections(executor: ThreadPoolExecutor, threads: int) -> None:
    """Close the database connection that each thread of `executor` keeps, and stop
    it. A barrier makes every thread take one of the closing calls."""
    barrier = threading.Barrier(threads)

    def close_own_connection() -> None:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=5)
        connections.close_all()

    closing = [executor.submit(close_own_connection) for _ in range(threads)]
    await asyncio.get_running_loop().run_in_executor(
        None, lambda: [future.result() for future in closing]
    )
    executor.shutdown(wait=False, cancel_futures=True)
