"""The game stream (Server-Sent Events) and the waiting long poll, as plain ASGI.

Both are served before Django's handler: a waiting client is a coroutine awaiting
its game's next change (`games.live.hub`), not a thread, and asks the database
nothing while it waits. A stream renders each change once per seat, however many
clients of that seat watch it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode

from games import presenters, selectors
from games.live import access
from games.live import hub as hub_module
from games.live.channels import Channel, Snapshot, timed_delivery
from games.live.hub import Attendance, Hub, hub
from games.live.sessions import Session
from games.live.talk import Preferences, Said, message_frame, recent_messages
from games.live.talk import frames_for as talk_frames_for
from games.models import Event, Game, Visibility
from games.serializers import MAX_WAIT_SECONDS
from players.auth import bearer_player
from players.models import Player
from players.social.selectors import talk_preferences
from unoservice import metrics, stream_caps
from unoservice.asgi_types import ASGIApp, Message, Receive, Scope, Send
from unoservice.client_address import group_in, meta_of
from unoservice.errors import NotFound, ServiceError
from unoservice.fields import is_query_integer
from unoservice.observability import name_exchange
from unoservice.parsers import JSONRenderer
from unoservice.throttling import WAKEUP_HEADER, WAKEUP_TOKEN

log = logging.getLogger(__name__)

# A client further behind than this gets a fresh view instead of the events.
MAX_REPLAYED_EVENTS = 500
RETRY_MILLISECONDS = 2000
STREAM_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]


_renderer = JSONRenderer()


def _json(value: Any) -> str:
    """`value` as the API writes it (`unoservice.parsers`): a stream's view is the
    bytes of the view read's answer."""
    return _renderer.render(value).decode()


def _headers(scope: Scope) -> dict[str, str]:
    return {
        name.decode("latin1").lower(): value.decode("latin1") for name, value in scope["headers"]
    }


def _query(scope: Scope) -> dict[str, str]:
    return dict(parse_qsl(scope.get("query_string", b"").decode("latin1"), keep_blank_values=True))


async def _send_json(send: Send, status: int, body: Any, headers: dict[str, str]) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                *((k.lower().encode("latin1"), v.encode("latin1")) for k, v in headers.items()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": _json(body).encode()})


async def take_place(
    live: Hub, send: Send, player: Player | None, meta: dict[str, Any]
) -> stream_caps.Place | None:
    """A place under the caps on open streams for one more stream of `player` from
    the request's address; None once the refusal (429 too_many_streams) is sent."""
    address = group_in(meta)
    player_id = None if player is None else player.pk
    try:
        return await live.read(lambda: stream_caps.take(player_id=player_id, address=address))
    except ServiceError as error:
        refused = access.refusal(error)
        await _send_json(send, refused.status, refused.body, refused.headers)
        return None


def ended(session: Session | None) -> set[asyncio.Future[None]]:
    """What a stream waits on for its token to stop working (nothing without one)."""
    return set() if session is None else {session.ended}


def revoked(session: Session | None) -> bool:
    """Whether the token a stream was opened with stopped working."""
    return session is not None and session.ended.done()


async def _until_disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


# -- frames ------------------------------------------------------------------------------


class Frames:
    """The SSE frames of one snapshot for one seat, cached on the channel (when the
    snapshot is still its latest): every watcher of a seat shares them."""

    def __init__(
        self, channel: Channel | None, snapshot: Snapshot, watcher: access.Watcher
    ) -> None:
        self.channel = channel
        self.snapshot = snapshot
        self.watcher = watcher
        self.seat = watcher.seat(snapshot.game)
        self.complete = presenters.log_is_complete(snapshot.game)

    def _cached(self, key: tuple[Any, ...], make: Callable[[], bytes]) -> bytes:
        channel = self.channel
        rendered = channel.rendered if channel and channel.snapshot is self.snapshot else {}
        frame = rendered.get(key)
        if frame is None:
            frame = rendered[key] = make()
        return frame

    def view(self) -> bytes:
        def make() -> bytes:
            snapshot = self.snapshot
            view = presenters.game_view(
                snapshot.game, self.watcher.player, snapshot.state, presence=snapshot.presence
            )
            return f"id: {self.snapshot.seq}\nevent: game\ndata: {_json(view)}\n\n".encode()

        return self._cached(("view", self.seat), make)

    def event(self, event: Event) -> bytes:
        def make() -> bytes:
            data = presenters.event_json(event, self.seat, complete=self.complete)
            return f"id: {event.seq}\nevent: {event.type}\ndata: {_json(data)}\n\n".encode()

        return self._cached(("event", event.seq, self.seat, self.complete), make)

    def end(self) -> bytes:
        game = self.snapshot.game
        data = {"status": game.status, "winner": game.winner, "last_seq": self.snapshot.seq}
        return f"event: end\ndata: {_json(data)}\n\n".encode()


# -- the stream -------------------------------------------------------------------------


async def stream(scope: Scope, receive: Receive, send: Send, game_id: str) -> None:
    """``GET /api/v1/games/{id}/stream``: the caller's view, then every event and the
    new view after each change, until the game is over."""
    live = hub()
    headers = _headers(scope)
    asked = access.Asked(game_id, headers, _query(scope), meta_of(scope))
    admitted = await live.admission.admit(asked)
    if isinstance(admitted, access.Refusal):
        await _send_json(send, admitted.status, admitted.body, admitted.headers)
        return
    watcher, parsed_id, resume, place = (
        admitted.watcher,
        admitted.game_id,
        admitted.resume,
        admitted.place,
    )
    disconnected = asyncio.ensure_future(_until_disconnected(receive))
    try:
        with (
            live.hold(place),
            live.sessions.signed_in(watcher.player) as session,
            live.watch(parsed_id, stream=True) as channel,
        ):
            try:
                snapshot = await live.snapshot(channel)
            except Game.DoesNotExist:
                refused = access.refusal(NotFound("no such game"))
                await _send_json(send, refused.status, refused.body, refused.headers)
                return
            if snapshot.game.visibility == Visibility.PRIVATE:
                game, meta = snapshot.game, meta_of(scope)
                hidden = await live.read(lambda: access.hidden(game, watcher, meta=meta))
                if hidden is not None:
                    await _send_json(send, hidden.status, hidden.body, hidden.headers)
                    return
            player_id = None if watcher.player is None else str(watcher.player.pk)
            name_exchange(scope, player_id=player_id)
            with (
                live.attend(channel, player_id) as attendance,
                metrics.STREAMS_OPEN.labels("game").track_inprogress(),
            ):
                attendance.spectate(watcher.seat(snapshot.game) is None)
                await _serve(
                    send, channel, snapshot, watcher, resume, attendance, disconnected, session
                )
    finally:
        disconnected.cancel()


async def _serve(
    send: Send,
    channel: Channel,
    snapshot: Snapshot,
    watcher: access.Watcher,
    resume: int | None,
    attendance: Attendance,
    disconnected: asyncio.Future[None],
    session: Session | None,
) -> None:
    """The stream once it is open: its opening, then each change, until the game is
    over, the client goes, the server stops or the token it was opened with stops
    working."""
    live = hub()
    talk = channel.talk
    await send({"type": "http.response.start", "status": 200, "headers": STREAM_HEADERS})
    opening = f"retry: {RETRY_MILLISECONDS}\n\n".encode()
    delivered, frames = await _catch_up(channel, snapshot, watcher, resume)
    if not frames:  # resumed with nothing missed: the view all the same
        frames = Frames(channel, snapshot, watcher).view()
    said = await _recent_talk(live, channel, watcher)
    talk_seen = talk.count
    await _write(send, opening + frames + said)
    while True:
        # Checked before every wait: a change may have come while this stream was
        # writing (a slow client), with no future left to wake it.
        current = channel.snapshot or snapshot
        if current.seq > delivered:
            attendance.spectate(watcher.seat(current.game) is None)
            delivered, frames = await _catch_up(channel, current, watcher, delivered)
            await _write(send, frames)
            timed_delivery(channel, current, "game")
            continue
        if talk.count > talk_seen:
            new, talk_seen = talk.after(talk_seen), talk.count
            said = talk_frames_for(new, await _talk_preferences(live, watcher))
            if said:
                await _write(send, said)
            continue
        if _over(current):
            break
        # The server stops (the client reconnects elsewhere), or the token was replaced
        # or its player disabled (reconnecting with it is a 401). Checked before the
        # wait too: the hub wakes the channels' waiters when it closes (`close_streams`).
        if live.closing.done() or revoked(session):
            await live.end_stream(send)
            return
        changed, talked = channel.changed, talk.changed
        await asyncio.wait(
            {changed, talked, disconnected, *ended(session)},
            timeout=hub_module.HEAL_SECONDS,
            return_when=asyncio.FIRST_COMPLETED,
        )
        if disconnected.done():
            return
        if live.closing.done() or revoked(session):
            await live.end_stream(send)
            return
        if not changed.done() and not talked.done():
            await _write(send, b": ping\n\n")
    await _write(send, Frames(channel, current, watcher).end())
    await send({"type": "http.response.body", "body": b""})


async def _recent_talk(live: Hub, channel: Channel, watcher: access.Watcher) -> bytes:
    """The table talk a stream's opening sends: the game's recent messages (after
    the client's last, when it said) that reach the watcher."""
    try:
        await channel.talk.load(live.read, channel.game_id)
        preferences = await _talk_preferences(live, watcher)
    except Exception:  # the game's stream goes on without its talk
        log.warning("could not read a game's table talk", exc_info=True)
        return b""
    return talk_frames_for(channel.talk.recent(watcher.messages_after), preferences)


async def _talk_preferences(live: Hub, watcher: access.Watcher) -> Preferences | None:
    """The watcher's choices of what table talk reaches them (None for staff)."""
    if watcher.player is None:
        return None
    return await live.talk_readers.of(str(watcher.player.pk))


def _over(snapshot: Snapshot) -> bool:
    return snapshot.game.is_over


async def _write(send: Send, data: bytes) -> None:
    await send({"type": "http.response.body", "body": data, "more_body": True})


async def _catch_up(
    channel: Channel, snapshot: Snapshot, watcher: access.Watcher, after: int | None
) -> tuple[int, bytes]:
    """The frames that bring a watcher who has seen up to `after` (None: nothing
    yet) to `snapshot`: the events since, then the view; only the view when there is
    nothing to replay or too much. Returns the seq delivered and the frames."""
    events: list[Event] = []
    if after is not None and 0 < snapshot.seq - after <= MAX_REPLAYED_EVENTS:
        kept = snapshot.events_after(after)
        if kept is None:  # older than the channel keeps: read them for this watcher
            since = after
            kept = await hub().read(
                lambda: selectors.events_between(channel.game_id, since, snapshot.seq)
            )
        events = kept
    return snapshot.seq, catch_up_frames(Frames(channel, snapshot, watcher), after, events)


def catch_up_frames(frames: Frames, after: int | None, events: list[Event]) -> bytes:
    """See `_catch_up`; `events` are those after `after` when they are replayed."""
    seq = frames.snapshot.seq
    if after is not None and after >= seq:
        return b""
    if after is None or seq - after > MAX_REPLAYED_EVENTS:
        return frames.view()
    return b"".join(frames.event(event) for event in events) + frames.view()


def opening(snapshot: Snapshot, watcher: access.Watcher, after: int | None) -> bytes:
    """The whole opening of a stream, read and rendered in one go (synchronous): what
    a plain WSGI server answers, the stream a client then reopens after `retry`."""
    frames = Frames(None, snapshot, watcher)
    events: list[Event] = []
    if after is not None and 0 < snapshot.seq - after <= MAX_REPLAYED_EVENTS:
        events = selectors.events_between(snapshot.game.pk, after, snapshot.seq)
    body = catch_up_frames(frames, after, events) or frames.view()
    body = f"retry: {RETRY_MILLISECONDS}\n\n".encode() + body
    return body + _opening_talk(snapshot, watcher) + (frames.end() if _over(snapshot) else b"")


def _opening_talk(snapshot: Snapshot, watcher: access.Watcher) -> bytes:
    """`_recent_talk`, read in one go (synchronous)."""
    recent = [
        Said(n, message, message_frame(message))
        for n, message in enumerate(recent_messages(snapshot.game.pk), start=1)
        if watcher.messages_after is None or message["id"] > watcher.messages_after
    ]
    if watcher.player is None:
        return talk_frames_for(recent, None)
    hidden, hide = talk_preferences(str(watcher.player.pk))
    return talk_frames_for(recent, Preferences(hidden, hide, 0.0))


# -- the long poll -------------------------------------------------------------------------


def wants_to_wait(scope: Scope) -> bool:
    """A long poll that may wait (a valid `wait` above 0); anything else, an invalid
    `wait` included, is answered by the API at once."""
    value = _query(scope).get("wait", "")
    return is_query_integer(value) and 0 < int(value) <= MAX_WAIT_SECONDS


async def long_poll(scope: Scope, receive: Receive, send: Send, game_id: str, api: ASGIApp) -> None:
    """``GET /api/v1/games/{id}/events?wait=N``: answered by the API (`api`) at once
    when there are events or the request is refused; otherwise it waits, without a
    thread, for the game's next change or the end of `wait`, then asks the API again."""
    try:
        parsed_id = uuid.UUID(game_id)
    except ValueError:
        await api(scope, receive, send)
        return
    query = _query(scope)
    now_scope = {**scope, "query_string": urlencode({**query, "wait": "0"}).encode()}
    live = hub()
    with live.watch(parsed_id, stream=False) as channel:
        status, headers, body = await _ask(api, now_scope)
        if status != 200:
            await _forward(send, status, headers, body)
            return
        page = json.loads(body)
        after = int(query.get("after") or 0)
        if page["events"] or page["last_seq"] > after:
            await _forward(send, status, headers, body)
            return
        channel.heard = max(channel.heard, page["last_seq"])
        asked = _headers(scope)
        poller = await live.read(lambda: _poller(asked))
        if isinstance(poller, access.Refusal):
            await _send_json(send, poller.status, poller.body, poller.headers)
            return
        place = await take_place(live, send, poller, meta_of(scope))
        if place is None:
            return
        disconnected = asyncio.ensure_future(_until_disconnected(receive))
        try:
            with (
                live.hold(place),
                live.sessions.signed_in(poller) as session,
                metrics.LONG_POLLS_WAITING.labels("events").track_inprogress(),
            ):
                assert session is not None
                deadline = asyncio.get_running_loop().time() + int(query["wait"])
                while channel.heard <= after and not session.ended.done():
                    remaining = deadline - asyncio.get_running_loop().time()
                    if remaining <= 0:
                        break
                    await asyncio.wait(
                        {channel.changed, disconnected, session.ended},
                        timeout=remaining,
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                    if disconnected.done():
                        return
                revoked = session.ended.done()
        finally:
            disconnected.cancel()
        # Asked again when the token stopped working: the API refuses it.
        if channel.heard > after or revoked:
            woken = {
                **now_scope,
                "headers": [
                    *scope["headers"],
                    (WAKEUP_HEADER.lower().encode(), WAKEUP_TOKEN.encode()),
                ],
            }
            status, headers, body = await _ask(api, woken)
        await _forward(send, status, headers, body)


def _poller(headers: dict[str, str]) -> Player | access.Refusal:
    """The player of a long poll about to wait (the API has just let its token in)."""
    try:
        return bearer_player(headers.get("authorization", ""))[0]
    except ServiceError as error:
        return access.refusal(error)


async def _ask(api: ASGIApp, scope: Scope) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """Run a bodiless request through `api` and collect its answer."""
    answer: dict[str, Any] = {"status": 500, "headers": [], "body": []}
    sent_request = False

    async def receive() -> Message:
        nonlocal sent_request
        if not sent_request:
            sent_request = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # the API never waits for more of a GET
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            answer["status"] = message["status"]
            answer["headers"] = list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            answer["body"].append(message.get("body", b""))

    await api(scope, receive, send)
    return answer["status"], answer["headers"], b"".join(answer["body"])


async def _forward(
    send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes
) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
