"""Table talk beside the played game of the streams benchmark (`bench.streams --chat`).

The played phase runs three times in one run, the second time with table talk going
on (the third, without, measures how much two runs without talk differ: `noise`):

- the played game's two players each say catalogue phrases and emotes at the table
  at the allowed rate, `TALK_MESSAGES_PER_WINDOW` per `TALK_WINDOW_SECONDS` per
  player and table (5 per 10 s; read from the environment, as the spawned server
  reads it). Each must reach the other player's stream once: `lost`, `duplicated`;
- one seated player of each of `--chat-tables` quiet games (default: every one)
  says something at the same rate, so that each message fans out to that game's
  open streams (with 2,000 streams, 20 per game: 100 senders, 50 messages a second,
  1,000 message frames a second). The fraction of the messages each open quiet
  stream should have had that it got is `received_fraction`.

All three make the same moves: the CPU the second used beyond the first (the bench,
the server, its database), per message accepted, is `cpu_ms_per_message`.

The server counts a player's messages in fixed windows aligned on the epoch
(games.talk.limits): each sender keeps to slots `SPACING` apart in each window from
an offset of its own (spread over the spacing, so that the quiet games' messages
come evenly), never in a window's last `MARGIN` (a message counted a little
late would fall into the next) nor beyond its number: at or just under the rate. A
refusal (429) is counted, not retried. The played game's players also speak as soon
as each table opens, if their window has room, so that a short game hears them. A
game's streams end with it: a played game's message not answered before the move
that ended the game was sent may come too late for them (`at_the_end`, not lost).

Messages are `event: message` frames without an id on the game's stream
(docs/api.md, "Table talk"); `streams.Stream` hands them to `on_message` and never
takes them for the game's events.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.load import API, percentile
from bench.streams import Http, Play, Probe, Slot, Stream, Target, TransportError, call, error_key
from unoservice.env import env_int

# As unoservice.settings reads them: the spawned server shares this environment.
PER_WINDOW = env_int("TALK_MESSAGES_PER_WINDOW", 5)
WINDOW_SECONDS = env_int("TALK_WINDOW_SECONDS", 10)
SPACING = WINDOW_SECONDS / PER_WINDOW
MARGIN = min(0.5, SPACING / 4)
# How long the last messages may take to reach every stream once talk stops.
DELIVERY_TIMEOUT = 10.0
WHO = ("client", "server", "database")


@dataclass
class Pace:
    """When one sender may speak: slots `offset` + k * `SPACING` into each of the
    server's windows (wall-clock time, as the server counts), at most `PER_WINDOW`
    sent in one window and none in its last `MARGIN`."""

    offset: float
    window: int = -1
    sent_in_window: int = 0

    def _room(self, window: int) -> bool:
        return window != self.window or self.sent_in_window < PER_WINDOW

    def room_now(self, now: float) -> bool:
        window = math.floor(now / WINDOW_SECONDS)
        return self._room(window) and now <= (window + 1) * WINDOW_SECONDS - MARGIN

    def next_slot(self, now: float) -> float:
        window = math.floor(now / WINDOW_SECONDS)
        while True:
            start = window * WINDOW_SECONDS
            if self._room(window):
                for k in range(PER_WINDOW):
                    at = start + self.offset + k * SPACING
                    if now <= at <= start + WINDOW_SECONDS - MARGIN:
                        return at
            window += 1

    def sent(self, at: float) -> None:
        window = math.floor(at / WINDOW_SECONDS)
        if window != self.window:
            self.window, self.sent_in_window = window, 0
        self.sent_in_window += 1


def offsets(count: int) -> list[float]:
    """`count` offsets spread evenly over a slot's room (`SPACING` less `MARGIN`)."""
    room = SPACING - MARGIN
    return [room * i / max(count, 1) for i in range(count)]


@dataclass
class Said:
    """When a message was sent and when its answer came (perf_counter())."""

    written: float
    answered: float


@dataclass
class Counts:
    sent: int = 0
    accepted: int = 0
    refused: int = 0  # 429: over the rate
    errors: Counter[str] = field(default_factory=Counter)  # any other answer, or none

    def figures(self) -> dict[str, Any]:
        return {**vars(self), "errors": dict(self.errors)}


def sayings(catalogue: dict[str, Any]) -> Iterator[dict[str, str]]:
    """Phrases and emotes of the catalogue in turn, without end."""
    phrases = [{"phrase": p["code"]} for p in catalogue["phrases"]]
    emotes = [{"emote": e["code"]} for e in catalogue["emotes"]]
    mixed = [m for pair in itertools.zip_longest(phrases, emotes) for m in pair if m]
    return itertools.cycle(mixed)


class Sender:
    """One seated player saying something at a table, at its pace."""

    def __init__(
        self, target: Target, token: str, offset: float, say: Iterator[dict[str, str]]
    ) -> None:
        self.conn = Http(target)
        self.token = token
        self.pace = Pace(offset)
        self.say = say

    async def send(self, game_id: str, counts: Counts) -> tuple[int, Said] | None:
        """(message id, when it was written and answered) when accepted."""
        written: list[float] = []
        self.pace.sent(time.time())
        counts.sent += 1
        try:
            status, data = await self.conn.request(
                "POST",
                f"{API}/games/{game_id}/messages",
                next(self.say),
                self.token,
                on_write=written.append,
            )
        except TransportError as error:
            counts.errors[f"transport {error.reason}"] += 1
            return None
        if status == 201 and isinstance(data, dict) and isinstance(data.get("id"), int):
            counts.accepted += 1
            return data["id"], Said(written[0], time.perf_counter())
        if status == 429:
            counts.refused += 1
        else:
            counts.errors[error_key(status, data)] += 1
        return None


async def talk_until(
    sender: Sender,
    game_id: str,
    counts: Counts,
    stop: asyncio.Event,
    accepted: Callable[[int, Said], None],
    at_once: bool = False,
) -> None:
    """`sender` speaks at `game_id`'s table at each of its slots until `stop` (a
    message under way is finished, not cut off); `accepted` gets each accepted
    message's id and times. With `at_once`, it first speaks right away if its window
    has room."""
    while not stop.is_set():
        now = time.time()
        at = now if at_once and sender.pace.room_now(now) else sender.pace.next_slot(now)
        at_once = False
        if at > now:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), at - now)
            if stop.is_set():
                return
        said = await sender.send(game_id, counts)
        if said is not None:
            accepted(*said)


class Heard:
    """The messages one stream showed: when each id first came, and repeats (a
    frame without a message id is not heard: its message counts as lost)."""

    def __init__(self) -> None:
        self.first: dict[int, float] = {}
        self.repeats: Counter[int] = Counter()

    def __call__(self, data: str, now: float) -> None:
        try:
            found = json.loads(data).get("id")
        except (ValueError, AttributeError):
            found = None
        if found in self.first:
            self.repeats[found] += 1
        elif found is not None:
            self.first[found] = now


async def wait_for(condition: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        await asyncio.sleep(0.1)


class PlayedTalk:
    """The played game's two players talking while they play (`streams.play`
    opens and closes each table)."""

    def __init__(self, target: Target, say: Iterator[dict[str, str]]) -> None:
        self.target = target
        self.say = say
        self.senders: list[Sender] = []
        self.counts = Counts()
        self.deliveries: list[float] = []
        self.lost = 0
        self.duplicated = 0
        self.at_the_end = 0
        self._table: tuple[list[Heard], list[dict[int, Said]]] | None = None
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Future[None]] = []

    def open_table(self, game_id: str, tokens: Sequence[str], streams: Sequence[Stream]) -> None:
        if not self.senders:
            self.senders = [
                Sender(self.target, token, offset, self.say)
                for token, offset in zip(tokens, offsets(len(tokens)), strict=True)
            ]
        heard = [Heard() for _ in streams]
        for stream, ear in zip(streams, heard, strict=True):
            stream.on_message = ear
        said: list[dict[int, Said]] = [{} for _ in self.senders]
        self._table = (heard, said)
        self._stop = asyncio.Event()
        self._tasks = [
            asyncio.ensure_future(
                talk_until(sender, game_id, self.counts, self._stop, mine.__setitem__, True)
            )
            for sender, mine in zip(self.senders, said, strict=True)
        ]

    async def close_table(self, over: float | None) -> None:
        """Stop talking at the table, wait for the other player's stream to show
        what each said, and count what it did not show, or showed twice. `over`: when
        the move that ended the game was sent, if it ended. The server ends the
        game's streams then: a message not answered before that may have come after
        the end, and need not be shown (`at_the_end`)."""
        if self._table is None:
            return
        self._stop.set()
        await asyncio.gather(*self._tasks)
        heard, said = self._table
        self._table = None
        pairs = [(said[seat], heard[1 - seat]) for seat in range(2)]

        def all_seen() -> bool:
            return all(
                message in ear.first
                for sent, ear in pairs
                for message, times in sent.items()
                if over is None or times.answered <= over
            )

        await wait_for(all_seen, DELIVERY_TIMEOUT)
        for sent, ear in pairs:
            for message, times in sent.items():
                if message in ear.first:
                    self.deliveries.append(ear.first[message] - times.written)
                elif over is not None and times.answered > over:
                    self.at_the_end += 1
                else:
                    self.lost += 1
                self.duplicated += ear.repeats[message]

    def close(self) -> None:
        for sender in self.senders:
            sender.conn.close()

    def figures(self) -> dict[str, Any]:
        return {
            **self.counts.figures(),
            "delivered": len(self.deliveries),
            "lost": self.lost,
            "duplicated": self.duplicated,
            "at_the_end": self.at_the_end,
            "delivery_p50_ms": percentile(self.deliveries, 50),
            "delivery_p99_ms": percentile(self.deliveries, 99),
        }


class QuietTalk:
    """One seated player of each of `tables` quiet games talking; every quiet stream
    listening."""

    def __init__(
        self,
        target: Target,
        slots: Sequence[Slot],
        streams: Sequence[Stream],
        tables: int,
        say: Iterator[dict[str, str]],
    ) -> None:
        speakers: dict[str, str] = {}
        for slot in slots:
            if slot.seated and len(speakers) < tables:
                speakers.setdefault(slot.game_id, slot.token)
        paced = zip(speakers.items(), offsets(len(speakers)), strict=True)
        self.senders = {game: Sender(target, token, at, say) for (game, token), at in paced}
        self.games = [slot.game_id for slot in slots]
        self.streams = streams
        self.heard = [Heard() for _ in streams]
        for stream, ear in zip(streams, self.heard, strict=True):
            stream.on_message = ear
        self.said: dict[str, dict[int, Said]] = {game_id: {} for game_id in set(self.games)}
        self.counts = Counts()
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Future[None]] = []
        self.seconds = 0.0

    def start(self) -> None:
        self._started = time.perf_counter()
        self._tasks = [
            asyncio.ensure_future(
                talk_until(sender, game_id, self.counts, self._stop, self.said[game_id].__setitem__)
            )
            for game_id, sender in self.senders.items()
        ]

    async def stop(self) -> None:
        self._stop.set()
        await asyncio.gather(*self._tasks)
        self.seconds = time.perf_counter() - self._started
        await wait_for(lambda: len(self._deliveries()) >= self._expected(), DELIVERY_TIMEOUT)
        for sender in self.senders.values():
            sender.conn.close()

    def _listening(self) -> Iterator[tuple[str, Heard]]:
        """(game, what it heard) of each stream still open."""
        for game_id, stream, ear in zip(self.games, self.streams, self.heard, strict=True):
            if stream.opened.is_set() and not stream.failed:
                yield game_id, ear

    def _expected(self) -> int:
        return sum(len(self.said[game_id]) for game_id, _ in self._listening())

    def _deliveries(self) -> list[float]:
        return [
            ear.first[message] - times.written
            for game_id, ear in self._listening()
            for message, times in self.said[game_id].items()
            if message in ear.first
        ]

    def figures(self) -> dict[str, Any]:
        deliveries, expected = self._deliveries(), self._expected()
        return {
            "senders": len(self.senders),
            "seconds": round(self.seconds, 1),
            "messages_per_second": ratio(self.counts.accepted, self.seconds),
            **self.counts.figures(),
            "expected": expected,
            "received": len(deliveries),
            "received_fraction": round(len(deliveries) / expected, 4) if expected else None,
            "duplicated": sum(sum(ear.repeats.values()) for ear in self.heard),
            "delivery_p50_ms": percentile(deliveries, 50),
            "delivery_p99_ms": percentile(deliveries, 99),
        }


@contextlib.contextmanager
def cpu(probe: Probe) -> Iterator[dict[str, Any]]:
    """The block's seconds and the CPU milliseconds the bench, the server and its
    database used meanwhile (the last two with --spawn)."""
    spent: dict[str, Any] = {}
    started = time.perf_counter()
    with probe.cpu(1) as used:
        yield spent
    spent["seconds"] = round(time.perf_counter() - started, 2)
    spent.update({f"{who}_ms": ms for who, ms in used.items()})


def cores(spent: dict[str, Any]) -> dict[str, float | None]:
    """The cores each kept busy on average."""
    return {who: ratio(spent[f"{who}_ms"], spent["seconds"] * 1000) for who in WHO}


def per_message(without: dict[str, Any], with_chat: dict[str, Any], messages: int) -> Any:
    """CPU milliseconds the talk added per message accepted: both runs make the same
    moves, so what the second used beyond the first is the talk's."""
    spent = {who: (without[f"{who}_ms"], with_chat[f"{who}_ms"]) for who in WHO}
    return {
        who: None if None in pair else ratio(pair[1] - pair[0], messages)
        for who, pair in spent.items()
    }


async def played_thrice(
    target: Target,
    probe: Probe,
    slots: Sequence[Slot],
    streams: Sequence[Stream],
    tables: int,
    play: Callable[[PlayedTalk | None], Awaitable[Play]],
) -> tuple[Play, Play, Play, dict[str, Any]]:
    """The played phase (`play`) without table talk, then with talk at the played
    table and at `tables` quiet games, then without again: (the first's figures, the
    second's, the third's, the talk's). The first and third differ by the machine's
    noise alone, the yardstick for what talk changed."""
    with cpu(probe) as plain_cpu:
        without = await play(None)
    conn = Http(target)
    say = sayings(await call(conn, "GET", f"{API}/talk/catalogue"))
    conn.close()
    quiet = QuietTalk(target, slots, streams, tables, say)
    played = PlayedTalk(target, say)
    with cpu(probe) as talk_cpu:
        quiet.start()
        try:
            # Each quiet sender's first slot comes within `SPACING`: the load is
            # steady through the moves measured.
            await asyncio.sleep(SPACING)
            chatted = await play(played)
        finally:
            played.close()
            await quiet.stop()
    again = await play(None)
    talk = {
        "played_game": played.figures(),
        "quiet_games": quiet.figures(),
        "cpu": {"without_chat": plain_cpu, "with_chat": talk_cpu},
    }
    return without, chatted, again, talk


def ratio(part: float | None, whole: float | None) -> float | None:
    return None if part is None or not whole else round(part / whole, 2)


RATIO_KEYS = ("delivery_p50_ms", "delivery_p99_ms", "move_p50_ms", "move_p99_ms")


def figures(without: Play, with_chat: Play, again: Play, talk: dict[str, Any]) -> dict[str, Any]:
    """The result's `with_chat` (the played phase's figures with talk on),
    `without_chat_again` (with talk off once more), and `chat`: what was said, how it
    arrived, the ratios with / without, and those of the two runs without (`noise`)."""
    before, after, later = without.figures(), with_chat.figures(), again.figures()
    parts = (talk["played_game"], talk["quiet_games"])
    accepted = sum(p["accepted"] for p in parts)
    spent = talk["cpu"]
    return {
        "with_chat": after,
        "without_chat_again": later,
        "chat": {
            "rate": {"per_window": PER_WINDOW, "window_seconds": WINDOW_SECONDS},
            "sent": sum(p["sent"] for p in parts),
            "accepted": accepted,
            "refused": sum(p["refused"] for p in parts),
            **talk,
            "cpu_cores": {phase: cores(used) for phase, used in spent.items()},
            "cpu_ms_per_message": per_message(spent["without_chat"], spent["with_chat"], accepted),
            "ratios": {key: ratio(after[key], before[key]) for key in RATIO_KEYS},
            "noise": {key: ratio(later[key], before[key]) for key in RATIO_KEYS},
        },
    }


def report_lines(result: dict[str, Any]) -> list[str]:
    chat, after = result["chat"], result["with_chat"]
    played, quiet = chat["played_game"], chat["quiet_games"]
    ratios, noise = chat["ratios"], chat["noise"]
    busy = chat["cpu_cores"]

    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f}"

    def cores_of(busy: dict[str, float | None]) -> str:
        return ", ".join(f"{who} {'-' if n is None else n}" for who, n in busy.items())

    return [
        f"chat on:   {after['moves']} moves in {after['games_played']} games, move p50 "
        f"{ms(after['move_p50_ms'])} ms, p99 {ms(after['move_p99_ms'])} ms; delivery p50 "
        f"{ms(after['delivery_p50_ms'])} ms, p99 {ms(after['delivery_p99_ms'])} ms, missed "
        f"{after['delivery_missed']}; errors {after['move_errors'] or 'none'}",
        f"           with / without chat: delivery p50 x{ratios['delivery_p50_ms']}, "
        f"p99 x{ratios['delivery_p99_ms']}; move p99 x{ratios['move_p99_ms']}",
        f"           without again / without (noise): delivery p50 x{noise['delivery_p50_ms']}, "
        f"p99 x{noise['delivery_p99_ms']}; move p99 x{noise['move_p99_ms']}",
        f"talk:      {chat['sent']} messages sent, {chat['accepted']} accepted, "
        f"{chat['refused']} refused (429), at most {chat['rate']['per_window']} per "
        f"{chat['rate']['window_seconds']} s per player and table",
        f"           played game: {played['accepted']}/{played['sent']} accepted, "
        f"{played['delivered']} delivered to the other player, lost {played['lost']}, "
        f"duplicated {played['duplicated']}; {played['at_the_end']} unseen said as a game ended; "
        f"p50 {ms(played['delivery_p50_ms'])} ms, p99 {ms(played['delivery_p99_ms'])} ms; "
        f"errors {played['errors'] or 'none'}",
        f"           quiet games: {quiet['senders']} senders, {quiet['accepted']}/"
        f"{quiet['sent']} accepted in {quiet['seconds']} s ({quiet['messages_per_second']}/s); "
        f"streams got {quiet['received']}/{quiet['expected']} ({quiet['received_fraction']}), "
        f"duplicated {quiet['duplicated']}; p50 {ms(quiet['delivery_p50_ms'])} ms, "
        f"p99 {ms(quiet['delivery_p99_ms'])} ms; errors {quiet['errors'] or 'none'}",
        f"           CPU cores busy without chat: {cores_of(busy['without_chat'])}; "
        f"with chat: {cores_of(busy['with_chat'])}; added per message (ms): "
        f"{cores_of(chat['cpu_ms_per_message'])}",
    ]
