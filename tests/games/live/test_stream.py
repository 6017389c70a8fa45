"""``GET /games/{id}/stream`` end to end over a real server (docs/api.md, "Live stream"):
the caller's view first, every event once and in order as the caller may see it,
the new view after each change, resume, tickets, the end, and the errors before it."""

from __future__ import annotations

import datetime as dt
import json
import queue
import threading
import time
from typing import Any
from urllib.parse import quote

import pytest
from django.utils import timezone

from games import replay, services
from games.live import hearing
from games.live import hub as hub_module
from games.models import Game, StreamTicket
from tests.factories import Persona, play_out, seat_table
from tests.games.live.conftest import LiveServer, auth
from unoclient.sse import Message, StreamRefused, close, connect, messages

pytestmark = pytest.mark.django_db(transaction=True)


class Reader:
    """A stream read on a thread of its own, its messages queued as they come."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.connection, self.response = connect(url, headers, timeout=30)
        self.queue: queue.Queue[Message | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        try:
            for message in messages(self.response):
                self.queue.put(message)
        except (OSError, AttributeError, ValueError):
            pass  # closed by the test
        self.queue.put(None)

    def next(self, timeout: float = 10.0, *, skip_comments: bool = True) -> Message | None:
        while True:
            message = self.queue.get(timeout=timeout)
            if message is None or not (skip_comments and message.event == "comment"):
                return message

    def until_view(self, timeout: float = 10.0) -> tuple[list[Message], dict[str, Any]]:
        """The events up to the next `game` view, and that view."""
        events = []
        while True:
            message = self.next(timeout)
            assert message is not None, "the stream ended"
            if message.retry is not None and not message.data:
                continue
            if message.event == "game":
                return events, message.json()
            events.append(message)

    def close(self) -> None:
        close(self.connection, self.response)


def move_of(persona: Persona, game_id: str) -> dict[str, Any]:
    """The seat to act sends a draw (every seat to act may draw or pass)."""
    view = persona.get(f"/games/{game_id}").json()
    legal = view["you"]["legal_moves"]
    move = next((m for m in legal if m["action"] == "draw"), legal[0])
    answer = persona.move(game_id, view["version"], **move)
    assert answer.status_code == 200, answer.json()
    return answer.json()


def to_act(game_id: str, host: Persona, guest: Persona) -> tuple[Persona, Persona]:
    view = host.get(f"/games/{game_id}").json()
    return (host, guest) if view["current_seat"] == 0 else (guest, host)


# -- the first view and every change ------------------------------------------------------


def test_a_stream_opens_with_retry_and_the_callers_view(live: LiveServer, host, guest, two_players):
    reader = Reader(live.stream_url(two_players), auth(host))
    first = reader.next()
    assert first.retry == 2000
    events, view = reader.until_view()
    assert events == []
    assert view == host.get(f"/games/{two_players}").json()
    reader.close()


def test_every_event_of_a_move_arrives_once_in_order_then_the_new_view(
    live: LiveServer, host, guest, two_players
):
    actor, other = to_act(two_players, host, guest)
    reader = Reader(live.stream_url(two_players), auth(other))
    _, before = reader.until_view()
    answer = move_of(actor, two_players)
    events, view = reader.until_view()
    assert [int(m.id) for m in events] == list(range(before["last_seq"] + 1, view["last_seq"] + 1))
    shown = [m.json() for m in events]
    # What the other player sees is what /events shows them, redaction included.
    page = other.get(f"/games/{two_players}/events", after=before["last_seq"]).json()
    assert shown == page["events"]
    assert [m.event for m in events] == [e["type"] for e in shown]
    assert view == other.get(f"/games/{two_players}").json()
    assert view["version"] == answer["game"]["version"]
    drawn = next(e for e in shown if e["type"] == "cards_drawn")
    assert "cards" not in drawn["data"]  # the mover's card is not shown to the other
    reader.close()


def test_the_mover_sees_their_own_drawn_card_on_their_stream(
    live: LiveServer, host, guest, two_players
):
    actor, _ = to_act(two_players, host, guest)
    reader = Reader(live.stream_url(two_players), auth(actor))
    reader.until_view()
    move_of(actor, two_players)
    events, _ = reader.until_view()
    drawn = next(m.json() for m in events if m.event == "cards_drawn")
    assert len(drawn["data"]["cards"]) == drawn["data"]["count"]
    reader.close()


def test_a_spectator_gets_the_spectator_view_and_no_cards(
    live: LiveServer, host, guest, outsider, two_players
):
    actor, _ = to_act(two_players, host, guest)
    reader = Reader(live.stream_url(two_players), auth(outsider))
    _, view = reader.until_view()
    assert view["you"] is None
    move_of(actor, two_players)
    events, after = reader.until_view()
    assert after["you"] is None
    for message in events:
        data = message.json()["data"]
        assert "cards" not in data
        assert "hand" not in data
        assert "hands" not in data
    reader.close()


def test_every_seat_and_spectator_sees_every_change_of_a_game_played_to_its_end(
    live: LiveServer, host, guest, outsider
):
    players = [host, guest]
    game_id = str(seat_table(host, guest, seed=3).pk)
    readers = {
        p.player.name: Reader(live.stream_url(game_id), auth(p)) for p in [*players, outsider]
    }
    for reader in readers.values():
        reader.until_view()
    host.post(f"/games/{game_id}/start")
    game = Game.objects.get(pk=game_id)
    play_out(game, {0: host, 1: guest})
    last_seq = Game.objects.get(pk=game_id).last_seq
    for name, reader in readers.items():
        seqs: list[int] = []
        ended = None
        while True:
            message = reader.next(timeout=15)
            assert message is not None, f"{name}'s stream closed before `end`"
            if message.event == "end":
                ended = message.json()
                break
            if message.event not in ("game", "message") and message.id is not None:
                seqs.append(int(message.id))
        assert seqs == list(range(3, last_seq + 1)), name  # 1 and 2 came before it opened
        assert ended == {"status": "finished", "winner": ended["winner"], "last_seq": last_seq}
        assert reader.next(timeout=5) is None  # the server closed the stream
        reader.close()


# -- resume ------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["header", "query"])
def test_a_stream_resumes_after_the_last_event_id(live: LiveServer, host, guest, two_players, how):
    actor, other = to_act(two_players, host, guest)
    seen = other.get(f"/games/{two_players}").json()["last_seq"]
    move_of(actor, two_players)
    if how == "header":
        reader = Reader(live.stream_url(two_players), {**auth(other), "Last-Event-ID": str(seen)})
    else:
        reader = Reader(live.stream_url(two_players, f"after={seen}"), auth(other))
    events, view = reader.until_view()
    assert [int(m.id) for m in events] == list(range(seen + 1, view["last_seq"] + 1))
    assert view["last_seq"] > seen
    reader.close()


def long_finished_game(host: Persona) -> Game:
    """A game among bots to 500 points: hundreds of events."""
    game = services.bot_match_start(
        host=host.player, strategies=["random", "random"], target_score=500, seed=9
    ).game
    return play_out(game, {})


def test_a_client_500_events_behind_gets_them_all_and_one_further_behind_a_fresh_view(
    live: LiveServer, host
):
    # One game for both readers: hundreds of bot moves are the slow part.
    game = long_finished_game(host)
    assert game.last_seq > 501
    after = game.last_seq - 500
    reader = Reader(live.stream_url(str(game.pk), f"after={after}"), auth(host))
    events, _ = reader.until_view()
    assert [int(m.id) for m in events] == list(range(after + 1, game.last_seq + 1))
    reader.close()

    reader = Reader(live.stream_url(str(game.pk), f"after={after - 1}"), auth(host))
    events, view = reader.until_view()
    assert events == []
    assert view["last_seq"] == game.last_seq
    assert reader.next().event == "end"
    reader.close()


def test_a_finished_games_stream_shows_the_view_then_ends(live: LiveServer, host):
    game = services.bot_match_start(
        host=host.player, strategies=["greedy", "greedy"], target_score=0, seed=4
    ).game
    game = play_out(game, {})
    reader = Reader(live.stream_url(str(game.pk)), auth(host))
    _, view = reader.until_view()
    assert view["status"] == "finished"
    assert reader.next().event == "end"
    assert reader.next() is None
    reader.close()


# -- heartbeats --------------------------------------------------------------------------


def test_an_idle_stream_sends_a_comment_at_every_heartbeat(
    live: LiveServer, host, two_players, monkeypatch
):
    monkeypatch.setattr(hub_module, "HEAL_SECONDS", 0.3)
    reader = Reader(live.stream_url(two_players), auth(host))
    reader.until_view()
    ping = reader.next(timeout=5, skip_comments=False)
    assert ping.event == "comment"
    assert ping.data == "ping"
    reader.close()


# -- tickets -----------------------------------------------------------------------------


def ticket_for(persona: Persona, game_id: str) -> str:
    answer = persona.post(f"/games/{game_id}/stream-ticket")
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    expires = dt.datetime.fromisoformat(body["expires_at"])
    assert dt.timedelta(seconds=55) < expires - timezone.now() <= dt.timedelta(seconds=60)
    return str(body["ticket"])


def refused(url: str, headers: dict[str, str] | None = None) -> StreamRefused:
    with pytest.raises(StreamRefused) as caught:
        connect(url, headers, timeout=10)
    error = caught.value
    assert error.headers["content-type"].startswith("application/json")
    body = error.json()
    assert set(body["error"]) == {"code", "message", "details"}
    return error


def test_a_ticket_opens_the_stream_once(live: LiveServer, host, two_players):
    ticket = ticket_for(host, two_players)
    reader = Reader(live.stream_url(two_players, f"ticket={ticket}"))
    _, view = reader.until_view()
    assert view["you"]["seat"] == 0  # the ticket's player, seated
    reader.close()
    again = refused(live.stream_url(two_players, f"ticket={ticket}"))
    assert again.status == 401


def test_an_expired_ticket_is_refused(live: LiveServer, host, two_players):
    ticket = ticket_for(host, two_players)
    StreamTicket.objects.update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    assert refused(live.stream_url(two_players, f"ticket={ticket}")).status == 401


def test_a_ticket_for_another_game_is_refused(live: LiveServer, host, two_players):
    other = str(seat_table(host).pk)
    ticket = ticket_for(host, other)
    assert refused(live.stream_url(two_players, f"ticket={ticket}")).status == 401
    # ...and the refusal did not use it up.
    reader = Reader(live.stream_url(other, f"ticket={ticket}"))
    reader.until_view()
    reader.close()


def test_a_ticket_for_a_game_that_does_not_exist_is_a_404(host):
    answer = host.post("/games/00000000-0000-0000-0000-000000000000/stream-ticket")
    assert answer.status_code == 404


# -- refused before the stream ----------------------------------------------------------------


def test_a_stream_without_credentials_is_a_401_in_the_error_shape(live: LiveServer, two_players):
    error = refused(live.stream_url(two_players))
    assert error.status == 401
    assert error.json()["error"]["code"] == "not_authenticated"


def test_a_stream_with_an_unknown_token_is_a_401(live: LiveServer, two_players):
    assert refused(live.stream_url(two_players), {"Authorization": "Bearer nope"}).status == 401


@pytest.mark.parametrize("game_id", ["not-a-game", "00000000-0000-0000-0000-000000000000"])
def test_a_stream_of_no_game_is_a_404(live: LiveServer, host, game_id):
    error = refused(live.stream_url(game_id), auth(host))
    assert error.status == 404
    assert error.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("after", ["٣", "1.0", "-1", "x", " 3"])
def test_a_resume_point_that_is_not_a_seq_is_a_400(live: LiveServer, host, two_players, after):
    error = refused(live.stream_url(two_players, "after=" + quote(after)), auth(host))
    assert error.status == 400


def test_streams_count_against_the_players_rate_limit(
    live: LiveServer, guest, two_players, monkeypatch
):
    from unoservice.throttling import PlayerRateThrottle

    monkeypatch.setattr(PlayerRateThrottle, "rate", "2/min", raising=False)
    # The guest's first two requests of the minute (the game was set up without the API).
    for _ in range(2):
        reader = Reader(live.stream_url(two_players), auth(guest))
        reader.until_view()
        reader.close()
    error = refused(live.stream_url(two_players), auth(guest))
    assert error.status == 429
    assert int(error.headers["retry-after"]) >= 1


# -- delivery across the notification path -------------------------------------------------


@pytest.mark.postgres
def test_a_commit_reaches_the_stream_through_postgresql_notify(
    live: LiveServer, host, guest, two_players
):
    actor, other = to_act(two_players, host, guest)
    reader = Reader(live.stream_url(two_players), auth(other))
    reader.until_view()
    running = hub_module.hub()
    heard = running.notifications
    sent = time.monotonic()
    move_of(actor, two_players)
    reader.until_view()
    assert time.monotonic() - sent < 2.0  # far inside the 15 s heal: it was the NOTIFY
    assert running.notifications > heard
    reader.close()


def test_a_stream_delivers_a_change_even_when_its_notification_is_lost(
    live: LiveServer, host, guest, two_players, monkeypatch
):
    monkeypatch.setattr(hub_module, "HEAL_SECONDS", 0.5)
    # Every notification of a game's change is dropped: only the heal can find it.
    monkeypatch.setattr(hearing, "parse_payload", lambda payload: None)
    actor, other = to_act(two_players, host, guest)
    reader = Reader(live.stream_url(two_players), auth(other))
    _, before = reader.until_view()
    move_of(actor, two_players)
    _, view = reader.until_view(timeout=10)
    assert view["last_seq"] > before["last_seq"]
    reader.close()


def test_json_of_a_view_on_the_stream_is_plain_json(live: LiveServer, host, two_players):
    reader = Reader(live.stream_url(two_players), auth(host))
    reader.next()
    message = reader.next()
    assert json.loads(message.data)["id"] == two_players
    reader.close()


# -- the staff dashboard's session ---------------------------------------------------------


def session_cookie(username: str, *, staff: bool, may_view: bool) -> str:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission
    from django.test import Client

    user = get_user_model().objects.create_user(username, password="pw-123456", is_staff=staff)
    if may_view:
        user.user_permissions.add(Permission.objects.get(codename="view_game"))
    client = Client()
    client.force_login(user)
    # Another site's cookie on the same host must not hide the session.
    return f'prefs={{"a":1}}; sessionid={client.cookies["sessionid"].value}'


def test_a_staff_member_watches_through_the_admin_session(live: LiveServer, two_players):
    cookie = session_cookie("operator", staff=True, may_view=True)
    reader = Reader(live.stream_url(two_players), {"Cookie": cookie})
    _, view = reader.until_view()
    assert view["you"] is None  # as a spectator
    reader.close()


@pytest.mark.parametrize(("staff", "may_view"), [(False, True), (True, False)])
def test_a_session_without_staff_status_or_the_view_permission_is_refused(
    live: LiveServer, two_players, staff, may_view
):
    cookie = session_cookie("someone", staff=staff, may_view=may_view)
    assert refused(live.stream_url(two_players), {"Cookie": cookie}).status == 401


def test_the_hourly_purge_drops_expired_tickets_and_keeps_the_rest(host, two_players):
    from django.conf import settings

    from games import tasks

    ticket_for(host, two_players)
    ticket_for(host, two_players)
    first = StreamTicket.objects.order_by("pk").first()
    StreamTicket.objects.filter(pk=first.pk).update(
        expires_at=timezone.now() - dt.timedelta(seconds=1)
    )
    assert tasks.purge_stream_tickets() == 1
    assert StreamTicket.objects.count() == 1
    entry = settings.CELERY_BEAT_SCHEDULE["purge-stream-tickets"]
    assert entry["task"] == tasks.purge_stream_tickets.name


def test_a_stream_shows_no_seed_of_a_running_game_but_the_reader_s_own(
    live: LiveServer, host, guest
):
    game_id = host.post("/games", {"max_players": 2, "target_score": 0}).json()["id"]
    guest.post(f"/games/{game_id}/join", {"client_seed": "6e57"})
    host.post(f"/games/{game_id}/start", {"client_seed": "4057"})
    game = Game.objects.get(pk=game_id)
    reader = Reader(live.stream_url(game_id), auth(guest))
    seen = [*reader.until_view()[0]]
    actor, _ = to_act(game_id, host, guest)
    move_of(actor, game_id)
    events, view = reader.until_view()
    reader.close()
    shown = json.dumps([m.json() for m in [*seen, *events]]) + json.dumps(view)
    assert view["you"]["client_seed"] == "6e57"
    assert view["deal_commitment"] in shown
    for secret in (game.server_seed, '"4057"', *replay.round_seeds(game)):
        assert secret not in shown
