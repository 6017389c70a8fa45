"""Closing the database connections that a pool of threads keeps, when a server
process stops: Django keeps one per thread, and only that thread may close it."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from concurrent.futures import ThreadPoolExecutor

from django.db import connections


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
