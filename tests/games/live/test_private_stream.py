"""The live stream of a private game: 404 to outsiders, open to its players and to
holders of its invite code (with a token or a ticket)."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.factories import start_game
from tests.games.live.conftest import LiveServer, auth
from tests.games.live.test_stream import Reader, refused


@pytest.fixture
def private_game(host, guest):
    return start_game(host, guest, seed=21, visibility="private")


def test_an_outsider_without_the_code_gets_a_404_as_for_no_game(
    live: LiveServer, outsider, private_game
):
    error = refused(live.stream_url(str(private_game.pk)), auth(outsider))
    assert error.status == 404
    assert error.json()["error"]["code"] == "not_found"
    wrong = refused(live.stream_url(str(private_game.pk), "code=ZZZZ9999"), auth(outsider))
    assert wrong.status == 404


def test_a_seated_player_sees_the_code_on_their_stream(live: LiveServer, host, private_game):
    reader = Reader(live.stream_url(str(private_game.pk)), auth(host))
    _, view = reader.until_view()
    assert view["invite_code"] == private_game.invite_code
    reader.close()


def test_a_holder_of_the_code_watches_as_a_spectator(live: LiveServer, outsider, private_game):
    code = quote(private_game.invite_code.lower())
    reader = Reader(live.stream_url(str(private_game.pk), f"code={code}"), auth(outsider))
    _, view = reader.until_view()
    assert view["you"] is None
    assert view["invite_code"] is None
    reader.close()


def test_a_holder_of_the_code_watches_with_a_ticket(live: LiveServer, outsider, private_game):
    game_id, code = str(private_game.pk), private_game.invite_code
    assert outsider.post(f"/games/{game_id}/stream-ticket").status_code == 404
    answer = outsider.post(f"/games/{game_id}/stream-ticket?code={code}")
    assert answer.status_code == 201, answer.json()
    ticket = quote(answer.json()["ticket"])
    reader = Reader(live.stream_url(game_id, f"ticket={ticket}&code={code}"))
    _, view = reader.until_view()
    assert view["you"] is None
    reader.close()
