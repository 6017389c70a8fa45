"""Table talk under load, against the production server from outside (docs/api.md,
"Table talk", "The live stream"): four players at a private table with free text on
each send messages as fast as the limit lets them while the seat to act keeps
playing. A message changes no game, so no move is stale for it; every message said
reaches every player's stream exactly once; and the limit refuses exactly what is
over it, with 429 `rate_limited` and `Retry-After`.

The windows are shortened through the server's environment so that the run spans
several of them in a few seconds."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest

from games.talk.catalogue import EMOTES, PHRASES
from tests.games.live.test_stream import Reader
from tests.games.test_notifications_end_to_end import actor, send_a_move, view
from tests.served import Answer, Client, Served, serving
from tests.support import wait_until

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

Key = TypeVar("Key")

LIMIT = 5
WINDOW_SECONDS = 2
# Long enough to span at least three whole windows: several fill up, several start
# afresh.
TALKING_SECONDS = 3 * WINDOW_SECONDS + 1
# A refused sender tries again this soon, not at Retry-After, so that every window
# sees messages over its limit; a pause keeps four senders from starving the mover.
PAUSE_AFTER_REFUSAL = 0.1
# Generous: the machine may be busy.
DELIVERY_SECONDS = 30.0
THREAD_SECONDS = 60.0

SERVER_ENV = {
    "TALK_MESSAGES_PER_WINDOW": str(LIMIT),
    "TALK_WINDOW_SECONDS": str(WINDOW_SECONDS),
    # Each message is also one request of its player's rate (600 a minute by
    # default): a sender as fast as this one could reach it, and then a 429 would
    # not be the table's limit. tests.served lifts it already; said again here
    # because this module depends on it.
    "THROTTLE_RATE_PLAYER": "1000000/min",
}


@pytest.fixture(scope="module")
def talk_server(
    tmp_path_factory: pytest.TempPathFactory, django_db_setup: None
) -> Iterator[Served]:
    # The limit is counted in the cache the server's processes share (Redis, at the
    # CACHE_URL serving() gives them), as a deployment counts it.
    with serving(tmp_path_factory.mktemp("talk"), SERVER_ENV) as served:
        yield served


@pytest.fixture
def server(talk_server: Served, transactional_db: None) -> Served:
    return talk_server


# -- the table ---------------------------------------------------------------------


@dataclass
class Table:
    game_id: str
    invite_code: str
    by_seat: dict[int, Client]


def table_of_four(server: Served) -> Table:
    """Four players signed up, each from an address of their own, at the host's
    running private game with free text on. A target no round can reach keeps the
    game (and so its streams) going whatever the rounds do."""
    host, *guests = [server.client().sign_up(name) for name in ("Ann", "Bob", "Cid", "Dee")]
    created = host.post(
        "/games",
        {"max_players": 4, "visibility": "private", "free_text": True, "target_score": 10000},
    )
    assert created.status == 201, created.body
    assert created.body["free_text"] is True
    game_id, code = created.body["id"], created.body["invite_code"]
    for guest in guests:
        joined = guest.post("/games/join", {"code": code})
        assert joined.status == 200, joined.body
    started = host.post(f"/games/{game_id}/start")
    assert started.status == 200, started.body
    by_seat = {view(player, game_id)["you"]["seat"]: player for player in (host, *guests)}
    assert sorted(by_seat) == [0, 1, 2, 3]
    return Table(game_id, code, by_seat)


# -- a stream, read as far as it has come --------------------------------------------


@dataclass
class TableStream:
    """One player's game stream: the messages, event seqs and views it carried so
    far, taken from its reader's queue by the test's thread."""

    reader: Reader
    opened_at_seq: int
    messages: list[dict[str, Any]] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)
    last_view: dict[str, Any] = field(default_factory=dict)
    ended: bool = False

    @classmethod
    def open(cls, server: Served, player: Client, game_id: str) -> TableStream:
        reader = Reader(
            f"{server.url}/api/v1/games/{game_id}/stream",
            {"Authorization": f"Bearer {player.token}", "Accept": "text/event-stream"},
        )
        events, first_view = reader.until_view(DELIVERY_SECONDS)
        assert events == []
        return cls(reader, first_view["last_seq"], last_view=first_view)

    def take(self) -> TableStream:
        """Everything the reader queued since the last call."""
        while not self.reader.queue.empty():
            frame = self.reader.queue.get_nowait()
            if frame is None:
                self.ended = True
            elif frame.event == "message":
                self.messages.append(frame.json())
            elif frame.event == "game":
                self.last_view = frame.json()
            elif frame.id is not None and frame.event not in ("comment", "end"):
                self.seqs.append(int(frame.id))
        return self

    def message_ids(self) -> Counter[int]:
        return Counter(message["id"] for message in self.messages)


# -- the senders and the mover ---------------------------------------------------------


@dataclass
class Sent:
    body: dict[str, str]
    answer: Answer
    sent_at: float
    answered_at: float

    def windows(self) -> tuple[int, int]:
        """The windows the request's first and last moments fell in: the server
        counted it at some moment between them (one clock, one machine)."""
        return int(self.sent_at // WINDOW_SECONDS), int(self.answered_at // WINDOW_SECONDS)


def saying(seat: int, n: int) -> dict[str, str]:
    """The `n`th thing the player at `seat` says: a phrase, an emote or free text in
    turn, the free text distinct from anything else said."""
    if n % 3 == 0:
        return {"phrase": list(PHRASES)[n % len(PHRASES)]}
    if n % 3 == 1:
        return {"emote": list(EMOTES)[n % len(EMOTES)]}
    return {"text": f"seat {seat} says line {n}"}


def talk(player: Client, seat: int, game_id: str, until: float) -> list[Sent]:
    """Messages sent back to back until `until` (time.time()); after a refusal, the
    next one only a short pause later."""
    sent: list[Sent] = []
    while time.time() < until:
        body = saying(seat, len(sent))
        sent_at = time.time()
        answer = player.post(f"/games/{game_id}/messages", body)
        sent.append(Sent(body, answer, sent_at, time.time()))
        if answer.status == 429:
            time.sleep(PAUSE_AFTER_REFUSAL)
        elif answer.status != 201:
            break  # reported by the test
    return sent


@dataclass
class Move:
    player_seat: int
    version_read: int
    answer: Answer


def one_move(player: Client, seat: int, game_id: str) -> Move:
    """The move of the player at `seat`, who is to act (`send_a_move`)."""
    version_read, answer = send_a_move(player, game_id)
    return Move(seat, version_read, answer)


def play(table: Table, talking: threading.Event) -> list[Move]:
    """Moves of whichever seat is to act while the players talk; the first move
    refused, or a game that stops running, ends them."""
    game = view(table.by_seat[0], table.game_id)
    moves: list[Move] = []
    while talking.is_set() and game["status"] == "playing":
        seat = actor(game)
        moves.append(one_move(table.by_seat[seat], seat, table.game_id))
        if moves[-1].answer.status != 200:
            break
        game = moves[-1].answer.body["game"]
    return moves


def run_together(calls: Mapping[Key, Callable[[], Any]]) -> dict[Key, Any]:
    """Each call on a thread of its own, all at once; their results by name. A call
    that raised fails the test with its error."""
    results: dict[Key, Any] = {}

    def run(name: Key) -> None:
        try:
            results[name] = calls[name]()
        except BaseException as error:  # reported in the test's thread
            results[name] = error

    threads = [threading.Thread(target=run, args=(name,), daemon=True) for name in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(THREAD_SECONDS)
    failed = {name: result for name, result in results.items() if isinstance(result, BaseException)}
    assert not failed, failed
    assert set(results) == set(calls), "a thread did not finish"
    return results


# -- what the run must show --------------------------------------------------------


def assert_only_moves_moved_the_game(moves: list[Move], first: int, final: int) -> None:
    refused = [
        (m.player_seat, m.version_read, m.answer.status, m.answer.body)
        for m in moves
        if m.answer.status != 200
    ]
    assert refused == []
    assert moves, "no move was played"
    versions = [m.answer.body["game"]["version"] for m in moves]
    assert versions == list(range(first + 1, first + 1 + len(moves)))
    assert [m.version_read for m in moves] == list(range(first, first + len(moves)))
    assert final == first + len(moves)


def assert_refused_only_by_the_limit(sent: list[Sent]) -> None:
    for said in sent:
        answer = said.answer
        assert answer.status in (201, 429), (answer.status, answer.body)
        if answer.status == 429:
            assert answer.body["error"]["code"] == "rate_limited", answer.body
            wait = int(answer.headers["retry-after"])
            assert 1 <= wait <= WINDOW_SECONDS
            assert answer.body["error"]["details"]["retry_after"] == wait


def assert_no_window_took_more_than_the_limit(sent: list[Sent]) -> None:
    """Counted per window the request fell in whole: one that straddled a window's
    end may have been counted in either."""
    inside: Counter[int] = Counter()
    for said in sent:
        first, last = said.windows()
        if said.answer.status == 201 and first == last:
            inside[first] += 1
    assert max(inside.values()) <= LIMIT, inside


def assert_refusals_came_only_once_the_window_was_full(sent: list[Sent]) -> None:
    """A refusal in a window means the limit's number of messages were accepted in
    it before: each was counted during its request, which so overlapped the window."""
    accepted = [said for said in sent if said.answer.status == 201]
    refused = [said for said in sent if said.answer.status == 429]
    assert refused, "the sender never reached the limit"
    for refusal in refused:
        first, last = refusal.windows()
        if first != last:
            continue
        overlapping = [s for s in accepted if s.windows()[0] <= first <= s.windows()[1]]
        assert len(overlapping) >= LIMIT, (refusal.body, first, len(overlapping))


def test_four_players_talking_as_fast_as_allowed_lose_no_message_and_stale_no_move(
    server: Served,
) -> None:
    table = table_of_four(server)
    streams = {
        seat: TableStream.open(server, player, table.game_id)
        for seat, player in table.by_seat.items()
    }
    first_version = view(table.by_seat[0], table.game_id)["version"]
    until = time.time() + TALKING_SECONDS
    talking = threading.Event()
    talking.set()

    def talker(seat: int) -> Callable[[], list[Sent]]:
        return lambda: talk(table.by_seat[seat], seat, table.game_id, until)

    def mover() -> list[Move]:
        return play(table, talking)

    def senders_then_stop_the_mover() -> dict[int, Any]:
        try:
            return run_together({seat: talker(seat) for seat in table.by_seat})
        finally:
            talking.clear()

    results = run_together({"talk": senders_then_stop_the_mover, "moves": mover})
    sent_by_seat: dict[int, list[Sent]] = results["talk"]
    moves: list[Move] = results["moves"]

    # The moves: every one taken, each moving the game by one version, nothing else
    # moving it.
    final = view(table.by_seat[0], table.game_id)
    assert_only_moves_moved_the_game(moves, first_version, final["version"])

    # The limit: refusals only from it, never more than it in a window, and only
    # once the window was full.
    for sent in sent_by_seat.values():
        assert_refused_only_by_the_limit(sent)
        assert_no_window_took_more_than_the_limit(sent)
        assert_refusals_came_only_once_the_window_was_full(sent)

    # The streams: every message accepted, exactly once on each, as it was answered.
    accepted = {
        said.answer.body["id"]: said.answer.body
        for sent in sent_by_seat.values()
        for said in sent
        if said.answer.status == 201
    }
    for seat, stream in streams.items():
        wait_until(
            lambda stream=stream: set(stream.take().message_ids()) >= set(accepted) or stream.ended,
            f"seat {seat}'s stream carrying every message",
            DELIVERY_SECONDS,
        )
    # Then one more, from someone watching with the code: the streams carry a table's
    # messages in order, so once it has come anything said before it has come too,
    # a second copy included.
    watcher = server.client().sign_up("Eve")
    last = watcher.post(
        f"/games/{table.game_id}/messages?code={table.invite_code}", {"emote": "clap"}
    )
    assert last.status == 201, last.body
    for seat, stream in streams.items():
        wait_until(
            lambda stream=stream: last.body["id"] in stream.take().message_ids() or stream.ended,
            f"seat {seat}'s stream carrying the watcher's emote",
            DELIVERY_SECONDS,
        )
    for stream in streams.values():
        assert not stream.ended
        assert stream.message_ids() == Counter([*accepted, last.body["id"]])
        for message in stream.messages:
            assert message == accepted.get(message["id"], last.body)

    # The moves' events: all of them, in order, and the last view, on every stream.
    for seat, stream in streams.items():
        wait_until(
            lambda stream=stream: stream.take().last_view["version"] == final["version"],
            f"seat {seat}'s stream showing the last move",
            DELIVERY_SECONDS,
        )
        assert stream.seqs == list(range(stream.opened_at_seq + 1, final["last_seq"] + 1))
        stream.reader.close()

    counts = {
        seat: Counter(said.answer.status for said in sent) for seat, sent in sent_by_seat.items()
    }
    print(f"moves played: {len(moves)}; messages by seat (status: count): {counts}")
