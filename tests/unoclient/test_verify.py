"""`python -m unoclient verify GAME_ID`: the terminal client fetches a finished game's
log from the server, as the player saved for it, and checks every step of it."""

from __future__ import annotations

import pytest

from tests.factories import Persona, play_out, reload
from tests.games.live.conftest import LiveServer
from unoclient.cli import main

pytestmark = pytest.mark.django_db(transaction=True)


def test_verify_fetches_a_finished_game_and_says_every_step_held(
    live: LiveServer, host: Persona, guest: Persona, capsys: pytest.CaptureFixture[str]
) -> None:
    game_id = host.post("/games", {"max_players": 2, "target_score": 0}).json()["id"]
    guest.post(f"/games/{game_id}/join", {"client_seed": "5eed"})
    host.post(f"/games/{game_id}/start", {"client_seed": "a5eed"})
    play_out(reload(game_id), {0: host, 1: guest})
    assert main(["verify", game_id, "--server", live.url]) == 0
    said = capsys.readouterr().out
    for step in ("commitment", "client seeds", "round seeds", "shuffles", "moves"):
        assert step in said
    assert "The deal and every move check out." in said


def test_verify_of_a_running_game_says_there_is_nothing_to_check_yet(
    live: LiveServer, host: Persona, guest: Persona, capsys: pytest.CaptureFixture[str]
) -> None:
    game_id = host.post("/games", {"max_players": 2}).json()["id"]
    guest.post(f"/games/{game_id}/join")
    host.post(f"/games/{game_id}/start")
    assert main(["verify", game_id, "--server", live.url]) == 1
    assert "FAILED at the reveal" in capsys.readouterr().out


def test_verify_wants_a_game_or_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify"]) == 2
    assert "GAME_ID or --file" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["[1, 2]", "{}", "not json", '{"complete": true, "deal": 5}'])
def test_verify_of_a_file_that_is_no_log_says_so(
    text: str, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "log.json"
    saved.write_text(text)
    assert main(["verify", "--file", str(saved)]) == 1
    said = capsys.readouterr()
    assert "Not a log this can read" in said.err or "FAILED at" in said.out
