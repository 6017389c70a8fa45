"""What the service tells its operators of each request and each task: a log line,
the request metrics, and a request id that follows the work into the tasks it sends.

A request is observed once, by whoever sees all of it:

- Under the server (`unoservice.asgi`), `ObservedASGI` wraps the whole application:
  it times a request from its arrival (waiting for a thread included) to its answer,
  and a stream for as long as it stays open. Django's middleware then only names
  what it served (the route, the player, the game) on the shared `Exchange`. A
  client that goes before its answer is complete (the server's ``http.disconnect``
  reaches whoever waits on it: a long poll, a stream, a body being read, a request
  on its thread) is logged and counted as 499, nginx's "client closed request".
- Elsewhere (the test client, a plain WSGI server) the middleware observes alone.

The request id is the client's ``X-Request-ID`` when it is a sane token, else a new
one; the answer carries it back. It is set in a context variable for the log lines
written meanwhile, put in the headers of every task sent, and set again in the
worker while the task runs: a bot's move, the timeout it arms and the next bot's
move all log the id of the request that started them. A task sent by nobody's
request (beat's sweep) goes by its own task id.
"""

from __future__ import annotations

import contextvars
import logging
import random
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from celery import signals
from django.conf import settings
from pythonjsonlogger.orjson import OrjsonFormatter as _JsonFormatter

from unoservice import metrics
from unoservice.asgi_types import Message, Receive, Scope, Send

if TYPE_CHECKING:  # the Celery app loads this module: it keeps out of the web layer
    from django.http import HttpRequest, HttpResponse

requests_log = logging.getLogger("unoservice.requests")
tasks_log = logging.getLogger("unoservice.tasks")

REQUEST_ID_HEADER = "X-Request-ID"
TASK_HEADER = "request_id"  # the task message header that carries it
# What the service takes from a client as a request id: a short token, nothing that
# could break a log line or a header.
REQUEST_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:+/=-]{0,127}")
# The key of the exchange in an ASGI scope and in the WSGI environ built from it.
EXCHANGE_KEY = "uno.exchange"
# Methods named as they are in the metrics; anything else counts as "other", so that
# a client cannot make up label values.
METHODS = frozenset(("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"))
UNMATCHED = "unmatched"
# nginx's status for a request whose client closed the connection before the answer
# was complete: never sent, only logged and counted. A long poll or a stream left by
# its client (a closed page) is no error of the service's.
CLIENT_CLOSED_REQUEST = 499

request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "request_id", default=None
)
task_var: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "task", default=None
)


def request_id_from(header: str | None) -> str:
    """The client's request id when it is a sane token, else a new one."""
    if header and REQUEST_ID_PATTERN.fullmatch(header):
        return header
    # Not uuid4: its 16 bytes from the system cost a system call per request, and a
    # request id identifies, it protects nothing (a process's generator is seeded
    # from the system once, and again in each forked worker).
    return f"{random.getrandbits(128):032x}"


@dataclass
class Exchange:
    """One request as it is observed: what it asked, who served it and how it went."""

    method: str
    request_id: str
    route: str | None = None
    player_id: str | None = None
    game_id: str | None = None
    status: int | None = None
    started: float = field(default_factory=time.perf_counter)
    answered: float | None = None  # when the answer started
    complete: bool = False  # the answer's last byte was handed to the server
    client_gone: bool = False  # the client went before that

    def disconnected(self) -> None:
        """The server says the client went (an ASGI ``http.disconnect``)."""
        if not self.complete:
            self.client_gone = True

    def answer(self, status: int) -> None:
        if self.answered is None:
            self.status = status
            self.answered = time.perf_counter()

    def name(self, request: HttpRequest) -> None:
        """Take the route, player and game from the request Django served."""
        match = request.resolver_match
        if match is not None:
            self.route = self.route or match.route or match.view_name
            game_id = match.kwargs.get("game_id")
            if game_id is not None and self.game_id is None:
                self.game_id = str(game_id)
        elif self.route is None and request.path.startswith(f"/{settings.STATIC_URL}"):
            self.route = "static"
        if self.player_id is None:
            self.player_id = _player_id(getattr(request, "user", None))

    def finish(self) -> None:
        """Count the request and write its line."""
        ended = time.perf_counter()
        answered = self.answered if self.answered is not None else ended
        if self.client_gone:
            status = CLIENT_CLOSED_REQUEST
        else:
            status = self.status if self.status is not None else 500
        route = self.route or UNMATCHED
        method = self.method if self.method in METHODS else "other"
        metrics.REQUESTS.labels(route, method, str(status)).inc()
        if self.answered is not None or not self.client_gone:  # no answer: no latency
            metrics.REQUEST_SECONDS.labels(route, method).observe(answered - self.started)
        if requests_log.isEnabledFor(logging.INFO):
            duration_ms = round((ended - self.started) * 1000, 2)
            requests_log.info(
                "%s %s %s %.2fms",
                self.method,
                route,
                status,
                duration_ms,
                extra={
                    "method": self.method,
                    "route": route,
                    "status": status,
                    "duration_ms": duration_ms,
                    "first_byte_ms": round((answered - self.started) * 1000, 2),
                    "player_id": self.player_id,
                    "game_id": self.game_id,
                    "request_id": self.request_id,
                },
            )


def _player_id(user: Any) -> str | None:
    """The id of the player a request was authenticated as (None for staff and for
    the anonymous)."""
    from players.models import Player

    return str(user.pk) if isinstance(user, Player) else None


def exchange_of(scope: Scope) -> Exchange | None:
    exchange = scope.get(EXCHANGE_KEY)
    return exchange if isinstance(exchange, Exchange) else None


def name_exchange(
    scope: Scope,
    *,
    route: str | None = None,
    player_id: str | None = None,
    game_id: str | None = None,
) -> None:
    """Say what an ASGI-served request (a stream, a long poll) is about."""
    exchange = exchange_of(scope)
    if exchange is None:
        return
    exchange.route = route or exchange.route
    exchange.player_id = player_id or exchange.player_id
    exchange.game_id = game_id or exchange.game_id


class ObservedASGI:
    """The ASGI application with every HTTP request observed (see the module)."""

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        exchange = Exchange(scope["method"], request_id_from(_header(scope, b"x-request-id")))
        scope[EXCHANGE_KEY] = exchange
        header = (b"x-request-id", exchange.request_id.encode())

        async def observed_receive() -> Message:
            message = await receive()
            if message["type"] == "http.disconnect":
                exchange.disconnected()
            return message

        # A plain function handing on the server's awaitable: a stream sends a
        # message per event, and a coroutine of its own for each cost more than this.
        def observed_send(message: Message) -> Awaitable[None]:
            if message["type"] == "http.response.start":
                exchange.answer(message["status"])
                headers = list(message.get("headers", ()))
                if not any(name.lower() == b"x-request-id" for name, _ in headers):
                    headers.append(header)
                message = {**message, "headers": headers}
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                exchange.complete = True
            return send(message)

        token = request_id_var.set(exchange.request_id)
        try:
            await self.app(scope, observed_receive, observed_send)
        finally:
            request_id_var.reset(token)
            exchange.finish()


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


class RequestMiddleware:
    """Django's side (first in the middleware): the request id for what runs inside,
    the names on the exchange, and the observation itself when no server did it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        served = request.META.get(EXCHANGE_KEY)
        owned = served is None
        exchange = served or Exchange(
            request.method or "GET", request_id_from(request.headers.get(REQUEST_ID_HEADER))
        )
        token = request_id_var.set(exchange.request_id)
        try:
            response = self.get_response(request)
        finally:
            request_id_var.reset(token)
        exchange.name(request)
        response[REQUEST_ID_HEADER] = exchange.request_id
        if owned:
            exchange.answer(response.status_code)
            exchange.finish()
        return response


# -- tasks ---------------------------------------------------------------------------

_task_started: dict[str, tuple[float, contextvars.Token[str | None], Any]] = {}


@signals.before_task_publish.connect
def _carry_request_id(headers: dict[str, Any] | None = None, **_: Any) -> None:
    request_id = request_id_var.get()
    if headers is not None and request_id is not None:
        headers.setdefault(TASK_HEADER, request_id)


@signals.task_prerun.connect
def _task_started_(task_id: str, task: Any, **_: Any) -> None:
    request_id = _sent_request_id(task.request) or task_id
    token = request_id_var.set(str(request_id))
    task_token = task_var.set((task.name, task_id))
    _task_started[task_id] = (time.perf_counter(), token, task_token)


@signals.task_postrun.connect
def _task_finished(
    task_id: str,
    task: Any,
    args: Any = (),
    retval: Any = None,
    state: str | None = None,
    **_: Any,
) -> None:
    started = _task_started.pop(task_id, None)
    if started is None:
        return
    began, token, task_token = started
    seconds = time.perf_counter() - began
    outcome = task_outcome(state, retval)
    metrics.TASKS.labels(task.name, outcome).inc()
    metrics.TASK_SECONDS.labels(task.name).observe(seconds)
    # A task whose counts are all nought (a sweep that found nothing overdue, every
    # few seconds) is no news: counted, not logged.
    idle = isinstance(retval, dict) and not any(retval.values())
    level = logging.DEBUG if outcome == "done" and idle else logging.INFO
    if tasks_log.isEnabledFor(level):
        duration_ms = round(seconds * 1000, 2)
        game_id = str(args[0]) if args and task.name.startswith("games.") else None
        tasks_log.log(
            level,
            "task %s %s %.2fms",
            task.name,
            outcome,
            duration_ms,
            extra={
                "task": task.name,
                "task_id": task_id,
                "outcome": outcome,
                "duration_ms": duration_ms,
                "game_id": game_id if game_id and _looks_like_id(game_id) else None,
            },
        )
    task_var.reset(task_token)
    request_id_var.reset(token)


def _sent_request_id(request: Any) -> str | None:
    """The request id in a task's message: a header of its own as the worker reads it,
    or among the headers given to `apply` (a task run in place)."""
    found = getattr(request, TASK_HEADER, None)
    if found is None:
        headers = getattr(request, "headers", None)
        found = headers.get(TASK_HEADER) if isinstance(headers, dict) else None
    return str(found) if found else None


def task_outcome(state: str | None, retval: Any) -> str:
    """How a task went, in the words of the `uno_tasks_total` metric: the game tasks
    return whether they changed the game."""
    if state == "RETRY":
        return "retried"
    if state != "SUCCESS":
        return "failed"
    if retval is True:
        return "applied"
    if retval is False:
        return "stale"
    return "done"


def _looks_like_id(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


# -- log formats -------------------------------------------------------------------


class ContextFilter(logging.Filter):
    """Put the current request id (and task) on every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id_var.get()
        task = task_var.get()
        if task is not None and not hasattr(record, "task"):
            record.task, record.task_id = task
        return True


class JsonFormatter(_JsonFormatter):
    """One JSON object per line: time, level, logger, message, the request id and
    whatever the line adds (a request's method, route, status, duration, player and
    game; a task's name, outcome and duration)."""

    def __init__(self) -> None:
        super().__init__(
            "%(levelname)s %(name)s %(message)s",
            rename_fields={"levelname": "level", "name": "logger"},
            timestamp="time",
        )


class PlainFormatter(logging.Formatter):
    """A line for people at a terminal, with the request id when there is one."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        request_id = getattr(record, "request_id", None)
        return f"{line} [{request_id}]" if request_id else line
