"""Fault drill: the API server restarted while 200 game streams are open.

Ten games among bots play by themselves (the worker moves the bots); twenty
spectators watch each one over ``GET /api/v1/games/{id}/stream``. The server is
stopped (SIGTERM to gunicorn's master, whose workers close their streams after a
few seconds; or SIGKILL to the master and its workers) and started again on the same
port while events flow. Every client reconnects with ``Last-Event-ID``, with
backoff, as a browser's EventSource does, until ``event: end``; each must then hold
exactly the events of the game's log from its first one on: none missing, none
twice, in order, with the log's types.

The games play to a high target score, so that none can end before the restart;
once every client has heard events over its resumed stream, the operator abandons
them (`game_abandoned`), which ends the streams.
"""

from __future__ import annotations

import contextlib
import http.client
import random
import re
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.drills.deployment import Deployment, running_deployment
from tests.support import wait_until
from unoclient import sse

pytestmark = [pytest.mark.drill, pytest.mark.slow]

API = "/api/v1"
GAMES = 10
WATCHERS_PER_GAME = 20
BOTS = ["greedy", "greedy", "random", "random"]
THINK_SECONDS = 0.1
# A client's backoff between attempts: doubling from the first to the last (the
# stream's own `retry: 2000`), with jitter so that 200 clients do not come at once.
BACKOFF_FIRST = 0.1
BACKOFF_LAST = 2.0
# Longer than the server's silence between `: ping` comments (15 s).
READ_TIMEOUT = 30.0
PHASE_SECONDS = 30.0


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    with running_deployment(
        tmp_path_factory.mktemp("streams"), think_seconds=THINK_SECONDS
    ) as service:
        yield service


# -- a client that keeps its stream -----------------------------------------------------


@dataclass
class Watch:
    """One spectator's stream of one game, kept open across disconnects."""

    port: int
    game_id: str
    token: str
    # Open the first stream with `Last-Event-ID: 0` (every event from seq 1) rather
    # than with none (the view, then the events after it).
    from_the_start: bool
    seqs: list[int] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    first_view: int | None = None  # the seq of the first `game` view
    last_id: str | None = None  # what a reconnect sends as Last-Event-ID
    end: dict[str, Any] | None = None
    connections: int = 0
    # The number of events received on each connection, in order.
    per_connection: list[int] = field(default_factory=list)
    # Per connection: the Last-Event-ID it was opened with, and its first view's seq.
    resumed_with: list[str | None] = field(default_factory=list)
    opening_views: list[int | None] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # why attempts and streams ended
    problems: list[str] = field(default_factory=list)  # what no server should send
    stopping: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    open_stream: tuple[http.client.HTTPConnection, http.client.HTTPResponse] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{API}/games/{self.game_id}/stream"

    def run(self) -> None:
        backoff = BACKOFF_FIRST
        if self.from_the_start:
            self.last_id = "0"
        while self.end is None and not self.stopping.is_set():
            headers = {"Authorization": f"Bearer {self.token}"}
            if self.last_id is not None:
                headers["Last-Event-ID"] = self.last_id
            try:
                opened = sse.connect(self.url, headers, timeout=READ_TIMEOUT)
            except sse.StreamRefused as refused:
                self.failures.append(f"refused {refused.status}")
            except (OSError, http.client.HTTPException) as error:
                self.failures.append(f"connect: {type(error).__name__}")
            else:
                with self.lock:
                    self.open_stream = opened
                self.resumed_with.append(headers.get("Last-Event-ID"))
                self.per_connection.append(0)
                self.opening_views.append(None)
                self.connections += 1
                if self.read(opened[1]):
                    backoff = BACKOFF_FIRST
                with self.lock:
                    self.open_stream = None
                sse.close(*opened)
            if self.end is None and not self.stopping.is_set():
                time.sleep(backoff * random.uniform(0.5, 1.5))
                backoff = min(backoff * 2, BACKOFF_LAST)

    def read(self, response: http.client.HTTPResponse) -> bool:
        """Read one stream until it ends; whether it brought any event or view."""
        heard = False
        try:
            for message in sse.messages(response):
                if message.event == "comment" or (message.retry is not None and not message.data):
                    continue
                if message.event == "end":
                    self.end = message.json()
                    return True
                if message.id is None:
                    self.problems.append(f"a {message.event} message without an id")
                    continue
                heard = True
                if message.event == "game":
                    if self.first_view is None:
                        self.first_view = int(message.id)
                    if self.opening_views[-1] is None:
                        self.opening_views[-1] = int(message.id)
                else:
                    seq = int(message.id)
                    data = message.json()
                    if data.get("seq") != seq or data.get("type") != message.event:
                        self.problems.append(f"id {seq} {message.event} carries {data}")
                    self.seqs.append(seq)
                    self.types.append(message.event)
                    self.per_connection[-1] += 1
                self.last_id = message.id
            self.failures.append("closed")
        except (OSError, http.client.HTTPException, ValueError) as error:
            self.failures.append(f"read: {type(error).__name__}")
        return heard

    def replayed(self) -> bool:
        """Whether a reconnect brought events missed while away (a view further on
        than the Last-Event-ID it sent, so the events between came first)."""
        return any(
            sent is not None and view is not None and view > int(sent)
            for sent, view in list(zip(self.resumed_with, self.opening_views, strict=True))[1:]
        )

    def stop(self) -> None:
        """Stop the thread soon: no new attempt, and the open stream closed now."""
        self.stopping.set()
        with self.lock:
            if self.open_stream is not None:
                sse.close(*self.open_stream)

    def summary(self) -> str:
        return (
            f"{self.game_id[:8]} connections={self.connections} per={self.per_connection}"
            f" resumed={self.resumed_with} first_view={self.first_view}"
            f" seqs={self.seqs[:3]}..{self.seqs[-3:]} end={self.end}"
            f" failures={self.failures[-6:]} problems={self.problems[:3]}"
        )


# -- helpers ---------------------------------------------------------------------------


def new_player(service: Deployment, name: str) -> str:
    answer = service.request("POST", f"{API}/players", {"name": name})
    assert answer.status == 201, answer.body
    return str(answer.body["token"])


def shell(service: Deployment, code: str) -> list[str]:
    """Run Python in the deployment's Django (one process for many calls): the lines
    it printed that are game ids."""
    done = service.manage("shell", "--no-imports", "-c", code)
    assert done.returncode == 0, done.stderr
    ids = []
    for line in done.stdout.split():
        with contextlib.suppress(ValueError):
            ids.append(str(uuid.UUID(line)))
    return ids


def bot_matches(service: Deployment, count: int) -> list[str]:
    """`count` games among bots, started with `manage.py bot_match` (each printing its
    id); the default target score keeps them going for minutes."""
    code = (
        "from django.core.management import call_command\n"
        f"for _ in range({count}):\n"
        f"    call_command('bot_match', *{BOTS!r}, host='Drill house')\n"
    )
    games = shell(service, code)
    assert len(games) == count
    return games


def abandon(service: Deployment, games: list[str]) -> None:
    code = (
        "from games import services\n"
        f"for game_id in {games!r}:\n"
        "    services.game_abandon(game_id=game_id, reason='stream drill over')\n"
    )
    shell(service, code)


def all_watches(watches: list[Watch], test: Callable[[Watch], bool], what: str) -> None:
    def ready() -> bool:
        return all(test(watch) for watch in watches)

    try:
        wait_until(ready, what, PHASE_SECONDS)
    except TimeoutError:
        behind = [watch.summary() for watch in watches if not test(watch)]
        pytest.fail(f"{what}: {len(behind)} clients not ready:\n" + "\n".join(behind[:10]))


def api_log(service: Deployment) -> str:
    return (service.folder / "api.log").read_text(errors="replace")


# What uvicorn logs when a stopping worker cancels the streams still open at the end
# of its graceful timeout (`unoservice.serve.STREAM_CLOSE_SECONDS`): one ERROR line,
# then an ERROR with a traceback for each stream. Known, and left alone here: any
# other error fails the drill.
def log_errors(text: str) -> list[str]:
    """Every error or traceback in the API's log (one record per line that starts with
    a timestamp, with what follows). A stopping server ends its streams itself, so
    none is cancelled with a traceback."""
    return [
        record
        for record in re.split(r"(?m)^(?=\[\d{4}-\d\d-\d\d )", text)
        if "Traceback" in record or "[ERROR]" in record or "[CRITICAL]" in record
    ]


# -- the drill ---------------------------------------------------------------------------


@pytest.mark.parametrize("kill", [False, True], ids=["sigterm", "sigkill"])
def test_every_stream_resumes_after_an_api_restart_with_no_event_missing_or_twice(
    deployment: Deployment, kill: bool
) -> None:
    log_before = len(api_log(deployment))
    spectators = [new_player(deployment, f"Spectator {n}") for n in range(WATCHERS_PER_GAME)]
    games = bot_matches(deployment, GAMES)
    watches = [
        Watch(deployment.port, game_id, token, from_the_start=n % 2 == 0)
        for game_id in games
        for n, token in enumerate(spectators)
    ]
    threads = [threading.Thread(target=w.run, daemon=True) for w in watches]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    try:
        # Every stream open and carrying the games' events.
        all_watches(watches, lambda w: w.connections == 1 and w.per_connection[0] > 0, "streams")
        opened = time.monotonic()
        views = {
            g: deployment.request("GET", f"{API}/games/{g}", token=spectators[0]) for g in games
        }
        assert all(v.body["status"] == "playing" for v in views.values()), views

        deployment.restart_api(kill=kill)
        restarted = time.monotonic()
        assert not any(w.end for w in watches)  # the games went on through the restart

        # Every client back on a stream of the new server, and hearing new events.
        all_watches(
            watches,
            lambda w: w.connections >= 2 and w.per_connection[-1] > 0,
            "resumed streams",
        )
        resumed = time.monotonic()
        abandon(deployment, games)
        all_watches(watches, lambda w: w.end is not None, "the end of every stream")
        ended = time.monotonic()
    finally:
        for watch in watches:
            watch.stop()
        for thread in threads:
            thread.join(timeout=10)

    logs = {}
    for game_id in games:
        log = deployment.request("GET", f"{API}/games/{game_id}/log", token=spectators[0])
        assert log.status == 200, log.body
        assert log.body["complete"] is True
        logs[game_id] = {e["seq"]: e["type"] for e in log.body["events"]}
        assert list(logs[game_id]) == list(range(1, len(logs[game_id]) + 1))
        assert logs[game_id][len(logs[game_id])] == "game_abandoned"

    wrong = []
    for watch in watches:
        log = logs[watch.game_id]
        last = len(log)
        assert watch.first_view is not None
        first = 1 if watch.from_the_start else watch.first_view + 1
        expected = list(range(first, last + 1))
        if (
            watch.seqs != expected
            or watch.types != [log[seq] for seq in watch.seqs]
            or watch.end != {"status": "abandoned", "winner": None, "last_seq": last}
            or watch.problems
        ):
            missing = sorted(set(expected) - set(watch.seqs))
            twice = sorted({s for s in watch.seqs if watch.seqs.count(s) > 1})
            wrong.append(f"{watch.summary()} missing={missing[:10]} twice={twice[:10]}")
    assert not wrong, f"{len(wrong)} clients wrong:\n" + "\n".join(wrong[:10])
    assert all(watch.connections >= 2 for watch in watches)  # every one resumed
    # ... and caught up with what it missed while the server was away.
    not_replayed = [watch.summary() for watch in watches if not watch.replayed()]
    assert not not_replayed, "\n".join(not_replayed[:10])

    errors = log_errors(api_log(deployment)[log_before:])
    assert not errors, "".join(errors)[-4000:]

    reconnects = sum(w.connections - 1 for w in watches)
    events = sum(len(w.seqs) for w in watches)
    print(
        f"\n{'SIGKILL' if kill else 'SIGTERM'}: {len(watches)} streams open in"
        f" {opened - started:.1f} s; restart took {restarted - opened:.1f} s; all resumed"
        f" {resumed - restarted:.1f} s later; ended {ended - resumed:.1f} s after the"
        f" abandon; {reconnects} reconnects, {events} events delivered,"
        f" {sum(len(w.failures) for w in watches)} failed attempts or closed streams"
        f" ({dict(Counter(f for w in watches for f in w.failures))})"
    )
