"""Push notifications end to end: from a move's commit to the push service, beside
the live stream, and what they add to a move.

    python -m bench.notify [--turns 300] [--rounds 2] [--json]

Needs PostgreSQL and Redis (``CELERY_BROKER_URL``, and ``CACHE_URL`` or db 9 of the
broker's Redis as the shared cache). It recreates ``uno_bench_notify`` and runs
`--rounds` rounds of two phases of `--turns` turns each, each phase on a fresh
server (`bench.serve`, production settings) and Celery worker:

1. **off**: no VAPID keys, so nothing is pushed (the baseline);
2. **on**: VAPID keys set, every player has a Web Push subscription at a push
   service this process runs (it records when each request arrives and answers 201).

Two humans, Ann and Bob, play two-player games against each other through the API,
one move at a time; neither holds a stream of the game (so each turn is pushed at
once), while a spectator's stream of the game is read on a thread. After each move
that hands the turn over, the next waits until the stream has delivered the move's
events and, in phase 2, until the push of the new turn has arrived. Measured:

- the move's latency as the client sees it, and the server's CPU per move, in both
  phases: their ratio is the cost notifications add to a move;
- from the commit (the `at` of the move's last event, the same clock) to the stream's
  delivery of that event, and to the push service receiving the turn's push.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import http.client
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench import serve
from bench.load import API, Connection, actor_of, choose_move, move_request, percentile

DATABASE_URL = "postgres://postgres@127.0.0.1:5432/uno_bench_notify"
WAIT_SECONDS = 10.0  # what one wait for a push or an event may take at most


# -- the push service ------------------------------------------------------------------


@dataclass
class Received:
    path: str
    topic: str | None
    at: float  # time.time() on arrival


class PushService:
    """A push service on 127.0.0.1 that records the requests it gets (answer 201)."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.arrived = threading.Condition()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                at = time.time()
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(201)
                self.send_header("Content-Length", "0")
                self.end_headers()
                with service.arrived:
                    service.received.append(Received(self.path, self.headers.get("Topic"), at))
                    service.arrived.notify_all()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, path: str, after: int) -> Received | None:
        """The first request to `path` among those from index `after` on."""
        limit = time.monotonic() + WAIT_SECONDS
        with self.arrived:
            while True:
                for item in self.received[after:]:
                    if item.path == path:
                        return item
                left = limit - time.monotonic()
                if left <= 0 or not self.arrived.wait(left):
                    return None

    def close(self) -> None:
        self.server.shutdown()


def vapid_keys() -> dict[str, str]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_numbers().private_value.to_bytes(32, "big")
    public = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return {"VAPID_PRIVATE_KEY": b64(private), "VAPID_PUBLIC_KEY": b64(public)}


def subscription(endpoint: str) -> dict[str, Any]:
    """What a browser's PushManager.subscribe gives, for `endpoint`."""
    keys = vapid_keys()  # any P-256 point will do as the receiver's public key
    return {
        "endpoint": endpoint,
        "keys": {"p256dh": keys["VAPID_PUBLIC_KEY"], "auth": b64(secrets.token_bytes(16))},
    }


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


# -- the stream reader -----------------------------------------------------------------


class StreamReader:
    """A spectator's stream of one game, read on a thread: when each seq arrived."""

    def __init__(self, url: str, game_id: str, token: str) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        self.conn.request(
            "GET",
            f"{API}/games/{game_id}/stream",
            headers={"Accept": "text/event-stream", "Authorization": f"Bearer {token}"},
        )
        self.response = self.conn.getresponse()
        self.arrivals: dict[int, float] = {}
        self.arrived = threading.Condition()
        self.thread = threading.Thread(target=self._pump, daemon=True)
        self.thread.start()

    def _pump(self) -> None:
        seq, kind = None, None
        # http.client raises AttributeError when `close` pulls the socket from under it.
        with contextlib.suppress(OSError, ValueError, AttributeError, http.client.HTTPException):
            for raw in self.response:
                line = raw.decode().rstrip("\n")
                if line.startswith("id: "):
                    seq = int(line[4:])
                elif line.startswith("event: "):
                    kind = line[7:]
                elif line == "" and seq is not None:
                    if kind not in ("game", "end"):
                        with self.arrived:
                            self.arrivals.setdefault(seq, time.time())
                            self.arrived.notify_all()
                    seq, kind = None, None

    def wait_for(self, seq: int) -> float | None:
        limit = time.monotonic() + WAIT_SECONDS
        with self.arrived:
            while seq not in self.arrivals:
                left = limit - time.monotonic()
                if left <= 0 or not self.arrived.wait(left):
                    return None
            return self.arrivals[seq]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.sock and self.conn.sock.shutdown(2)  # type: ignore[func-returns-value]
        self.conn.close()


# -- the worker --------------------------------------------------------------------------


@contextlib.contextmanager
def worker(env: dict[str, str]) -> Iterator[None]:
    """A Celery worker (2 processes) on the benchmark's database and broker."""
    folder = Path(tempfile.mkdtemp(prefix="bench-notify-"))
    log = (folder / "worker.log").open("wb")
    argv = ["worker", "--loglevel=WARNING", "--concurrency=2", "--without-gossip"]
    argv += ["--without-mingle", "--hostname", f"bench-notify-{os.getpid()}@%h"]
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "unoservice", *argv],
        cwd=serve.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        time.sleep(3.0)  # the worker connects to the broker
        yield
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


# -- a phase ----------------------------------------------------------------------------------


@dataclass
class Phase:
    name: str
    move_latencies: list[float] = field(default_factory=list)
    stream_latencies: list[float] = field(default_factory=list)
    push_latencies: list[float] = field(default_factory=list)
    pushes_missing: int = 0
    events_missing: int = 0
    turns_handed_over: int = 0
    cpu: dict[str, float] = field(default_factory=dict)


def at_of(event: dict[str, Any]) -> float:
    return datetime.fromisoformat(event["at"]).timestamp()


def play_phase(name: str, turns: int, env: dict[str, str], push: PushService | None) -> Phase:
    phase = Phase(name)
    rng = random.Random(7)
    with serve.server(DATABASE_URL, env=env) as running, worker(_worker_env(running, env)):
        conn = Connection(running.url)

        def call(method: str, path: str, body: Any = None, token: str | None = None) -> Any:
            status, data = conn.request(method, path, body, token)
            if not 200 <= status < 300:
                raise SystemExit(f"bench.notify: {method} {path} -> {status} {data}")
            return data

        players = [call("POST", f"{API}/players", {"name": n}) for n in ("Ann", "Bob", "Cy")]
        tokens = [p["token"] for p in players]
        if push is not None:
            for who, token in (("ann", tokens[0]), ("bob", tokens[1])):
                device = {"kind": "webpush", "subscription": subscription(f"{push.url}/{who}")}
                call("POST", f"{API}/players/me/devices", device, token)
        paths = {0: "/ann", 1: "/bob"}
        with running.cpu_meter() as cpu:
            while phase.turns_handed_over < turns:
                settings = {"max_players": 2, "target_score": 0, "rated": False}
                game_id = call("POST", f"{API}/games", settings, tokens[0])["id"]
                call("POST", f"{API}/games/{game_id}/join", token=tokens[1])
                reader = StreamReader(running.url, game_id, tokens[2])
                view = call("POST", f"{API}/games/{game_id}/start", token=tokens[0])
                try:
                    _play_game(phase, turns, conn, game_id, view, tokens, rng, reader, push, paths)
                finally:
                    reader.close()
        phase.cpu = dict(cpu)
    return phase


def _play_game(
    phase: Phase,
    turns: int,
    conn: Connection,
    game_id: str,
    view: dict[str, Any],
    tokens: list[str],
    rng: random.Random,
    reader: StreamReader,
    push: PushService | None,
    paths: dict[int, str],
) -> None:
    while view["status"] == "playing" and phase.turns_handed_over < turns:
        actor = actor_of(view)
        if view.get("you") is None or view["you"]["seat"] != actor:
            _, view = conn.request("GET", f"{API}/games/{game_id}", token=tokens[actor])
        path, body = move_request(game_id, view, choose_move(view, rng))
        pushes_before = len(push.received) if push is not None else 0
        started = time.perf_counter()
        status, data = conn.request("POST", path, body, tokens[actor])
        elapsed = time.perf_counter() - started
        if status != 200:
            _, view = conn.request("GET", f"{API}/games/{game_id}", token=tokens[actor])
            continue
        phase.move_latencies.append(elapsed)
        view = data["game"]
        last = data["events"][-1]
        arrived = reader.wait_for(last["seq"])
        if arrived is None:
            phase.events_missing += 1
        else:
            phase.stream_latencies.append(arrived - at_of(last))
        next_actor = actor_of(view) if view["status"] == "playing" else None
        if next_actor is None or next_actor == actor:
            continue
        phase.turns_handed_over += 1
        if push is None:
            continue
        received = push.wait_for(paths[next_actor], pushes_before)
        if received is None:
            phase.pushes_missing += 1
        else:
            phase.push_latencies.append(received.at - at_of(last))


def _worker_env(running: serve.Server, env: dict[str, str]) -> dict[str, str]:
    worker_env = {**os.environ, **env, "DATABASE_URL": running.database_url}
    return {
        **worker_env,
        "BOT_THINK_SECONDS": "0",
        "ROUND_BREAK_SECONDS": "0",
        "DJANGO_SETTINGS_MODULE": "unoservice.settings",
    }


# -- the report ------------------------------------------------------------------------------


def summary(values: list[float]) -> dict[str, float | None]:
    """Count, p50 and p99 in milliseconds of `values` in seconds."""
    return {"n": len(values), "p50_ms": percentile(values, 50), "p99_ms": percentile(values, 99)}


def merged(phases: list[Phase]) -> Phase:
    """The phases of one mode as one: their samples together, their CPU added."""
    whole = Phase(phases[0].name)
    for phase in phases:
        whole.move_latencies += phase.move_latencies
        whole.stream_latencies += phase.stream_latencies
        whole.push_latencies += phase.push_latencies
        whole.pushes_missing += phase.pushes_missing
        whole.events_missing += phase.events_missing
        whole.turns_handed_over += phase.turns_handed_over
        for key, value in phase.cpu.items():
            whole.cpu[key] = whole.cpu.get(key, 0.0) + value
    return whole


def run(turns: int, rounds: int) -> dict[str, Any]:
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not broker.startswith("redis://"):
        raise SystemExit("bench.notify needs CELERY_BROKER_URL=redis://...")
    cache = os.environ.get("CACHE_URL") or broker.rsplit("/", 1)[0] + "/9"
    common = {
        "CELERY_BROKER_URL": broker,
        "CACHE_URL": cache,
        "LOG_REQUESTS": "false",
        "PUSH_ALLOW_HTTP": "true",
        "PUSH_ALLOW_HTTP_WITHOUT_DEBUG": "true",
        "PUSH_RATE_PER_MINUTE": "1000000",
        "VAPID_PRIVATE_KEY": "",
        "VAPID_PUBLIC_KEY": "",
    }
    keys = {**vapid_keys(), "VAPID_SUBJECT": "mailto:bench@example.com"}
    phases: dict[str, list[Phase]] = {"off": [], "on": []}
    push = PushService()
    try:
        # Alternated, so that the machine's drift weighs on both alike.
        for _ in range(rounds):
            phases["off"].append(play_phase("off", turns, common, None))
            phases["on"].append(play_phase("on", turns, {**common, **keys}, push))
    finally:
        push.close()
    off, on = merged(phases["off"]), merged(phases["on"])
    result: dict[str, Any] = {"turns": turns, "rounds": rounds}
    for phase in (off, on):
        moves = len(phase.move_latencies)
        result[phase.name] = {
            "move": summary(phase.move_latencies),
            "server_cpu_ms_per_move": round(phase.cpu["server_cpu_s"] * 1000 / moves, 3),
            "stream": summary(phase.stream_latencies),
            "events_missing": phase.events_missing,
        }
    result["on"]["push"] = summary(on.push_latencies)
    result["on"]["pushes_missing"] = on.pushes_missing
    base, with_push = result["off"], result["on"]
    result["move_p50_ratio_on_to_off"] = _ratio(with_push["move"]["p50_ms"], base["move"]["p50_ms"])
    result["server_cpu_ratio_on_to_off"] = _ratio(
        with_push["server_cpu_ms_per_move"], base["server_cpu_ms_per_move"]
    )
    return result


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else round(a / b, 3)


def report(result: dict[str, Any]) -> str:
    lines = [
        f"bench.notify: {result['turns']} turns handed over per phase,"
        f" {result['rounds']} rounds of off then on"
    ]
    for name in ("off", "on"):
        phase = result[name]
        move, stream = phase["move"], phase["stream"]
        lines.append(
            f"  notifications {name:3}: move p50 {move['p50_ms']} ms p99 {move['p99_ms']} ms,"
            f" server CPU {phase['server_cpu_ms_per_move']} ms/move;"
            f" stream p50 {stream['p50_ms']} ms p99 {stream['p99_ms']} ms"
            f" ({phase['events_missing']} events missing)"
        )
    push = result["on"]["push"]
    lines.append(
        f"  push (commit -> push service): p50 {push['p50_ms']} ms p99 {push['p99_ms']} ms"
        f" over {push['n']} turns ({result['on']['pushes_missing']} missing)"
    )
    lines.append(
        f"  on/off: move p50 x{result['move_p50_ratio_on_to_off']},"
        f" server CPU per move x{result['server_cpu_ratio_on_to_off']}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run(args.turns, args.rounds)
    print(json.dumps(result) if args.json else report(result))
    missing = result["on"]["pushes_missing"] + result["on"]["events_missing"]
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
