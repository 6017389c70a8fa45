"""What a stream's wake-up costs the event loop when every stream of the process also
waits on one shared future, against when each waits on its own alone.

    python -m bench.waits [--waiters 5000] [--rounds 3] [--json]

Each waiter loops as a stream does (`games.live.sse`): ``asyncio.wait`` on its own
future (its channel's change), optionally with one future all of them share (what
the hub's ``closing`` was), until its own resolves. The benchmark resolves every
waiter's own future `rounds` times and prints the CPU per wake-up, on uvloop as the
server runs. ``asyncio.wait`` adds its callback to each future it waits on and takes
it back out afterwards; taking it out of a future thousands wait on scans thousands
of callbacks (`games.live.hub.Hub.close_streams`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

import uvloop


async def per_wake_up(waiters: int, rounds: int, *, shared_too: bool) -> float:
    """CPU microseconds per wake-up of `waiters` waiters, `rounds` times each."""
    loop = asyncio.get_running_loop()
    shared: asyncio.Future[None] = loop.create_future()
    own = [loop.create_future() for _ in range(waiters)]
    settled = asyncio.Event()
    woken = 0

    async def waiter(index: int) -> None:
        nonlocal woken
        for _ in range(rounds):
            futures = {own[index], shared} if shared_too else {own[index]}
            await asyncio.wait(futures, return_when=asyncio.FIRST_COMPLETED)
            own[index] = loop.create_future()
            woken += 1
            if woken % waiters == 0:
                settled.set()

    tasks = [asyncio.ensure_future(waiter(n)) for n in range(waiters)]
    await asyncio.sleep(0.05)  # every waiter waiting
    started = time.process_time()
    for _ in range(rounds):
        settled.clear()
        for future in list(own):
            future.set_result(None)
        await settled.wait()
    used = time.process_time() - started
    shared.set_result(None)
    await asyncio.gather(*tasks)
    return used * 1e6 / (waiters * rounds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--waiters", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    alone = uvloop.run(per_wake_up(args.waiters, args.rounds, shared_too=False))
    shared = uvloop.run(per_wake_up(args.waiters, args.rounds, shared_too=True))
    result = {
        "waiters": args.waiters,
        "own_future_us_per_wake_up": round(alone, 1),
        "with_a_shared_future_us_per_wake_up": round(shared, 1),
        "ratio": round(shared / alone, 2),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{args.waiters} waiters: {result['own_future_us_per_wake_up']} us per wake-up "
            f"on their own future, {result['with_a_shared_future_us_per_wake_up']} us with "
            f"one future all of them share ({result['ratio']}x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
