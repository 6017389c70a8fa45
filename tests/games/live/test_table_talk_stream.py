"""Table talk and friends on the live streams, over a real server (docs/api.md, "The
live stream", "The lobby stream", "Table talk"): a message reaches the table's
streams as a frame of its own, without an id and without changing the game; a
reconnecting stream gets the recent ones back; a block keeps a player's words from
the blocker; friend requests, invites and friends' comings and goings reach the lobby."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache

from games.live import hub as hub_module
from players.models import Block
from tests.factories import Persona, reload, start_game
from tests.games.live.conftest import LiveServer, auth
from tests.games.live.test_lobby_stream import Lobby
from tests.games.live.test_stream import Reader
from unoclient.sse import Message
from unoservice import presence

pytestmark = pytest.mark.django_db(transaction=True)


def open_table(live: LiveServer, persona: Persona, game_id: str, query: str = "") -> Reader:
    reader = Reader(live.stream_url(game_id, query), auth(persona))
    reader.until_view()
    return reader


def say(persona: Persona, game_id: str, **body: Any) -> dict[str, Any]:
    answer = persona.post(f"/games/{game_id}/messages", body)
    assert answer.status_code == 201, answer.json()
    return answer.json()  # type: ignore[no-any-return]


def next_message(reader: Reader, timeout: float = 10.0) -> Message:
    """The next `message` frame (the game's own frames skipped)."""
    while True:
        frame = reader.next(timeout)
        assert frame is not None, "the stream ended"
        if frame.event == "message":
            return frame


def messages_until_quiet(reader: Reader, seconds: float = 1.5) -> list[dict[str, Any]]:
    import queue

    came = []
    try:
        while True:
            frame = reader.next(seconds)
            assert frame is not None, "the stream ended"
            if frame.event == "message":
                came.append(frame.json())
    except queue.Empty:
        return came


def test_a_message_reaches_every_stream_of_the_table_without_an_id_or_a_new_version(
    live: LiveServer, host, guest, outsider
):
    game_id = str(start_game(host, guest, seed=21).pk)
    version = reload(game_id).version
    streams = [open_table(live, who, game_id) for who in (host, guest, outsider)]
    said = say(host, game_id, phrase="good_luck")
    for stream in streams:
        frame = next_message(stream)
        # No id of its own: the last event id a client keeps stays the game's seq.
        assert frame.id == str(reload(game_id).last_seq)
        assert frame.json() == said
    assert reload(game_id).version == version
    # A move read at the version before the message is not stale.
    view = guest.get(f"/games/{game_id}").json()
    assert view["version"] == version
    for stream in streams:
        stream.close()


def test_a_reconnecting_stream_gets_the_recent_messages_and_only_those_after_its_last(
    live: LiveServer, host, guest
):
    game_id = str(start_game(host, guest, seed=21).pk)
    first = say(host, game_id, phrase="hello")
    second = say(guest, game_id, emote="smile")
    stream = Reader(live.stream_url(game_id), auth(guest))
    stream.until_view()
    assert [m["id"] for m in messages_until_quiet(stream)] == [first["id"], second["id"]]
    stream.close()
    resumed = Reader(live.stream_url(game_id, f"messages_after={first['id']}"), auth(guest))
    resumed.until_view()
    assert [m["id"] for m in messages_until_quiet(resumed)] == [second["id"]]
    resumed.close()


def test_a_malformed_messages_after_is_refused_before_the_stream(live: LiveServer, host, guest):
    import requests

    game_id = str(start_game(host, guest, seed=21).pk)
    answer = requests.get(
        live.stream_url(game_id, "messages_after=x"), headers=auth(host), timeout=10
    )
    assert answer.status_code == 400
    assert answer.json()["error"]["details"]["fields"] == {
        "messages_after": ["a valid integer is required"]
    }


def test_a_blocked_players_messages_never_reach_the_blocker(
    live: LiveServer, host, guest, outsider
):
    game_id = str(start_game(host, guest, seed=21).pk)
    Block.objects.create(blocker=host.player, blocked=guest.player)
    hosts, outsiders = open_table(live, host, game_id), open_table(live, outsider, game_id)
    blocked = say(guest, game_id, phrase="oops")
    fine = say(outsider, game_id, emote="clap")
    assert [m["id"] for m in messages_until_quiet(outsiders)] == [blocked["id"], fine["id"]]
    assert [m["id"] for m in messages_until_quiet(hosts)] == [fine["id"]]
    hosts.close()
    outsiders.close()


def test_a_block_or_a_mute_made_while_the_stream_is_open_holds_from_the_next_message(
    live: LiveServer, host, guest, outsider
):
    # The streams keep each reader's choices for minutes: only the note that a
    # change sends can make the very next message obey it. A stream judges a message
    # by the choices in force when it sends it on: each step is read before the next
    # changes them.
    game_id = str(start_game(host, guest, seed=21).pk)
    hosts, outsiders = open_table(live, host, game_id), open_table(live, outsider, game_id)
    before = say(guest, game_id, phrase="oops")
    assert [m["id"] for m in messages_until_quiet(hosts)] == [before["id"]]

    assert host.put(f"/players/me/blocks/{guest.player.pk}").status_code == 204
    blocked = say(guest, game_id, phrase="oops")
    assert messages_until_quiet(hosts) == []
    assert host.delete(f"/players/me/blocks/{guest.player.pk}").status_code == 204
    unblocked = say(guest, game_id, emote="clap")
    assert [m["id"] for m in messages_until_quiet(hosts)] == [unblocked["id"]]
    assert host.put(f"/players/me/table-talk/muted/{guest.player.pk}").status_code == 204
    muted = say(guest, game_id, emote="smile")
    said = [before, blocked, unblocked, muted]
    assert messages_until_quiet(hosts) == []
    assert [m["id"] for m in messages_until_quiet(outsiders)] == [m["id"] for m in said]
    hosts.close()
    outsiders.close()


def test_friend_requests_and_their_acceptance_reach_the_lobby(live: LiveServer, host, guest):
    guests = Lobby(live, auth(guest))
    hosts = Lobby(live, auth(host))
    sent = host.post("/players/me/friend-requests", {"player": str(guest.player.pk)})
    assert sent.status_code == 201, sent.json()
    _, request = guests.until("friend_request")
    assert request["from"]["id"] == str(host.player.pk)
    accepted = guest.post(f"/players/me/friend-requests/{host.player.pk}/accept")
    assert accepted.status_code == 200, accepted.json()
    _, friend = hosts.until("friend_accepted")
    assert friend["friend"]["id"] == str(guest.player.pk)
    guests.close()
    hosts.close()


@pytest.fixture
def fast_heartbeat(monkeypatch) -> None:
    """The hub's presence heartbeat (which reads the friends' presence) every 0.3 s,
    from the server's start: asked for before the server."""
    monkeypatch.setattr(hub_module, "PRESENCE_HEARTBEAT_SECONDS", 0.3)


def test_a_friend_coming_online_and_sitting_down_reaches_the_lobby(
    fast_heartbeat: None, live: LiveServer, host, guest
):
    host.post("/players/me/friend-requests", {"player": str(guest.player.pk)})
    guest.post(f"/players/me/friend-requests/{host.player.pk}/accept")
    cache.delete(presence.player_key(guest.player.pk))  # the guest is away
    hosts = Lobby(live, auth(host))
    assert hosts.quiet() == []  # the guest was away when the host's stream opened
    guests = Lobby(live, auth(guest))  # the guest opens a stream: online
    _, online = hosts.until("friend_online")
    assert online["friend"]["id"] == str(guest.player.pk)
    created = guest.post("/games", {"max_players": 3})
    assert created.status_code == 201, created.json()
    _, seated = hosts.until("friend_in_game")
    assert seated == {
        "friend": online["friend"],
        "game": created.json()["id"],  # a public game: the host may watch or join it
    }
    guests.close()
    hosts.close()
