"""Quick match under a crowd: many players asking for a game at the same moment.

    python -m bench.matchmaking --spawn --players 400 --size 4 [--json]
    python -m bench.matchmaking --url http://127.0.0.1:8000 --players 400 --size 4

With ``--spawn`` it starts the service's server on a fresh private PostgreSQL
database (bench/serve.py; default ``uno_bench``, dropped first); with ``--url`` it
talks to a server already running (with rate limits lifted, as bench/serve.py
sets them). Then:

1. ``--players`` players sign up (``POST /players``), a few at a time.
2. The baseline, on the same server in the same run: every player sends the
   cheapest authenticated request, ``GET /players/me``, at once (released together
   by a barrier, streams open); its latencies say how fast this machine answers a
   crowd right now. The figures below are also given as ratios to it.
3. Every player asks for a quick match at once (``POST /matchmaking``, ``--size``
   seats, bots never), one thread and one connection each, released together by a
   barrier. Each request's latency is its round trip.
4. The time from each player's request to its game's start: by default (``--by
   stream``) each player opens its lobby stream (``GET /players/me/stream``, read
   up to its ``hello``) before the barrier, and the time is that of the
   ``game_started`` of its game on that stream, as a client would learn it. With
   ``--by poll`` it polls its game instead (``GET /games/{id}``, every ``--poll``
   seconds) until the view says ``playing`` (the players whose requests were
   served in the batch that filled the table see ``playing`` in the answer
   itself). The players of the remainder's
   game, which cannot fill, stop waiting once every other player saw its game
   start.
5. It checks the outcome: every player seated exactly once, ``players // size``
   games full and playing, every player of those games saw its start, and at most
   one game left waiting (with the remainder, when ``--players`` is not a multiple
   of ``--size``).

Prints the figures (``--json``: one JSON object) and exits 1 when a check fails.
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
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from bench.serve import DEFAULT_DATABASE_URL, DEFAULT_THREADS, DEFAULT_WORKERS, server
from bench.streams import raise_open_files_limit
from unoclient import sse

API = "/api/v1"
SIGN_UP_THREADS = 8
START_TIMEOUT = 120.0


class Client:
    """One keep-alive HTTP connection to the server, for one thread."""

    def __init__(self, url: str, token: str | None = None) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.token = token
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        payload = None if body is None else json.dumps(body)
        for attempt in (1, 2):
            try:
                self.conn.request(method, API + path, payload, headers)
                response = self.conn.getresponse()
                raw = response.read()
                break
            except (ConnectionError, http.client.HTTPException):
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
                if attempt == 2:
                    raise
        return response.status, json.loads(raw) if raw else None

    def close(self) -> None:
        self.conn.close()


@dataclass
class Player:
    name: str
    token: str
    status: int = 0
    error: str | None = None
    game: str | None = None
    baseline_ms: float | None = None
    request_ms: float | None = None
    to_playing_ms: float | None = None
    answered_playing: bool = False


def sign_up(url: str, count: int) -> list[Player]:
    players: list[Player | None] = [None] * count
    lock = threading.Lock()
    next_index = [0]

    def work() -> None:
        client = Client(url)
        try:
            while True:
                with lock:
                    index = next_index[0]
                    next_index[0] += 1
                if index >= count:
                    return
                name = f"QM{index}"
                status, body = client.call("POST", "/players", {"name": name})
                if status != 201:
                    raise SystemExit(f"sign-up answered {status}: {body}")
                players[index] = Player(name, body["token"])
        finally:
            client.close()

    threads = [threading.Thread(target=work) for _ in range(SIGN_UP_THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [p for p in players if p is not None]


def open_lobby(url: str, token: str) -> tuple[Any, Any, Iterator[sse.Message]]:
    """Open the player's lobby stream and read up to its `hello`: from then on the
    stream follows every game the player gets a seat in."""
    connection, response = sse.connect(
        url + API + "/players/me/stream",
        {"Authorization": f"Bearer {token}"},
        timeout=START_TIMEOUT,
    )
    received = sse.messages(response)
    for message in received:
        if message.event == "hello":
            return connection, response, received
    raise ConnectionError("the lobby stream ended before its hello")


def ask_all(url: str, players: list[Player], size: int, poll: float, by: str) -> None:
    """Every player asks at once; then each waits for its game to start: `by`
    "stream" reads the `game_started` of its lobby stream (opened before the
    request), "poll" polls `GET /games/{id}` every `poll` seconds."""
    barrier = threading.Barrier(len(players))
    # Once every player who can be in a full game saw it start, the rest (the
    # remainder's game, which never fills) stop waiting.
    can_play = len(players) // size * size
    playing = [0]
    lock = threading.Lock()
    all_playing = threading.Event()
    streams: list[tuple[Any, Any]] = []

    def saw_playing() -> None:
        with lock:
            playing[0] += 1
            done = playing[0] >= can_play
        if done:
            all_playing.set()
            with lock:
                for connection, response in streams:
                    sse.close(connection, response)  # wakes the readers still waiting

    def wait_by_stream(player: Player, received: Iterator[sse.Message], started: float) -> None:
        for message in received:
            if message.event == "game_started" and message.json()["game"] == player.game:
                player.to_playing_ms = (time.perf_counter() - started) * 1000
                saw_playing()
                return
            if time.perf_counter() > started + START_TIMEOUT:
                return

    def wait_by_polling(player: Player, client: Client, view: Any, started: float) -> None:
        deadline = started + START_TIMEOUT
        while view["status"] != "playing" and time.perf_counter() < deadline:
            if all_playing.wait(poll):
                return
            _, view = client.call("GET", f"/games/{player.game}")
        if view["status"] == "playing":
            player.to_playing_ms = (time.perf_counter() - started) * 1000
            saw_playing()

    def ask(player: Player) -> None:
        client = Client(url, player.token)
        try:
            client.call("GET", "/players/me")  # open the connection before the start
            if by == "stream":
                connection, response, received = open_lobby(url, player.token)
                with lock:
                    streams.append((connection, response))
            barrier.wait(timeout=START_TIMEOUT)
            started = time.perf_counter()
            client.call("GET", "/players/me")
            player.baseline_ms = (time.perf_counter() - started) * 1000
            barrier.wait(timeout=START_TIMEOUT)
            started = time.perf_counter()
            status, body = client.call(
                "POST", "/matchmaking", {"max_players": size, "bots_after": None}
            )
            player.request_ms = (time.perf_counter() - started) * 1000
            player.status = status
            if status != 200:
                player.error = (body or {}).get("error", {}).get("code", str(status))
                return
            player.game = body["id"]
            player.answered_playing = body["status"] == "playing"
            if by == "stream":
                wait_by_stream(player, received, started)
            else:
                wait_by_polling(player, client, body, started)
        except Exception as error:  # reported in the figures
            if not (all_playing.is_set() and player.game is not None):
                player.error = type(error).__name__
        finally:
            client.close()

    threads = [threading.Thread(target=ask, args=(p,)) for p in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for connection, response in streams:
        sse.close(connection, response)


def percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p90": None, "p99": None, "max": None}
    ordered = sorted(values)
    if len(ordered) == 1:
        return {"p50": ordered[0], "p90": ordered[0], "p99": ordered[0], "max": ordered[0]}
    cuts = statistics.quantiles(ordered, n=100, method="inclusive")
    return {
        "p50": round(cuts[49], 1),
        "p90": round(cuts[89], 1),
        "p99": round(cuts[98], 1),
        "max": round(ordered[-1], 1),
    }


def outcome(url: str, players: list[Player], size: int) -> dict[str, Any]:
    """Read every game the players landed in and check the table counts."""
    by_game = Counter(p.game for p in players if p.game is not None)
    client = Client(url, players[0].token)
    statuses: Counter[str] = Counter()
    seat_counts: dict[str, int] = {}
    seated_names: Counter[str] = Counter()
    try:
        for game_id in by_game:
            _, view = client.call("GET", f"/games/{game_id}")
            statuses[view["status"]] += 1
            seat_counts[game_id] = len(view["seats"])
            for seat in view["seats"]:
                if seat["player"] is not None and seat["bot"] is None:
                    seated_names[seat["player"]["name"]] += 1
    finally:
        client.close()
    full_started = sum(1 for game_id in by_game if seat_counts[game_id] == size)
    expected_full, remainder = divmod(len(players), size)
    waiting = statuses.get("waiting", 0)
    # The latencies to the start count only the players who saw it: a start missed
    # (one that never came, on a lobby stream) must fail the run, not thin them.
    saw_start = sum(1 for p in players if p.to_playing_ms is not None)
    checks = {
        "every_player_seated_once": sorted(seated_names) == sorted(p.name for p in players)
        and set(seated_names.values()) == {1},
        "full_games_started": statuses.get("playing", 0) == expected_full
        and full_started == expected_full,
        "none_half_filled": waiting == (1 if remainder else 0),
        "full_games_players_saw_the_start": saw_start == expected_full * size,
        "no_errors": not any(p.error for p in players),
    }
    return {
        "games": len(by_game),
        "games_by_status": dict(statuses),
        "full_games": full_started,
        "expected_full_games": expected_full,
        "left_waiting": waiting,
        "saw_start": saw_start,
        "checks": checks,
    }


def run(url: str, count: int, size: int, poll: float, by: str = "stream") -> dict[str, Any]:
    players = sign_up(url, count)
    started = time.perf_counter()
    ask_all(url, players, size, poll, by)
    wall = time.perf_counter() - started
    figures = outcome(url, players, size)
    errors = Counter(p.error for p in players if p.error)
    baseline = percentiles([p.baseline_ms for p in players if p.baseline_ms is not None])
    to_playing = percentiles([p.to_playing_ms for p in players if p.to_playing_ms is not None])
    return {
        "players": count,
        "size": size,
        "wall_seconds": round(wall, 2),
        "baseline_ms": baseline,
        "request_ms": percentiles([p.request_ms for p in players if p.request_ms is not None]),
        "to_playing_ms": to_playing,
        "to_playing_p99_over_baseline_p99": _ratio(to_playing["p99"], baseline["p99"]),
        "answered_playing": sum(p.answered_playing for p in players),
        "to_playing_measured_by": (
            "game_started on the lobby stream"
            if by == "stream"
            else f"polling GET /games/{{id}} every {poll * 1000:.0f} ms"
        ),
        "errors": dict(errors),
        **figures,
    }


def _ratio(value: float | None, baseline: float | None) -> float | None:
    return None if value is None or not baseline else round(value / baseline, 2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=400)
    parser.add_argument("--size", type=int, default=4, help="seats per game (2-10)")
    parser.add_argument(
        "--by",
        choices=("stream", "poll"),
        default="stream",
        help="how a player learns its game started: its lobby stream, or polling",
    )
    parser.add_argument("--poll", type=float, default=0.05, help="seconds between polls")
    parser.add_argument("--spawn", action="store_true", help="start a server of its own")
    parser.add_argument("--url", help="a running server (without --spawn)")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS)
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not 2 <= args.size <= 10 or args.players < 1:
        parser.error("--size is 2-10 and --players at least 1")
    raise_open_files_limit()  # two connections per player, and the server's ends
    if args.spawn:
        with server(args.database_url, args.workers, args.threads) as running:
            result = run(running.url, args.players, args.size, args.poll, args.by)
            result["server"] = running.description
    elif args.url:
        result = run(args.url, args.players, args.size, args.poll, args.by)
    else:
        parser.error("give --spawn or --url")
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0 if all(result["checks"].values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
