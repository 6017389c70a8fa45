"""``GET /players/me/stream`` end to end over a real server (docs/api.md, "The lobby
stream"): each lobby event reaches the players it concerns and no one else, a turn
is told once, games joined after the opening are followed, tickets, presence, and
the errors before the stream."""

from __future__ import annotations

import datetime as dt
import queue
import time
from typing import Any

import pytest
import time_machine
from django.db.models import F
from django.utils import timezone

from games.engine import GameState
from games.live import hub as hub_module
from games.models import Game
from players.models import Rating
from tests.factories import Persona, human_to_act_game, play_out, reload, seat_table, start_game
from tests.games.live.conftest import LiveServer, auth
from tests.games.live.test_stream import Reader, move_of, refused
from tests.support import wait_until
from unoclient.sse import Message

pytestmark = pytest.mark.django_db(transaction=True)

# Long enough for the hub's poll (0.25 s) and a load: what "nothing came" waits.
QUIET_SECONDS = 1.5


class Lobby(Reader):
    """A lobby stream read on a thread: its `hello`, then its events."""

    def __init__(self, live: LiveServer, headers: dict[str, str] | None = None, query: str = ""):
        url = f"{live.url}/api/v1/players/me/stream" + (f"?{query}" if query else "")
        super().__init__(url, headers)
        opening = self.next()
        assert opening is not None
        assert opening.retry == 2000
        hello = self.event()
        assert hello.event == "hello"
        self.games: list[str] = hello.json()["games"]

    def event(self, timeout: float = 10.0) -> Message:
        message = self.next(timeout)
        assert message is not None, "the stream ended"
        return message

    def until(self, name: str, timeout: float = 20.0) -> tuple[list[Message], dict[str, Any]]:
        """The events before the next `name`, and its data."""
        before = []
        while True:
            message = self.event(timeout)
            if message.event == name:
                return before, message.json()
            before.append(message)

    def quiet(self) -> list[Message]:
        """What comes within `QUIET_SECONDS` (comments aside)."""
        came = []
        try:
            while True:
                message = self.next(QUIET_SECONDS)
                assert message is not None, "the stream ended"
                came.append(message)
        except queue.Empty:
            return came


def to_act(game_id: str, *personas: Persona) -> Persona:
    state = GameState.from_snapshot(reload(game_id).state)
    return personas[state.to_act]


def test_the_opening_says_hello_with_the_games_and_whose_turn_it_is(
    live: LiveServer, host, guest, outsider
):
    game = human_to_act_game(host, guest)  # the host's turn
    waiting = seat_table(guest, max_players=3)
    host_lobby = Lobby(live, auth(host))
    assert host_lobby.games == [str(game.pk)]
    assert host_lobby.event().event == "your_turn"
    guest_lobby = Lobby(live, auth(guest))
    assert sorted(guest_lobby.games) == sorted([str(game.pk), str(waiting.pk)])
    outsider_lobby = Lobby(live, auth(outsider))
    assert outsider_lobby.games == []
    assert guest_lobby.quiet() == []  # not the guest's turn: nothing to act on
    for lobby in (host_lobby, guest_lobby, outsider_lobby):
        lobby.close()


def test_the_opening_your_turn_carries_the_turn_deadline(live: LiveServer, host, guest):
    game = human_to_act_game(host, guest, turn_timeout=30)
    lobby = Lobby(live, auth(host))
    turn = lobby.event()
    assert turn.event == "your_turn"
    assert turn.json() == {
        "game": str(game.pk),
        "turn_deadline": host.get(f"/games/{game.pk}").json()["turn_deadline"],
    }
    assert turn.json()["turn_deadline"] is not None
    lobby.close()


def test_game_started_reaches_the_seated_players_and_no_one_else(
    live: LiveServer, host, guest, outsider
):
    game_id = str(seat_table(host, guest, seed=21).pk)
    lobbies = {who.player.name: Lobby(live, auth(who)) for who in (host, guest, outsider)}
    answer = host.post(f"/games/{game_id}/start")
    assert answer.status_code == 200, answer.json()
    for who in (host, guest):
        _, started = lobbies[who.player.name].until("game_started")
        assert started == {"game": game_id}
    # The seat to act hears it is their turn, once; the other seat does not.
    actor = to_act(game_id, host, guest)
    other = guest if actor is host else host
    _, turn = lobbies[actor.player.name].until("your_turn")
    assert turn == {"game": game_id, "turn_deadline": None}
    assert [m.event for m in lobbies[other.player.name].quiet()] == []
    assert lobbies[outsider.player.name].quiet() == []
    for lobby in lobbies.values():
        lobby.close()


def test_your_turn_comes_once_per_turn_not_on_every_change(live: LiveServer, host, guest):
    game_id = str(start_game(host, guest, seed=21).pk)
    actor = to_act(game_id, host, guest)
    other = guest if actor is host else host
    waiting_lobby = Lobby(live, auth(other))
    move_of(actor, game_id)  # a draw: the turn passes
    if to_act(game_id, host, guest) is actor:
        pytest.skip("the draw kept the turn with its player under this seed")
    _, turn = waiting_lobby.until("your_turn")
    assert turn["game"] == game_id
    # A change that leaves the turn where it was (the log grows, the seat to act
    # stays): no second your_turn.
    Game.objects.filter(pk=game_id).update(last_seq=F("last_seq") + 1, version=F("version") + 1)
    assert waiting_lobby.quiet() == []
    waiting_lobby.close()


def test_game_finished_at_the_end_with_the_winner_and_the_players_new_rating(
    live: LiveServer, host, guest, outsider
):
    game = start_game(host, guest, seed=21)
    lobbies = {who.player.name: Lobby(live, auth(who)) for who in (host, guest, outsider)}
    game = play_out(game, {0: host, 1: guest})
    assert game.status == "finished"
    for who in (host, guest):
        before, finished = lobbies[who.player.name].until("game_finished", timeout=30)
        rating = Rating.objects.get(player=who.player)
        won = game.seat_of(who.player) == game.winner
        assert finished == {
            "game": str(game.pk),
            "winner": game.winner,
            "rating": {
                "mu": rating.mu,
                "sigma": rating.sigma,
                "ordinal": rating.ordinal,
                "games": 1,
                "change": {
                    "mu": pytest.approx(rating.mu - 25.0),
                    "sigma": pytest.approx(rating.sigma - 25.0 / 3),
                    "ordinal": pytest.approx(rating.ordinal),
                },
            },
        }
        assert (finished["rating"]["change"]["mu"] > 0) == won
        assert {m.event for m in before} <= {"your_turn"}
    assert lobbies[outsider.player.name].quiet() == []
    for lobby in lobbies.values():
        lobby.close()


def test_game_finished_of_an_unrated_game_has_no_rating(live: LiveServer, host, guest):
    game = start_game(host, guest, seed=21, rated=False)
    lobby = Lobby(live, auth(guest))
    game = play_out(game, {0: host, 1: guest})
    _, finished = lobby.until("game_finished", timeout=30)
    assert finished == {"game": str(game.pk), "winner": game.winner, "rating": None}
    lobby.close()


def test_a_rematch_is_offered_to_the_other_players_and_joining_it_is_a_match(
    live: LiveServer, host, guest, outsider
):
    game = play_out(start_game(host, guest, seed=21), {0: host, 1: guest})
    lobbies = {who.player.name: Lobby(live, auth(who)) for who in (host, guest, outsider)}
    assert lobbies[guest.player.name].games == [str(game.pk)]  # a game just over: followed
    answer = host.post(f"/games/{game.pk}/rematch")
    assert answer.status_code == 201, answer.json()
    rematch_id = answer.json()["id"]
    _, offered = lobbies[guest.player.name].until("rematch_offered")
    assert offered == {
        "game": rematch_id,
        "by": {"id": str(host.player.pk), "name": host.player.name},
    }
    # The host asked (and hosts the rematch): nothing to tell them.
    assert lobbies[host.player.name].quiet() == []
    joined = guest.post(f"/games/{game.pk}/rematch")
    assert joined.status_code == 201, joined.json()
    _, found = lobbies[guest.player.name].until("match_found")
    assert found == {"game": rematch_id}
    assert lobbies[outsider.player.name].quiet() == []
    for lobby in lobbies.values():
        lobby.close()


def test_a_game_joined_after_the_opening_is_followed(live: LiveServer, host, guest, outsider):
    guest_lobby = Lobby(live, auth(guest))
    outsider_lobby = Lobby(live, auth(outsider))
    assert guest_lobby.games == []
    game_id = str(seat_table(host, seed=21, max_players=2).pk)
    answer = guest.post(f"/games/{game_id}/join")
    assert answer.status_code == 200, answer.json()
    _, found = guest_lobby.until("match_found")
    assert found == {"game": game_id}
    assert host.post(f"/games/{game_id}/start").status_code == 200
    _, started = guest_lobby.until("game_started")
    assert started == {"game": game_id}
    assert outsider_lobby.quiet() == []
    guest_lobby.close()
    outsider_lobby.close()


def test_a_game_joined_while_its_change_still_loads_is_followed_from_the_join(
    live: LiveServer, host, guest, monkeypatch: pytest.MonkeyPatch
):
    # The host's lobby stream keeps the game as it was before the join; its reads
    # are slowed, so that the guest's seat is heard while the join still loads.
    game_id = str(seat_table(host, seed=21, max_players=2).pk)
    host_lobby = Lobby(live, auth(host))
    guest_lobby = Lobby(live, auth(guest))
    read_change = hub_module._read_change

    def slow_read(*args: Any) -> Any:
        time.sleep(0.3)
        return read_change(*args)

    monkeypatch.setattr(hub_module, "_read_change", slow_read)
    assert guest.post(f"/games/{game_id}/join").status_code == 200
    _, found = guest_lobby.until("match_found")
    assert found == {"game": game_id}
    assert host.post(f"/games/{game_id}/start").status_code == 200
    # Shorter than the pings' interval, which would keep waiting for ever.
    _, started = guest_lobby.until("game_started", timeout=10)
    assert started == {"game": game_id}
    host_lobby.close()
    guest_lobby.close()


def test_a_game_created_after_the_opening_is_followed_without_a_match(
    live: LiveServer, host, guest
):
    host_lobby = Lobby(live, auth(host))
    game_id = str(seat_table(host, guest, seed=21).pk)
    assert host.post(f"/games/{game_id}/start").status_code == 200
    before, started = host_lobby.until("game_started")
    assert started == {"game": game_id}
    assert [m.event for m in before] == []  # their own game: no match_found
    host_lobby.close()


# -- authentication and refusals ------------------------------------------------------------


def lobby_ticket(persona: Persona) -> str:
    answer = persona.post("/players/me/stream-ticket")
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    expires = dt.datetime.fromisoformat(body["expires_at"])
    assert dt.timedelta(seconds=55) < expires - timezone.now() <= dt.timedelta(seconds=60)
    return str(body["ticket"])


def test_a_lobby_ticket_opens_the_lobby_stream_once(live: LiveServer, host, guest):
    game = human_to_act_game(host, guest)
    ticket = lobby_ticket(host)
    lobby = Lobby(live, query=f"ticket={ticket}")
    assert lobby.games == [str(game.pk)]  # the ticket's player
    lobby.close()
    url = f"{live.url}/api/v1/players/me/stream?ticket={ticket}"
    assert refused(url).status == 401


def test_tickets_do_not_cross_between_game_and_lobby_streams(live: LiveServer, host, guest):
    game_id = str(seat_table(host, guest).pk)
    for_game = host.post(f"/games/{game_id}/stream-ticket").json()["ticket"]
    assert refused(f"{live.url}/api/v1/players/me/stream?ticket={for_game}").status == 401
    for_lobby = lobby_ticket(host)
    assert refused(live.stream_url(game_id, f"ticket={for_lobby}")).status == 401


def test_the_lobby_stream_needs_a_player(live: LiveServer, host):
    url = f"{live.url}/api/v1/players/me/stream"
    error = refused(url)
    assert error.status == 401
    assert error.json()["error"]["code"] == "not_authenticated"
    assert refused(url, {"Authorization": "Bearer nonsense"}).status == 401
    assert refused(f"{url}?ticket=nonsense").status == 401


def test_a_lobby_ticket_needs_a_player(client):
    answer = client.post("/api/v1/players/me/stream-ticket")
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "not_authenticated"


@pytest.fixture
def quick_heartbeat(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hub_module, "PRESENCE_HEARTBEAT_SECONDS", 0.1)


def test_an_open_lobby_stream_keeps_its_player_online(
    quick_heartbeat: None, live: LiveServer, host, guest
):
    game_id = str(seat_table(host, guest).pk)
    lobby = Lobby(live, auth(guest))

    def guest_online() -> bool:
        return bool(host.get(f"/games/{game_id}").json()["seats"][1]["online"])

    now = timezone.now()
    with time_machine.travel(now + dt.timedelta(seconds=60)):  # past the opening's 30 s
        wait_until(guest_online, "the lobby stream's heartbeat", 5)
        lobby.close()
        wait_until(lambda: not hub_module.hub().streaming, "the stream's closing", 5)
    with time_machine.travel(now + dt.timedelta(seconds=120)):
        assert guest_online() is False


# -- without the ASGI server ------------------------------------------------------------------


def test_without_the_asgi_server_the_view_answers_the_opening(host, guest):
    game = human_to_act_game(host, guest)
    answer = host.get("/players/me/stream")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/event-stream")
    body = answer.content.decode()
    assert body.startswith("retry: 2000\n\n")
    assert f'event: hello\ndata: {{"games":["{game.pk}"]}}\n\n' in body
    assert f'event: your_turn\ndata: {{"game":"{game.pk}"' in body
    assert "your_turn" not in guest.get("/players/me/stream").content.decode()


def test_without_the_asgi_server_the_view_refuses_in_the_apis_shape(client):
    answer = client.get("/api/v1/players/me/stream")
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "not_authenticated"
