"""What observing a request costs: its metrics and its JSON log line, against the
cheapest request of the API that carries them.

    python -m bench.observability [--database-url postgres://...] [--requests 2000] [--repeats 7]

It recreates a local PostgreSQL database (default ``uno_bench_observability``; its
name must contain "bench", as it is dropped first), makes a player, then times, in
this process and on this thread's CPU (``time.thread_time``), taking turns
`--repeats` times:

- the request: ``GET /api/v1/players/me`` through Django's test client, the player's
  token checked, observed as in production (the middleware, the metrics, a JSON
  line written to a file);
- the observation alone: what `unoservice.observability` adds to it (an exchange
  made, its request id set and reset, its two metrics counted, its line formatted
  and written to the same file);
- one counter increment, the unit every metric on the hot paths costs.

It prints the median microseconds of each and the observation's share of the
request.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.profile_move import django_for

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/uno_bench_observability"


def cpu_micros(call: Callable[[], object], times: int) -> float:
    """Microseconds of this thread's CPU per call of `call`, `times` calls in a row."""
    started = time.thread_time()
    for _ in range(times):
        call()
    return (time.thread_time() - started) / times * 1e6


def log_to(path: Path) -> logging.Handler:
    """The request and task lines, in production's format, to the file `path`."""
    from unoservice import observability

    handler = logging.FileHandler(path)
    handler.setFormatter(observability.JsonFormatter())
    handler.addFilter(observability.ContextFilter())
    for name in ("unoservice.requests", "unoservice.tasks"):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.propagate = False
        logger.setLevel(logging.INFO)
    return handler


def ways(token: str) -> dict[str, Callable[[], object]]:
    from rest_framework.test import APIClient

    from unoservice import metrics, observability

    client = APIClient(HTTP_HOST="127.0.0.1")  # the one host the benchmark allows
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")

    def request() -> None:
        answer = client.get("/api/v1/players/me")
        assert answer.status_code == 200, answer.content

    def observation() -> None:
        exchange = observability.Exchange("GET", observability.request_id_from(None))
        reset = observability.request_id_var.set(exchange.request_id)
        observability.request_id_var.reset(reset)
        exchange.route, exchange.player_id = "api/v1/players/me", token[:32]
        exchange.answer(200)
        exchange.finish()

    counter = metrics.MOVES.labels("bench", "bench")
    return {"request": request, "observation": observation, "counter": counter.inc}


def measure(token: str, requests: int, repeats: int) -> dict[str, float]:
    """The median microseconds per call of each way, the ways taking turns."""
    timed = ways(token)
    for call in timed.values():  # warm up: imports, the connection, the files
        cpu_micros(call, 20)
    samples: dict[str, list[float]] = {name: [] for name in timed}
    for _ in range(repeats):
        for name, call in timed.items():
            samples[name].append(cpu_micros(call, requests))
    return {name: statistics.median(values) for name, values in samples.items()}


def report(medians: dict[str, float]) -> str:
    share = medians["observation"] / medians["request"]
    return "\n".join(
        [
            f"GET /api/v1/players/me, observed:  {medians['request']:8.1f} us of CPU",
            f"the observation alone:             {medians['observation']:8.1f} us"
            f" ({share:.1%} of the request)",
            f"one counter increment:             {medians['counter']:8.2f} us",
        ]
    )


def player_token() -> str:
    from players import services as player_services

    _, token = player_services.player_create(name="bench")
    return token


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    with django_for(args.database_url), tempfile.TemporaryDirectory() as folder:
        log_to(Path(folder) / "requests.log")
        print(report(measure(player_token(), args.requests, args.repeats)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
