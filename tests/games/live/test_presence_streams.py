"""Presence kept by streams over a real server: a player with a stream open stays
online past the 30 s of their last request, and the spectators' streams of a game
are counted while they are open, and no more once closed."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from django.utils import timezone

from games import services
from games.live import hub as hub_module
from tests.factories import Persona, seat_table
from tests.games.live.conftest import LiveServer, auth
from tests.games.live.test_stream import Reader
from tests.support import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def quick_heartbeat(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hub_module, "PRESENCE_HEARTBEAT_SECONDS", 0.1)


def view_of(persona: Persona, game_id: str) -> dict[str, Any]:
    answer = persona.get(f"/games/{game_id}")
    assert answer.status_code == 200, answer.json()
    return answer.json()  # type: ignore[no-any-return]


def test_a_player_with_a_stream_open_stays_online_and_goes_offline_after_closing_it(
    live: LiveServer, host: Persona, guest: Persona, outsider: Persona
) -> None:
    game_id = str(seat_table(host, guest).pk)
    elsewhere = str(seat_table(outsider).pk)  # a stream of any game keeps one online
    reader = Reader(live.stream_url(elsewhere), auth(guest))
    reader.until_view()
    assert view_of(host, game_id)["seats"][1]["online"] is True
    now = timezone.now()
    with time_machine.travel(now + dt.timedelta(seconds=60)):  # past the opening's 30 s
        wait_until(
            lambda: view_of(host, game_id)["seats"][1]["online"], "the stream's heartbeat", 5
        )
        reader.close()
        wait_until(lambda: not hub_module.hub().streaming, "the stream's closing", 5)
    with time_machine.travel(now + dt.timedelta(seconds=120)):
        assert view_of(host, game_id)["seats"][1]["online"] is False


def test_an_outsiders_stream_counts_as_a_spectator_while_open_and_a_players_does_not(
    live: LiveServer, host: Persona, guest: Persona, outsider: Persona
) -> None:
    game_id = str(seat_table(host, guest).pk)
    seated = Reader(live.stream_url(game_id), auth(guest))
    seated.until_view()
    assert view_of(host, game_id)["spectators"] == 0
    watching = Reader(live.stream_url(game_id), auth(outsider))
    watching.until_view()
    wait_until(lambda: view_of(host, game_id)["spectators"] == 1, "one spectator", 5)
    watching.close()
    wait_until(lambda: view_of(host, game_id)["spectators"] == 0, "no spectator", 5)
    assert view_of(host, game_id)["spectators"] == 0
    seated.close()


def test_a_spectator_who_takes_a_seat_counts_as_a_spectator_no_more(
    live: LiveServer, host: Persona, outsider: Persona
) -> None:
    game_id = str(seat_table(host, max_players=3).pk)
    watching = Reader(live.stream_url(game_id), auth(outsider))
    watching.until_view()
    wait_until(lambda: view_of(host, game_id)["spectators"] == 1, "one spectator", 5)
    services.game_join(game_id=game_id, player=outsider.player)
    _, view = watching.until_view()
    assert view["you"] is not None
    wait_until(lambda: view_of(host, game_id)["spectators"] == 0, "no spectator", 5)
    watching.close()


def test_a_streams_views_show_presence_as_of_the_games_last_change(
    live: LiveServer, host: Persona, guest: Persona, outsider: Persona
) -> None:
    game_id = str(seat_table(host, guest, max_players=3).pk)
    watching = Reader(live.stream_url(game_id), auth(outsider))
    _, opening = watching.until_view()
    assert [seat["online"] for seat in opening["seats"]] == [False, False]
    wait_until(lambda: view_of(host, game_id)["spectators"] == 1, "one spectator", 5)
    services.game_leave(game_id=game_id, player=guest.player)
    _, changed = watching.until_view()
    assert [seat["online"] for seat in changed["seats"]] == [True]  # the host asked
    assert changed["spectators"] == 1
    watching.close()


def test_while_notifications_are_on_the_games_and_lobbys_streams_say_who_follows_them(
    live: LiveServer, host: Persona, guest: Persona, monkeypatch: pytest.MonkeyPatch
) -> None:
    from players import push
    from tests.games.live.test_lobby_stream import Lobby
    from unoservice import presence

    monkeypatch.setattr(push, "enabled", lambda: True)
    game_id = str(seat_table(host, guest).pk)
    me = str(guest.player.pk)
    assert not presence.follows(me, game_id)
    reader = Reader(live.stream_url(game_id), auth(guest))
    reader.until_view()
    wait_until(lambda: presence.follows(me, game_id), "the stream's follow", 5)
    assert not presence.follows(me, presence.LOBBY)
    lobby = Lobby(live, auth(guest))
    wait_until(lambda: presence.follows(me, presence.LOBBY), "the lobby's follow", 5)
    with time_machine.travel(timezone.now() + dt.timedelta(seconds=60)):  # past the TTL
        wait_until(lambda: presence.follows(me, game_id), "the heartbeat's refresh", 5)
    reader.close()
    wait_until(lambda: not presence.follows(me, game_id), "the stream's closing", 5)
    assert presence.follows(me, presence.LOBBY)
    lobby.close()
    wait_until(lambda: not presence.follows(me, presence.LOBBY), "the lobby's closing", 5)


def test_while_notifications_are_off_a_stream_publishes_nothing_of_what_it_follows(
    live: LiveServer, host: Persona, guest: Persona
) -> None:
    from unoservice import presence

    game_id = str(seat_table(host, guest).pk)
    reader = Reader(live.stream_url(game_id), auth(guest))
    reader.until_view()
    assert hub_module.hub().following == {}
    assert not presence.follows(str(guest.player.pk), game_id)
    reader.close()
