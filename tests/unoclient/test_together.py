"""Playing with other people from the terminal: a quick match, a private game hosted
and joined by its code, the next game with the same players, and going back to a
game after quitting. Whole games on a live server, every keyboard scripted."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from games.models import Game
from tests.support import wait_until
from tests.unoclient.fakes import FakeApi, Scripted, typical_answer
from unoclient.api import Api
from unoclient.identity import sign_in
from unoclient.play import Console, Options, play, play_again, seat_of
from unoclient.render import Painter


class Client:
    """One person at a terminal, playing on a thread of their own."""

    def __init__(
        self, url: str, answer: Callable[[str], str | None], home: Path, **options: Any
    ) -> None:
        self.keyboard = Scripted(answer, polls=3000, tick=0.02)
        self.console = Console(screen=self.keyboard, paint=Painter(color=False))
        # Each person has a home of their own: one saved player per person.
        config = home / options["name"]
        self.options = Options(server=url, target_score=0, config=config, **options)
        self.status: int | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            self.status = play(Api(self.options.server), self.options, self.console)
        except BaseException as error:  # handed to the test
            self.error = error

    def start(self) -> Client:
        self.thread.start()
        return self

    def finish(self) -> int | None:
        self.thread.join(timeout=60)
        assert not self.thread.is_alive(), f"the client did not finish: {self.keyboard.lines[-8:]}"
        if self.error is not None:
            raise self.error
        return self.status


def once_then(first: str, *, then: str = "n") -> Callable[[str], str | None]:
    """Play on; answer `first` to the first "again" question, `then` after."""
    asked: list[str] = []

    def answer(question: str) -> str | None:
        if "[y/N]" in question:
            asked.append(question)
            return first if len(asked) == 1 else then
        if "seats taken" in question:
            return "s" if question.startswith("2 of 2") else None
        return typical_answer(question)

    return answer


@pytest.mark.slow
def test_two_quick_matches_meet_in_one_started_game(live, bots_in_process, tmp_path):
    ann = Client(live.url, once_then("n"), tmp_path, name="Ann", quick=True, players=2).start()
    wait_until(lambda: Game.objects.exists(), "the first quick match", 10)
    bob = Client(live.url, once_then("n"), tmp_path, name="Bob", quick=True, players=2).start()
    assert ann.finish() == 0
    assert bob.finish() == 0
    game: Any = Game.objects.get()
    assert game.status == "finished"
    assert [entry["player"]["name"] for entry in game.seating] == ["Ann", "Bob"]
    assert any(line.startswith("Waiting for players… (bots after ") for line in ann.keyboard.said)
    for client in (ann, bob):
        assert client.keyboard.said[-1] == "Game over (finished)."
        assert client.keyboard.questions[-1] == "Play again? [y/N] "
        # Two people, but on one machine: the game moves no rating, and each is told
        # why (docs/api.md, "Ratings and history").
        assert not [line for line in client.keyboard.said if line.startswith("Rated: ")]
        assert client.keyboard.said[-2] == (
            "Not rated: you and another player joined from one network."
        )


@pytest.mark.slow
def test_a_private_game_shows_its_code_and_a_friend_joins_by_it(live, bots_in_process, tmp_path):
    host = Client(live.url, once_then("n"), tmp_path, name="Ann", private=True, players=2).start()
    wait_until(lambda: any("Invite code" in line for line in host.keyboard.said), "the code", 10)
    game: Any = Game.objects.get()
    code = f"{game.invite_code[:4]}-{game.invite_code[4:]}"
    assert f"  Invite code: {code}" in host.keyboard.said
    assert f"  Friends join with: python -m unoclient play --code {code}" in host.keyboard.said
    friend = Client(live.url, once_then("n"), tmp_path, name="Bob", code=code.lower()).start()
    assert host.finish() == 0
    assert friend.finish() == 0
    game.refresh_from_db()
    assert game.status == "finished"
    assert [entry["player"]["name"] for entry in game.seating] == ["Ann", "Bob"]
    assert "You joined Ann's private game." in friend.keyboard.said
    assert "Waiting for Ann to start the game…" in friend.keyboard.said


@pytest.mark.slow
def test_play_again_creates_the_next_game_and_plays_it(live, bots_in_process, tmp_path):
    ann = Client(live.url, once_then("y"), tmp_path, name="Ann", bots=1).start()
    assert ann.finish() == 0
    first, second = Game.objects.order_by("created_at")
    assert first.rematch_id == second.pk
    assert second.status == "finished"
    assert "You host the next game." in ann.keyboard.said
    assert ann.keyboard.questions.count("Play again? [y/N] ") == 2


def test_joining_the_next_game_another_player_asked_for():
    over = {"id": "g1", "status": "finished", "rematch": "g2", "last_seq": 40}
    offer = {"type": "rematch_offered", "seat": 1, "data": {"game": "g2", "by": {"name": "Bob"}}}
    api = FakeApi(
        {
            ("GET", "/games/g1"): over,
            ("GET", "/games/g1/events?after=39"): {"events": [offer], "last_seq": 40},
            ("POST", "/games/g1/rematch"): {"id": "g2", "host": {"id": "pb", "name": "Bob"}},
        }
    )
    keyboard = Scripted(lambda q: "y")
    console = Console(screen=keyboard, paint=Painter(color=False))
    view = play_again(api, console, "g1", "pa")  # type: ignore[arg-type]
    assert view is not None
    assert view["id"] == "g2"
    assert keyboard.questions == ["Bob wants to play again. Join? [y/N] "]
    assert keyboard.said == ["You joined Bob's next game."]


def test_a_seat_a_bot_holds_is_still_the_players():
    view = {
        "you": None,
        "seats": [
            {"seat": 0, "player": {"id": "pb"}, "bot": None},
            {"seat": 1, "player": {"id": "pa"}, "bot": "greedy"},
        ],
    }
    assert seat_of(view, "pa") == 1
    assert seat_of(view, "px") is None


@pytest.mark.slow
def test_going_back_to_a_game_plays_it_on(live, bots_in_process, config_home, tmp_path):
    api = Api(live.url)
    sign_in(api, name="Ann", directory=config_home)
    game = api.post("/games", {"max_players": 2, "target_score": 0})
    api.post(f"/games/{game['id']}/bots", {"strategy": "greedy"})
    api.post(f"/games/{game['id']}/start")
    ann = Client(live.url, once_then("n"), tmp_path, name="Someone", game=game["id"])
    ann.options.config = config_home
    ann.start()
    assert ann.finish() == 0
    assert Game.objects.get().status == "finished"
    assert ann.keyboard.said[0] == "Welcome back, Ann."
    assert ann.keyboard.said[-1] == "Game over (finished)."
    assert not any(line.startswith("Signed up") for line in ann.keyboard.said)


def test_input_that_ends_with_the_game_is_no_to_another():
    api = FakeApi({("GET", "/games/g1"): {"id": "g1", "status": "finished", "rematch": None}})

    def ended(question: str) -> str | None:
        raise EOFError

    console = Console(screen=Scripted(ended), paint=Painter(color=False))
    assert play_again(api, console, "g1", "pa") is None  # type: ignore[arg-type]
    assert [call[0] for call in api.calls] == ["GET"]
