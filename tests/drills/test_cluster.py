"""Cluster drills (tests/drills/cluster.py): API nodes behind Debian's haproxy with
deploy/haproxy.cfg, PgBouncer in front of PostgreSQL, LISTEN direct.

1. Three nodes, 1,000 game streams spread across them through the balancer, and ten
   games being played: three bots each (the worker) and one scripted player, who
   answers every view of its own stream that gives it the turn with a move sent
   through the balancer under an `Idempotency-Key`, retried with the same key until
   a node answers. One node is killed (SIGKILL to its master and worker). Every
   stream that was on it reconnects through the balancer with `Last-Event-ID`
   (backoff with jitter, as the existing stream drill's clients), and once the games
   are abandoned every stream holds exactly the log's events from its first one on;
   every accepted move is in the log once and the logs replay.
2. A fourth node started while games run joins the running balancer through
   HAProxy's runtime API (`add server`, what DNS discovery does in compose): new
   streams and moves land on it, and no other process was restarted.

The clients are coroutines on raw asyncio connections (bench/streams.py's HTTP and
SSE reading), so 1,000 streams cost one thread. The figures are printed and saved
as JSON under artifacts/.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from bench.streams import Frame, SseParser, body_parts, raise_open_files_limit, read_body, read_head
from tests.browser import artifacts_dir
from tests.drills.cluster import Cluster, running_cluster
from tests.drills.test_faults import Player, starts_a_move
from tests.drills.test_stream_restart import abandon, shell
from tests.haproxy import haproxy
from tests.pgbouncer import pgbouncer_binary

pytestmark = [pytest.mark.drill, pytest.mark.slow, pytest.mark.postgres, pytest.mark.redis]

API = "/api/v1"
# The figure; the time of the first drill grows with it (see the docstring).
STREAMS = 1000
GAMES = 10
BOTS = 3
THINK_SECONDS = 1.0
KILLED = "node2"
ADDED = "node4"
BACKOFF_FIRST = 0.1
BACKOFF_LAST = 2.0
PHASE_SECONDS = 60.0
REQUEST_SECONDS = 20.0
RECONNECT_LIMIT = 5.0
# A move sent while its node dies is sent again with its key, this many times at most.
MOVE_ATTEMPTS = 40
SIGN_UPS_AT_ONCE = 16
TRANSPORT_ERRORS = (OSError, EOFError, asyncio.IncompleteReadError, asyncio.LimitOverrunError)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    if haproxy() is None or pgbouncer_binary() is None:
        reason = "needs Debian's haproxy and pgbouncer (apt-get install haproxy pgbouncer)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI is set, so a missing service fails the test)")
        pytest.skip(reason)
    raise_open_files_limit()
    with running_cluster(
        tmp_path_factory.mktemp("cluster"), 3, think_seconds=THINK_SECONDS
    ) as running:
        yield running


# -- HTTP on asyncio ----------------------------------------------------------------------


@dataclass
class Reply:
    status: int  # 0: no answer (the connection died)
    served_by: str
    body: Any
    at: float = field(default_factory=time.monotonic)


def request_head(method: str, path: str, headers: dict[str, str]) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin1")


async def call(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    *,
    token: str | None = None,
    key: str | None = None,
) -> Reply:
    """One request through the balancer on a connection of its own."""
    headers = {"Accept": "application/json", "Connection": "close"}
    payload = b"" if body is None else json.dumps(body).encode()
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if key:
        headers["Idempotency-Key"] = key
    if body is not None:
        headers |= {"Content-Type": "application/json", "Content-Length": str(len(payload))}

    async def exchange() -> Reply:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(request_head(method, path, headers) + payload)
            status, answer = await read_head(reader)
            raw = await read_body(reader, answer)
        finally:
            writer.close()
        return Reply(status, answer.get("x-served-by", "?"), json.loads(raw) if raw else None)

    return await asyncio.wait_for(exchange(), REQUEST_SECONDS)


async def must(port: int, method: str, path: str, body: Any = None, **auth: str) -> Any:
    reply = await call(port, method, API + path, body, **auth)
    assert 200 <= reply.status < 300, (method, path, reply)
    return reply.body


async def until(test: Callable[[], bool], what: str, details: Callable[[], str]) -> None:
    deadline = time.monotonic() + PHASE_SECONDS
    while not test():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {PHASE_SECONDS} s\n{details()}")
        await asyncio.sleep(0.1)


# -- a scripted player and a stream that resumes -------------------------------------------


@dataclass
class Seat:
    """A seated player who moves whenever its stream's view gives it the turn."""

    port: int
    token: str
    game_id: str = ""
    seat: int | None = None
    replies: dict[str, list[Reply]] = field(default_factory=dict)  # per Idempotency-Key
    versions: set[int] = field(default_factory=set)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)

    async def open_table(self) -> None:
        game = await must(self.port, "POST", "/games", {"max_players": BOTS + 1}, token=self.token)
        self.game_id = str(game["id"])
        for _ in range(BOTS):
            bot = {"strategy": "greedy"}
            await must(self.port, "POST", f"/games/{self.game_id}/bots", bot, token=self.token)
        await must(self.port, "POST", f"/games/{self.game_id}/start", token=self.token)

    def saw(self, view: dict[str, Any]) -> None:
        if view["status"] != "playing" or view["you"] is None:
            return
        self.seat = view["you"]["seat"]
        pending = view["pending"]
        mine = pending["seat"] == self.seat if pending else view["current_seat"] == self.seat
        if mine and view["version"] not in self.versions and view["you"]["legal_moves"]:
            self.versions.add(view["version"])
            task = asyncio.create_task(self.move(view))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def move(self, view: dict[str, Any]) -> None:
        path, body = Player.request_for(view)
        key = str(uuid.uuid4())
        replies = self.replies.setdefault(key, [])
        for _ in range(MOVE_ATTEMPTS):
            try:
                reply = await call(self.port, "POST", API + path, body, token=self.token, key=key)
            except (*TRANSPORT_ERRORS, TimeoutError) as error:
                reply = Reply(0, "-", type(error).__name__)
            replies.append(reply)
            if reply.status not in (0, 502, 503, 504):
                return
            await asyncio.sleep(0.2)

    def accepted(self) -> list[Reply]:
        return [r for replies in self.replies.values() for r in replies if r.status == 200]


@dataclass
class Link:
    """One connection of a stream."""

    served_by: str
    sent: str | None  # its Last-Event-ID
    first_frame: float | None = None
    first_view: int | None = None
    events: int = 0


@dataclass
class Watch:
    """One game's stream kept open across disconnects, as test_stream_restart's."""

    port: int
    game_id: str
    token: str
    from_the_start: bool
    seat: Seat | None = None
    seqs: list[int] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    first_view: int | None = None
    last_id: str | None = None
    end: dict[str, Any] | None = None
    links: list[Link] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    async def run(self) -> None:
        backoff = BACKOFF_FIRST
        if self.from_the_start:
            self.last_id = "0"
        while self.end is None:
            links = len(self.links)
            try:
                await self.listen()
            except TRANSPORT_ERRORS as error:
                self.failures.append(type(error).__name__)
            if len(self.links) > links and self.links[-1].first_frame is not None:
                backoff = BACKOFF_FIRST
            if self.end is None:
                await asyncio.sleep(backoff * random.uniform(0.5, 1.5))
                backoff = min(backoff * 2, BACKOFF_LAST)

    async def listen(self) -> None:
        headers = {"Accept": "text/event-stream", "Authorization": f"Bearer {self.token}"}
        if self.last_id is not None:
            headers["Last-Event-ID"] = self.last_id
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        try:
            path = f"{API}/games/{self.game_id}/stream"
            writer.write(request_head("GET", path, headers))
            status, answer = await read_head(reader)
            if status != 200:
                self.failures.append(f"refused {status}")
                return
            link = Link(answer.get("x-served-by", "?"), headers.get("Last-Event-ID"))
            self.links.append(link)
            parser = SseParser()
            async for part in body_parts(reader, answer):
                for frame in parser.feed(part):
                    self.read(frame, link)
                    if self.end is not None:
                        return
            self.failures.append("closed")
        finally:
            writer.close()

    def read(self, frame: Frame, link: Link) -> None:
        if frame.event in (None, "comment"):
            return
        if link.first_frame is None:
            link.first_frame = time.monotonic()
        if frame.event == "end":
            self.end = json.loads(frame.data)
            return
        if frame.id is None:
            self.problems.append(f"a {frame.event} message without an id")
            return
        data = json.loads(frame.data)
        if frame.event == "game":
            self.first_view = frame.id if self.first_view is None else self.first_view
            link.first_view = frame.id if link.first_view is None else link.first_view
            if self.seat is not None:
                self.seat.saw(data)
        else:
            if data.get("seq") != frame.id or data.get("type") != frame.event:
                self.problems.append(f"id {frame.id} {frame.event} carries {data}")
            self.seqs.append(frame.id)
            self.types.append(frame.event)
            link.events += 1
        self.last_id = str(frame.id)

    def summary(self) -> str:
        per = [(link.served_by, link.sent, link.events) for link in self.links]
        return (
            f"{self.game_id[:8]} links={per} first_view={self.first_view}"
            f" seqs={self.seqs[:3]}..{self.seqs[-3:]} end={self.end}"
            f" failures={self.failures[-6:]} problems={self.problems[:3]}"
        )


# -- games, streams and what they must hold -----------------------------------------------


@dataclass
class Tables:
    seats: list[Seat]
    watches: list[Watch]
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    @property
    def games(self) -> list[str]:
        return [seat.game_id for seat in self.seats]

    def details(self, test: Callable[[Watch], bool] = lambda w: False) -> str:
        behind = [w.summary() for w in self.watches if not test(w)]
        return f"{len(behind)} streams:\n" + "\n".join(behind[:10])

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def sign_up(port: int, count: int) -> list[str]:
    gate = asyncio.Semaphore(SIGN_UPS_AT_ONCE)

    async def one(n: int) -> str:
        async with gate:
            return str((await must(port, "POST", "/players", {"name": f"Drill {n}"}))["token"])

    return list(await asyncio.gather(*(one(n) for n in range(count))))


async def open_tables(port: int, games: int, streams: int) -> Tables:
    """`games` tables, each a scripted player and bots, watched by `streams` streams
    in all: each player's own, and spectators' (each spectator watches every game)."""
    spectators = streams // games - 1
    tokens = await sign_up(port, games + spectators)
    seats = [Seat(port, token) for token in tokens[:games]]
    await asyncio.gather(*(seat.open_table() for seat in seats))
    watches = []
    for seat in seats:
        watches.append(Watch(port, seat.game_id, seat.token, from_the_start=True, seat=seat))
        watches += [
            Watch(port, seat.game_id, token, from_the_start=n % 2 == 0)
            for n, token in enumerate(tokens[games:])
        ]
    tables = Tables(seats, watches)
    tables.tasks = [asyncio.create_task(watch.run()) for watch in watches]
    await until(
        lambda: all(w.links and w.links[0].events > 0 for w in watches),
        "every stream open and hearing its game",
        tables.details,
    )
    return tables


async def end_games(cluster: Cluster, tables: Tables) -> dict[str, Any]:
    """Abandon the games, let every stream end, and check what each holds against the
    log: the figures."""
    await asyncio.to_thread(abandon, cluster.deployment, tables.games)
    await until(lambda: all(w.end for w in tables.watches), "every stream ended", tables.details)
    for seat in tables.seats:
        await asyncio.gather(*seat.tasks)
    await tables.close()
    logs = {}
    for seat in tables.seats:
        log = await must(cluster.port, "GET", f"/games/{seat.game_id}/log", token=seat.token)
        assert log["complete"] is True
        logs[seat.game_id] = log["events"]
        assert [e["seq"] for e in log["events"]] == list(range(1, len(log["events"]) + 1))
    replayed = "".join(
        f"call_command('replay_game', '{game}', verify=True)\n" for game in tables.games
    )
    shell(cluster.deployment, "from django.core.management import call_command\n" + replayed)
    return {**stream_figures(tables.watches, logs), **move_figures(tables.seats, logs)}


def stream_figures(watches: list[Watch], logs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Every stream holds exactly the log's events from its first one on, in order."""
    missed = doubled = 0
    wrong = []
    for watch in watches:
        types = {e["seq"]: e["type"] for e in logs[watch.game_id]}
        last = len(types)
        assert watch.first_view is not None
        first = 1 if watch.from_the_start else watch.first_view + 1
        expected = list(range(first, last + 1))
        missing = sorted(set(expected) - set(watch.seqs))
        twice = [seq for seq, n in Counter(watch.seqs).items() if n > 1]
        missed += len(missing)
        doubled += len(twice)
        if (
            watch.seqs != expected
            or watch.types != [types[seq] for seq in watch.seqs]
            or watch.end != {"status": "abandoned", "winner": None, "last_seq": last}
            or watch.problems
        ):
            wrong.append(f"{watch.summary()} missing={missing[:10]} twice={twice[:10]}")
    assert not wrong, f"{len(wrong)} streams wrong:\n" + "\n".join(wrong[:10])
    events = sum(len(w.seqs) for w in watches)
    return {"streams": len(watches), "events_delivered": events, "events_missed": missed,
            "events_doubled": doubled}  # fmt: skip


def move_figures(seats: list[Seat], logs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Every move a node accepted is in the log, once: the scripted players' moves
    in the log are exactly those answered 200 (a retry with the key gets the first
    answer again, not a second move)."""
    lost = doubled = retried = 0
    for seat in seats:
        log = {(e["seq"], e["type"]) for e in logs[seat.game_id]}
        accepted_at = set()
        for replies in seat.replies.values():
            bodies = [r.body for r in replies if r.status == 200]
            assert all(body == bodies[0] for body in bodies), bodies
            retried += len(replies) > 1
            for body in bodies[:1]:
                accepted_at.add(body["events"][0]["at"])
                lost += any((e["seq"], e["type"]) not in log for e in body["events"])
        made = {
            e["at"]
            for e in logs[seat.game_id]
            if e["seat"] == seat.seat and starts_a_move(e) and e["at"] not in accepted_at
        }
        doubled += len(made)
    moves = sum(len(seat.accepted()) for seat in seats)
    assert (lost, doubled) == (0, 0), (lost, doubled)
    return {"moves_accepted": moves, "moves_retried": retried, "moves_lost": lost,
            "moves_doubled": doubled}  # fmt: skip


def save(name: str, figures: dict[str, Any]) -> None:
    print(f"\n{name}: " + ", ".join(f"{k} {v}" for k, v in figures.items()))
    (artifacts_dir() / f"{name}.json").write_text(json.dumps(figures, indent=2) + "\n")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


# -- the drills ----------------------------------------------------------------------------


def test_a_node_killed_under_a_thousand_streams_loses_no_event_and_no_move(cluster):
    async def drill() -> dict[str, Any]:
        started = time.monotonic()
        tables = await open_tables(cluster.port, GAMES, STREAMS)
        opened = time.monotonic()
        spread = Counter(w.links[-1].served_by for w in tables.watches)
        victims = [w for w in tables.watches if w.links[-1].served_by == KILLED]
        links = {id(w): len(w.links) for w in victims}
        killed_at = time.monotonic()
        await asyncio.to_thread(cluster.kill_node, KILLED)

        def resumed(w: Watch) -> bool:
            return any(link.events for link in w.links[links.get(id(w), 0) :])

        await until(lambda: all(resumed(w) for w in victims), "resumed streams", tables.details)
        # ... and the players' moves still go through.
        await until(
            lambda: all(any(r.at > killed_at for r in s.accepted()) for s in tables.seats),
            "a move of every player after the kill",
            tables.details,
        )
        reconnects = [
            next(link.first_frame for link in w.links[links[id(w)] :] if link.first_frame)
            - killed_at
            for w in victims
        ]
        assert not any(
            link.served_by == KILLED for w in victims for link in w.links[links[id(w)] :]
        )
        pooled = await asyncio.to_thread(cluster.bouncer.show, "SERVERS", "uno")
        figures = await end_games(cluster, tables)
        return {
            "nodes": 3,
            "seconds": round(time.monotonic() - started, 1),
            "postgres_connections_through_pgbouncer": len(pooled),
            "spread": dict(sorted(spread.items())),
            "open_seconds": round(opened - started, 1),
            "killed": KILLED,
            "streams_on_the_killed_node": len(victims),
            "reconnect_p50_s": round(statistics.median(reconnects), 2),
            "reconnect_max_s": round(max(reconnects), 2),
            **figures,
        }

    figures = asyncio.run(drill())
    save("cluster-node-killed", figures)
    assert len(figures["spread"]) == 3
    assert figures["streams_on_the_killed_node"] > 0
    assert figures["reconnect_max_s"] <= RECONNECT_LIMIT, figures


def test_a_node_added_while_games_run_serves_streams_and_moves_with_no_restart(cluster):
    running = {name: node.pids() for name, node in cluster.nodes.items()}
    assert cluster.balancer is not None
    balancer = cluster.balancer.pid

    async def drill() -> dict[str, Any]:
        started = time.monotonic()
        tables = await open_tables(cluster.port, 2, 40)
        node = await asyncio.to_thread(cluster.start_node, ADDED)
        cluster.join_balancer(node)
        joined = time.monotonic()
        later = await open_tables(cluster.port, 2, 40)
        both = Tables(tables.seats + later.seats, tables.watches + later.watches)
        both.tasks = tables.tasks + later.tasks
        await until(
            lambda: any(
                r.served_by == ADDED and r.at > joined for s in both.seats for r in s.accepted()
            ),
            f"a move served by {ADDED}",
            both.details,
        )
        on_it = [w for w in later.watches if w.links[0].served_by == ADDED]
        assert on_it
        assert all(w.links[0].events > 0 for w in on_it)
        figures = await end_games(cluster, both)
        moves_on_it = sum(r.served_by == ADDED for s in both.seats for r in s.accepted())
        return {
            "added": ADDED,
            "seconds": round(time.monotonic() - started, 1),
            "streams_opened_after_it_joined": len(later.watches),
            "streams_on_it": len(on_it),
            "moves_on_it": moves_on_it,
            **figures,
        }

    figures = asyncio.run(drill())
    save("cluster-node-added", figures)
    assert {name: cluster.nodes[name].pids() for name in running} == running
    assert cluster.balancer.poll() is None
    assert cluster.balancer.pid == balancer
