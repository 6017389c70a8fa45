"""What floods from clients without a login cost everyone else: the latency of a
player's cheapest request while 16 clients from one address ask /healthz, or send
requests with a token the service does not know, at a fixed rate between them.

    python -m bench.floods --spawn [--seconds 8] [--flooders 16] [--rate 800] [--json]
    python -m bench.floods --url http://127.0.0.1:8000 ...   # a server already running

The player's requests (``GET /api/v1/players/me``, one at a time, from 127.0.0.2) are
timed alone first, as the baseline of the same run, then under each flood (from
127.0.0.1). The figures are the flooded medians as a multiple of the baseline's,
and what the flooders got. With --spawn the server runs production settings with the
per-address limits at their defaults (the other benchmarks lift them).

The flood is sent at a fixed rate (`--rate`, requests a second over all flooders),
not as fast as answers come: the flooders share this machine's cores with the
server, so a flood that sends as soon as it is answered measures its own CPU as
much as the server's, and sends more the cheaper the server's refusals are.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from bench import serve

PROBE_ADDRESS = "127.0.0.2"
FLOOD_ADDRESS = "127.0.0.1"
# The per-address limits as a deployment has them.
PRODUCTION_LIMITS = {"THROTTLE_RATE_ANONYMOUS": "60/min", "THROTTLE_RATE_HEALTH": "600/min"}


class Client:
    """One keep-alive connection from a given local address."""

    def __init__(self, url: str, source: str) -> None:
        parts = urlsplit(url)
        self.host, self.port, self.source = parts.hostname or "127.0.0.1", parts.port, source
        self.conn: http.client.HTTPConnection | None = None

    def request(
        self, method: str, path: str, headers: dict[str, str] | None = None, body: Any = None
    ) -> tuple[int, Any]:
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(
                    self.host, self.port, timeout=30, source_address=(self.source, 0)
                )
            try:
                data = None if body is None else json.dumps(body)
                sent = {"Content-Type": "application/json", **(headers or {})}
                self.conn.request(method, path, body=data, headers=sent)
                response = self.conn.getresponse()
                raw = response.read()
                if response.getheader("connection", "").lower() == "close":
                    self.close()
                return response.status, json.loads(raw) if raw else None
            except (OSError, http.client.HTTPException):
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def probe(url: str, token: str, seconds: float) -> list[float]:
    """The player's request, one at a time for `seconds`: each one's milliseconds."""
    client = Client(url, PROBE_ADDRESS)
    headers = {"Authorization": f"Bearer {token}"}
    took: list[float] = []
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            started = time.perf_counter()
            status, _ = client.request("GET", "/api/v1/players/me", headers)
            took.append((time.perf_counter() - started) * 1000)
            assert status == 200, status
    finally:
        client.close()
    return took


@contextmanager
def flood(
    url: str, flooders: int, rate: float, request: Callable[[Client], int]
) -> Iterator[Counter[Any]]:
    """`flooders` threads calling `request`, `rate` times a second between them, until
    the block ends: the statuses they got (and "late" for the calls a flooder could
    not send in time, as its previous answer came too late)."""
    got: Counter[Any] = Counter()
    stop = threading.Event()
    interval = flooders / rate

    def run() -> None:
        client = Client(url, FLOOD_ADDRESS)
        due = time.monotonic()
        while not stop.is_set():
            due += interval
            try:
                got[request(client)] += 1
            except (OSError, http.client.HTTPException) as error:
                got[type(error).__name__] += 1
            behind = time.monotonic() - due
            if behind > interval:  # never a burst to catch up
                got["late"] += int(behind // interval)
                due += (behind // interval) * interval
            stop.wait(max(due - time.monotonic(), 0))
        client.close()

    threads = [threading.Thread(target=run, daemon=True) for _ in range(flooders)]
    for thread in threads:
        thread.start()
    time.sleep(0.5)  # under way before the probe starts
    try:
        yield got
    finally:
        stop.set()
        for thread in threads:
            thread.join()


FLOODS: dict[str, Callable[[Client], int]] = {
    "healthz": lambda client: client.request("GET", "/healthz")[0],
    "unknown token": lambda client: client.request(
        "GET", "/api/v1/games", {"Authorization": "Bearer not-a-token"}
    )[0],
}


def run(url: str, seconds: float, flooders: int, rate: float) -> dict[str, Any]:
    status, player = Client(url, PROBE_ADDRESS).request(
        "POST", "/api/v1/players", body={"name": "prober"}
    )
    assert status == 201, (status, player)
    token = player["token"]
    probe(url, token, 1.0)  # warm
    baseline = probe(url, token, seconds)
    result: dict[str, Any] = {
        "seconds": seconds,
        "flooders": flooders,
        "rate": rate,
        "baseline": {"requests": len(baseline), "p50_ms": round(statistics.median(baseline), 2)},
    }
    for name, request in FLOODS.items():
        with flood(url, flooders, rate, request) as got:
            took = probe(url, token, seconds)
        p50 = statistics.median(took)
        result[name] = {
            "requests": len(took),
            "p50_ms": round(p50, 2),
            "p50_vs_baseline": round(p50 / statistics.median(baseline), 2),
            "flooders_got": {str(key): count for key, count in sorted(got.items(), key=str)},
        }
        time.sleep(1)
    return result


def report(result: dict[str, Any]) -> str:
    base = result["baseline"]
    lines = [f"GET /api/v1/players/me alone: p50 {base['p50_ms']} ms ({base['requests']} requests)"]
    for name in FLOODS:
        row = result[name]
        lines.append(
            f"under {result['rate']:g} requests/s of {name} "
            f"({result['flooders']} clients, one address): "
            f"p50 {row['p50_ms']} ms = {row['p50_vs_baseline']}x the baseline; "
            f"the flooders got {row['flooders_got']}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--url", help="a server already running")
    target.add_argument("--spawn", action="store_true", help="start the server command")
    parser.add_argument("--seconds", type=float, default=8.0, help="per phase")
    parser.add_argument("--flooders", type=int, default=16)
    parser.add_argument("--rate", type=float, default=800.0, help="flood requests a second")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.spawn:
        with serve.server(env=PRODUCTION_LIMITS) as running:
            result = run(running.url, args.seconds, args.flooders, args.rate)
    else:
        result = run(args.url, args.seconds, args.flooders, args.rate)
    print(json.dumps(result) if args.json else report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
