"""The whole story on the production server, with its worker mailing through a real
SMTP server: a guest plays a game, links an email by the code read from the mail,
signs in on a second device by a new code (and a third, the terminal client),
plays one game from both devices, signs
the first device out from the second (its stream ends), and both devices read the
same rating and history."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.games.test_notifications_end_to_end import actor, move_once, view
from tests.players.test_sign_out_everywhere_served import Watched
from tests.served import Client, Served, serving
from tests.smtp_server import MailServer
from tests.support import wait_until
from tests.workers import WITH_A_WORKER
from unoclient.api import Api
from unoclient.identity import sign_in_by_email

pytestmark = WITH_A_WORKER

ANN = "ann@example.com"
# Codes to one address a second apart, not a minute: the test asks for two.
INTERVAL = 1


@pytest.fixture
def server(
    tmp_path: Path, mail_server: MailServer, celery_processes: Callable[..., Any]
) -> Iterator[Served]:
    env = {"EMAIL_URL": mail_server.url, "EMAIL_CODE_INTERVAL_SECONDS": str(INTERVAL)}
    celery_processes(0.0, env=env, beat=False)
    with serving(tmp_path, env) as served:
        yield served


def play_to_the_end(players: dict[int, Client], game_id: str) -> dict[str, Any]:
    """Moves by whoever is to act, from the client given for their seat (a list of
    clients takes turns), until the game is over."""
    game = view(players[0], game_id)
    turns = 0
    while game["status"] == "playing":
        assert turns < 1000, "the game does not end"
        seat = actor(game)
        game = move_once(players[seat], game_id)
        turns += 1
    return game


def new_game(host: Client, guest: Client) -> str:
    game_id = host.post("/games", {"max_players": 2, "target_score": 0}).body["id"]
    assert guest.post(f"/games/{game_id}/join").status == 200
    assert host.post(f"/games/{game_id}/start").status == 200
    return str(game_id)


class Alternating(Client):
    """One player's moves sent from two devices in turn."""

    def __init__(self, first: Client, second: Client) -> None:
        super().__init__(first.port, first.address, first.token)
        self.devices = [first, second]
        self.sent = 0

    def request(self, method: str, path: str, body: Any = None, **options: Any) -> Any:
        device = self.devices[self.sent % 2]
        if method == "POST":
            self.sent += 1
        return device.request(method, path, body, **options)


def test_a_guest_keeps_her_account_and_plays_it_from_two_devices(
    server: Served, mail_server: MailServer, tmp_path: Path
):
    phone = server.client().sign_up("Ann")
    bob = server.client().sign_up("Bob")
    first = play_to_the_end({0: phone, 1: bob}, new_game(phone, bob))
    assert first["status"] == "finished"
    assert phone.get("/players/me").body["recoverable"] is False

    # The phone links her address by the code the mail brings.
    assert phone.post("/players/email-codes", {"email": ANN}).status == 202
    code = mail_server.next_code_to(ANN, after=0)
    linked = phone.post("/players/me/identities", {"email": ANN, "code": code})
    assert linked.status == 201, linked.body
    assert phone.get("/players/me").body["recoverable"] is True

    # A laptop signs in by a new code, with a token of its own.
    time.sleep(INTERVAL + 0.1)
    laptop = server.client()
    assert laptop.post("/players/email-codes", {"email": ANN}).status == 202
    code = mail_server.next_code_to(ANN, after=1)
    signed = laptop.post("/players/sign-in", {"email": ANN, "code": code, "device": "laptop"})
    assert signed.status == 200, signed.body
    laptop = laptop.as_player(signed.body["token"])
    me_on_phone, me_on_laptop = phone.get("/players/me").body, laptop.get("/players/me").body
    assert me_on_laptop["id"] == me_on_phone["id"]

    # And the terminal client signs in the same way, reading the code from the person.
    time.sleep(INTERVAL + 0.1)
    terminal = Api(server.url)
    me_on_terminal = sign_in_by_email(
        terminal,
        email=ANN,
        directory=tmp_path,
        ask=lambda _prompt: mail_server.next_code_to(ANN, after=2),
    )
    assert me_on_terminal["id"] == me_on_phone["id"]
    assert terminal.get("/players/me")["rating"] == me_on_phone["rating"]

    # The rating and the history read the same from both.
    assert me_on_laptop["rating"] == me_on_phone["rating"]
    assert me_on_laptop["stats"] == me_on_phone["stats"]
    history = f"/players/{me_on_phone['id']}/games"
    assert laptop.get(history).body == phone.get(history).body
    assert [g["game"] for g in laptop.get(history).body["results"]] == [first["id"]]

    # Both devices play one game: her moves go from each in turn.
    second = new_game(phone, bob)
    ann = Alternating(phone, laptop)
    assert play_to_the_end({0: ann, 1: bob}, second)["status"] == "finished"
    assert ann.sent >= 2

    # The laptop signs the phone out: the phone's stream ends, its token is refused.
    stream = Watched(
        f"{server.url}/api/v1/players/me/stream", {"Authorization": f"Bearer {phone.token}"}
    )
    sessions = laptop.get("/players/me/sessions").body
    assert len(sessions) == 3
    (phone_session,) = [s for s in sessions if s["device"] == ""]
    assert laptop.request("DELETE", f"/players/me/sessions/{phone_session['id']}").status == 204
    wait_until(stream.ended.is_set, "the phone's stream ended", 15)
    assert phone.get("/players/me").status == 401
    assert laptop.get("/players/me").body["stats"]["games_played"] == 2
    assert len(laptop.get(history).body["results"]) == 2
