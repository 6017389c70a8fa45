"""A game's live stream, read on a thread of its own and handed over on a queue.

The play loop must never block on the network while the player types, so a
`StreamReader` thread reads the stream and queues what it hears. When the
connection drops (or a server that cannot hold streams open closes each answer,
as a plain WSGI server does), it reconnects with ``Last-Event-ID`` set to the last
``id:`` it saw, so that every event reaches the queue once and none is skipped.
Table messages carry no ``id:``: the reader keeps the last message id itself and
reconnects with ``?messages_after=`` it, so that the opening repeats none.
"""

from __future__ import annotations

import http.client
import json
import queue
import threading
from collections.abc import Callable

from unoclient import sse
from unoclient.sse import Message, StreamRefused

# Pings come at least every 15 s: a stream silent for longer than this is dead.
READ_TIMEOUT = 40.0
FIRST_BACKOFF = 0.5
MAX_BACKOFF = 5.0
# Messages the client makes up itself, never sent by the server.
RECONNECTING = "reconnecting"
RECONNECTED = "reconnected"
# Messages that carry no event of the game's log, though they may carry an id.
NOT_EVENTS = frozenset({"game", "end", "message", "comment", RECONNECTING, RECONNECTED})

Item = Message | StreamRefused
Connect = Callable[..., tuple[http.client.HTTPConnection, http.client.HTTPResponse]]


def retry_after(refused: StreamRefused, default: float) -> float:
    raw = {k.lower(): v for k, v in refused.headers.items()}.get("retry-after", "")
    return float(raw) if raw.isdigit() else default


class StreamReader:
    """Reads `url` until the server sends ``end`` or `stop` is called.

    `get` hands out the messages in order: each game event once, every ``game``
    view, the ``end``; ``reconnecting``/``reconnected`` when the server could not be
    reached and then could again. A refusal that retrying cannot mend (401, 403,
    404, ...) is handed out as the `StreamRefused` itself, and the reader stops.
    """

    def __init__(
        self,
        url: str,
        headers: dict[str, str] | None = None,
        *,
        after: int | None = None,
        backoff: float = FIRST_BACKOFF,
        max_backoff: float = MAX_BACKOFF,
        timeout: float = READ_TIMEOUT,
        connect: Connect = sse.connect,
    ) -> None:
        self.url = url
        self.headers = dict(headers or {})
        self.last_id = after
        self.last_message: int | None = None  # the newest table message's id seen
        self._said: set[int] = set()  # the table messages' ids queued already
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.timeout = timeout
        self.connect = connect
        self.connections = 0
        self.queue: queue.Queue[Item] = queue.Queue()
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._open: tuple[http.client.HTTPConnection, http.client.HTTPResponse] | None = None
        self._thread = threading.Thread(target=self._run, name="uno-stream", daemon=True)

    def start(self) -> StreamReader:
        self._thread.start()
        return self

    def get(self, timeout: float) -> Item | None:
        """The next message, waiting up to `timeout` s for one (0: only if queued)."""
        try:
            if timeout <= 0:
                return self.queue.get_nowait()
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def stop(self) -> None:
        self._stopped.set()
        with self._lock:
            current, self._open = self._open, None
        if current is not None:
            sse.close(*current)  # wakes the thread out of its blocking read
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    # -- the thread ---------------------------------------------------------------------

    def _run(self) -> None:
        failures = 0
        while not self._stopped.is_set():
            headers = dict(self.headers)
            if self.last_id is not None:
                headers["Last-Event-ID"] = str(self.last_id)
            try:
                opened = self.connect(self.current_url(), headers, timeout=self.timeout)
            except StreamRefused as refused:
                if refused.status != 429 and refused.status < 500:
                    self.queue.put(refused)
                    return
                failures += 1
                self._tell_failure(failures, str(refused))
                self._stopped.wait(retry_after(refused, self._delay(failures)))
                continue
            except (OSError, http.client.HTTPException) as error:
                failures += 1
                self._tell_failure(failures, str(error))
                self._stopped.wait(self._delay(failures))
                continue
            if failures:
                self.queue.put(Message(RECONNECTED, ""))
            failures = 0
            self.connections += 1
            if self._follow(opened):
                return
            self._stopped.wait(self.backoff)

    def _follow(self, opened: tuple[http.client.HTTPConnection, http.client.HTTPResponse]) -> bool:
        """Queue the messages of one connection; True once the stream has ended."""
        with self._lock:
            if self._stopped.is_set():
                sse.close(*opened)
                return True
            self._open = opened
        try:
            for message in sse.messages(opened[1]):
                if self._fresh(message):
                    self.queue.put(message)
                if message.event == "end":
                    self._stopped.set()
                    return True
        except (OSError, ValueError, AttributeError, http.client.HTTPException):
            pass  # a dropped connection (or `stop` closing it under us): go round again
        finally:
            with self._lock:
                if self._open is opened:
                    self._open = None
            sse.close(*opened)
        return self._stopped.is_set()

    def current_url(self) -> str:
        """The stream's URL, after the last table message seen when there was one."""
        if self.last_message is None:
            return self.url
        joiner = "&" if "?" in self.url else "?"
        return f"{self.url}{joiner}messages_after={self.last_message}"

    def _fresh(self, message: Message) -> bool:
        """Whether `message` is new to the reader; keeps the last id seen."""
        if message.event == "message":
            return self._fresh_talk(message)
        if message.id is None or not message.id.isdigit():
            return True
        seq = int(message.id)
        if message.event not in NOT_EVENTS and self.last_id is not None and seq <= self.last_id:
            return False  # replayed by a server that resumed too early: shown already
        self.last_id = seq if self.last_id is None else max(self.last_id, seq)
        return True

    def _fresh_talk(self, message: Message) -> bool:
        """Whether a table message is new to the reader; keeps the newest id."""
        try:
            said = json.loads(message.data).get("id")
        except (ValueError, AttributeError):
            return True  # not one to count: the reader of the queue judges it
        if not isinstance(said, int):
            return True
        if said in self._said:
            return False
        self._said.add(said)
        self.last_message = said if self.last_message is None else max(self.last_message, said)
        return True

    def _tell_failure(self, failures: int, why: str) -> None:
        if failures == 1:  # once for a run of failures, however long
            self.queue.put(Message(RECONNECTING, why))

    def _delay(self, failures: int) -> float:
        return float(min(self.backoff * 2 ** (failures - 1), self.max_backoff))


def stream_url(base: str, game_id: str) -> str:
    return f"{base}/games/{game_id}/stream"


def auth_headers(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}
