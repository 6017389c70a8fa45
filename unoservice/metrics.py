"""The service's Prometheus metrics, counted in every process and read at ``/metrics``.

prometheus-client's multiprocess mode: each process (every server worker, every
Celery worker process) writes its counts to memory-mapped files in ``METRICS_DIR``
(the environment variable ``PROMETHEUS_MULTIPROC_DIR``), and a scrape adds them up.
Processes sharing the folder may live on different hosts (containers sharing a
volume, API replicas among them), so a process is named by its host and its pid,
not its pid alone, and a host's servers hold a lock file there while they run
(`forget_live_gauges`).

Every family has labels: a labelled family opens no file until it first counts,
so a process that never counts (a management command) leaves no file behind, and a
test run may point the folder elsewhere before anything is counted.

Two families are read when scraped rather than counted, and handed to `scrape` by
the page (`unoservice.metrics_view`): the broker's queue (`uno_celery_queue_length`,
`unoservice.queue_metrics`) and games by status (`uno_games`, from the database:
`games.metrics`, named by the ``METRICS_SCRAPED_COLLECTORS`` setting, since the
service package imports nothing of the apps). Nothing here imports the Celery
application, which loads this module (through `unoservice.observability`).
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import logging
import os
import socket
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    values,
)
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

log = logging.getLogger(__name__)

# A file name holds the identifier after its last "_": the host may not contain one.
HOST = socket.gethostname().replace("_", "-")


def _identify_this_process() -> None:
    global _this_process
    _this_process = f"{HOST}-{os.getpid()}"


_this_process = ""
_identify_this_process()
# Each forked worker is a process of its own, with files of its own.
os.register_at_fork(after_in_child=_identify_this_process)


def process_identifier() -> str:
    # Asked on every change of every value (prometheus_client checks for a fork):
    # a system call each time cost more than the change itself.
    return _this_process


# Set before any family is made: each value is created by this class.
values.ValueClass = values.MultiProcessValue(process_identifier)  # type: ignore[no-untyped-call]

CONTENT_TYPE = CONTENT_TYPE_LATEST

# Seconds: from a millisecond (a cached read) to the 30 s a request may take.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
# Bots decide in microseconds (random) to a second or more (expert rollouts).
DECISION_BUCKETS = (0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)
# Reaction and lateness: around BOT_THINK_SECONDS and TURN_SWEEP_SECONDS.
DELAY_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 1.5, 2, 3, 5, 10, 30, 60)

# -- HTTP ---------------------------------------------------------------------------

REQUESTS = Counter(
    "uno_http_requests",
    "HTTP requests, by route (the URL pattern), method and status "
    "(499: the client went before its answer was complete).",
    ["route", "method", "status"],
)
REQUEST_SECONDS = Histogram(
    "uno_http_request_duration_seconds",
    "Time from a request's arrival to its answer's start (for a stream: to its opening; "
    "none for a client that went before any answer).",
    ["route", "method"],
    buckets=LATENCY_BUCKETS,
)

HTTP_REFUSED = Counter(
    "uno_http_refused",
    "Connections and requests the server refused before the application saw them, by "
    "reason: uri_too_long, headers_too_large, invalid, head_timeout, idle (nothing sent "
    "in time), busy (the process's connection cap), address (one peer's connection "
    "cap), payload_too_large, body_timeout, bodies (the bodies held at once).",
    ["reason"],
)

# -- moves --------------------------------------------------------------------------

MOVES = Counter(
    "uno_moves_applied",
    "Moves applied, by action and by who made it (player, bot, or timer for a timeout).",
    ["action", "actor"],
)
MOVES_REJECTED = Counter(
    "uno_moves_rejected",
    "Moves and challenge decisions refused by the API, by error code.",
    ["code"],
)
GAMES_ENDED = Counter(
    "uno_games_ended",
    "Games that ended, by how (finished, abandoned) and whether they were rated.",
    ["status", "rated"],
)

# -- live play ----------------------------------------------------------------------

STREAMS_OPEN = Gauge(
    "uno_streams_open",
    "Streams open now, by kind (game, lobby).",
    ["kind"],
    multiprocess_mode="livesum",
)
LONG_POLLS_WAITING = Gauge(
    "uno_long_polls_waiting",
    "Long polls waiting for a change now, by resource (events).",
    ["resource"],
    multiprocess_mode="livesum",
)
DELIVERY_SECONDS = Histogram(
    "uno_stream_delivery_seconds",
    "From a change (the time of its last event) to its first frame written to a stream"
    " of this process, by stream kind (game, lobby).",
    ["kind"],
    buckets=LATENCY_BUCKETS,
)

# -- bots and timers ----------------------------------------------------------------

BOT_DECISION_SECONDS = Histogram(
    "uno_bot_decision_seconds",
    "Time a bot spends choosing its move, by strategy.",
    ["strategy"],
    buckets=DECISION_BUCKETS,
)
BOT_REACTION_SECONDS = Histogram(
    "uno_bot_reaction_seconds",
    "From the change that gave a bot its turn to the bot's move applied (the think time"
    " BOT_THINK_SECONDS included), by strategy.",
    ["strategy"],
    buckets=DELAY_BUCKETS,
)
TIMEOUT_LATENESS_SECONDS = Histogram(
    "uno_timeout_lateness_seconds",
    "How long after its deadline a turn timeout was applied, by path (timer: its own"
    " task; sweep: the sweeper's backstop).",
    ["path"],
    buckets=DELAY_BUCKETS,
)

# -- tasks --------------------------------------------------------------------------

TASKS = Counter(
    "uno_tasks",
    "Celery tasks run, by name and outcome (applied: changed a game; stale: the game had"
    " moved on; done: a task with nothing to report; failed; retried).",
    ["task", "outcome"],
)
TASK_SECONDS = Histogram(
    "uno_task_duration_seconds",
    "Time a Celery task ran, by name.",
    ["task"],
    buckets=LATENCY_BUCKETS,
)
SWEEPS = Counter(
    "uno_sweeps",
    "Sweeper runs, by result (idle: nothing was overdue; applied: something was).",
    ["result"],
)
SWEPT = Counter(
    "uno_swept",
    "What the sweeper applied, by kind (timeouts, bot_moves, pauses_ended,"
    " quick_matches_started): each one a timer or task that came late or was lost.",
    ["kind"],
)


# -- push notifications -------------------------------------------------------------

# From the change to the push service's acceptance: a second when all goes well,
# minutes when a push service asked to wait, an hour or more when retries run long.
NOTIFICATION_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600)

NOTIFICATIONS = Counter(
    "uno_notifications",
    "Notifications to players away from the table, by kind, channel (webpush, fcm, apns;"
    " none before a device was tried) and outcome (sent; retried: to be tried again;"
    " gone: the device no longer exists and was deleted; failed; rate_limited; disabled:"
    " the player turned the kind off; no_device).",
    ["kind", "channel", "outcome"],
)
NOTIFICATION_DELIVERY_SECONDS = Histogram(
    "uno_notification_delivery_seconds",
    "From the change that caused a notification to a push service accepting it, by"
    " channel (retries included).",
    ["channel"],
    buckets=NOTIFICATION_BUCKETS,
)


def directory() -> str:
    return os.environ["PROMETHEUS_MULTIPROC_DIR"]


def scrape(*read_now: Collector) -> bytes:
    """Every process's counts, added up, with the families of `read_now` (the
    broker's queue, the apps' own such as games by status) read now."""
    registry = CollectorRegistry(auto_describe=False)
    MultiProcessCollector(registry, path=directory())  # type: ignore[no-untyped-call]
    for collector in read_now:
        registry.register(collector)
    return generate_latest(registry)


def current(name: str, **labels: str) -> float:
    """One sample added up over every process, read from the files (no scrape):
    `name` is the sample's name (``uno_moves_applied_total``), 0 when never counted."""
    total = 0.0
    for family in _counted():
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                total += sample.value
    return total


def open_streams() -> dict[str, int]:
    """The streams open now in every server process, by kind (game, lobby)."""
    opened = {"game": 0, "lobby": 0}
    for family in _counted():
        if family.name == "uno_streams_open":
            for sample in family.samples:
                kind = sample.labels.get("kind", "")
                opened[kind] = opened.get(kind, 0) + int(sample.value)
    return opened


def _counted() -> Any:
    files = glob.glob(os.path.join(directory(), "*.db"))
    return MultiProcessCollector.merge(files, accumulate=True)  # type: ignore[no-untyped-call]


def forget_live_gauges() -> None:
    """Drop the live gauges left by servers of hosts where none runs any more (this
    one's earlier servers, containers since removed): they would count streams that
    closed with them. Then hold this host's lock for as long as this process and
    the workers it forks live.

    A server holds its host's lock file shared; a host whose lock can be taken
    exclusively has no server left. The kernel drops the locks of a process that
    exits however it ends (a container killed included), and containers sharing the
    volume share the kernel. Without locks (a file system that has none), only this
    host's own are dropped, as when one server ran per host."""
    global _host_lock
    if _host_lock is not None:  # already holding it: this host has a server
        return
    try:
        for lock in glob.glob(os.path.join(directory(), "host_*.lock")):
            _forget_if_gone(lock)
        _forget_if_gone(_lock_path(HOST))
        _host_lock = _hold(_lock_path(HOST))
    except OSError:
        _forget(HOST)


_host_lock: int | None = None


def _lock_path(host: str) -> str:
    return os.path.join(directory(), f"host_{host}.lock")


def _forget(host: str) -> None:
    for path in glob.glob(os.path.join(directory(), f"gauge_live*_{host}-*.db")):
        with contextlib.suppress(FileNotFoundError):  # another server took it first
            os.remove(path)


def _forget_if_gone(lock: str) -> None:
    """Forget the live gauges of the host of `lock` if none of its servers holds it."""
    host = os.path.basename(lock)[len("host_") : -len(".lock")]
    try:
        # Only this host's is made: another's may have been removed meanwhile.
        descriptor = os.open(lock, os.O_RDWR | (os.O_CREAT if host == HOST else 0), 0o644)
    except FileNotFoundError:  # forgotten by another server
        return
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return  # a server of that host runs
        _forget(host)
        if host != HOST:
            _remove_if_same(lock, descriptor)
    finally:
        os.close(descriptor)


def _remove_if_same(lock: str, descriptor: int) -> None:
    """Remove `lock` unless the file at that path is no longer the one `descriptor`
    holds (another server removed it, and its host made a new one)."""
    with contextlib.suppress(FileNotFoundError):
        if os.stat(lock).st_ino == os.fstat(descriptor).st_ino:
            os.remove(lock)


def _hold(lock: str) -> int:
    """A descriptor holding `lock` shared: the file at that path now, not one another
    server removed between the opening and the locking."""
    while True:
        descriptor = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(descriptor, fcntl.LOCK_SH)
        with contextlib.suppress(FileNotFoundError):
            if os.stat(lock).st_ino == os.fstat(descriptor).st_ino:
                return descriptor
        os.close(descriptor)


def process_exited(pid: int) -> None:
    """A server process of this host exited: its live gauges no longer count."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(f"{HOST}-{pid}", directory())  # type: ignore[no-untyped-call]
