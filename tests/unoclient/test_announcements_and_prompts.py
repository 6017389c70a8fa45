"""What the player reads, once and in order: UNO said with a play is announced once, a
lone legal move asks for Enter instead of a number, the deal is shown before the
first question, and a `--name` that a saved player overrides is pointed out."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unoclient.fakes import (
    B2,
    R5,
    R7,
    FakeApi,
    FakeStream,
    Scripted,
    end_message,
    event_message,
    game_view,
    view_message,
)
from tests.unoclient.test_identity import server_with_players
from tests.unoclient.test_session import answers, moved, session_of
from unoclient.api import ApiError
from unoclient.identity import sign_in
from unoclient.play import Console, Options, Session, play
from unoclient.render import Painter

DRAW = {"action": "draw"}
PLAY_R5 = {"action": "play", "card": R5["id"]}
MOVES_PATH = ("POST", "/games/g1/moves")


def test_uno_said_with_a_play_is_announced_once():
    stream = FakeStream(
        event_message(2, "card_played", 1, card=B2, color="blue", uno=True),
        event_message(3, "uno_called", 1),
        view_message(game_view(3)),
        end_message(),
    )
    screen = Scripted()
    assert session_of(stream, screen).run() == 0
    assert [line for line in screen.said if "UNO" in line] == ["Bot 1 (greedy) said UNO!"]
    assert screen.said.index("Bot 1 (greedy) played [B2]") < screen.said.index(
        "Bot 1 (greedy) said UNO!"
    )


def test_a_lone_legal_move_asks_for_enter_not_for_a_number():
    stream = FakeStream(view_message(game_view(2, current=0, moves=[DRAW])))
    screen = Scripted(answers({"Press Enter": [""]}))
    api = FakeApi()
    api.answers[MOVES_PATH] = moved(stream, game_view(3), end_message())
    assert session_of(stream, screen, api).run() == 0
    assert screen.questions == ["Press Enter to draw a card: "]
    assert api.calls == [("POST", "/games/g1/moves", {"version": 2, **DRAW})]


def test_a_lone_play_of_the_second_to_last_card_still_asks_for_uno():
    stream = FakeStream(view_message(game_view(2, current=0, moves=[PLAY_R5])))
    screen = Scripted(answers({"Press Enter": ["y"], "UNO": ["y"]}))
    api = FakeApi()
    api.answers[MOVES_PATH] = moved(stream, game_view(3), end_message())
    assert session_of(stream, screen, api).run() == 0
    assert screen.questions == [
        "Press Enter to play [R5]: ",
        "That leaves you one card. Say UNO? [y/n] ",
    ]
    assert api.calls[-1][2] == {"version": 2, **PLAY_R5, "uno": True}


def test_the_deal_is_shown_before_the_first_question_of_a_game_just_started():
    # The start's answer is the first view; the stream, just opened, brings the events
    # that led to it a moment later.
    started = game_view(3, current=0, moves=[PLAY_R5, DRAW])
    stream = FakeStream(
        event_message(1, "game_started", None, dealer=1),
        event_message(2, "round_started", None, top_card=R7),
        view_message(started),
        late=2,
    )
    screen = Scripted(answers({"Your move": ["2"]}))
    api = FakeApi()
    api.answers[MOVES_PATH] = moved(stream, game_view(4), end_message())
    console = Console(screen=screen, paint=Painter(color=False))
    assert Session(api, console, started, stream).run() == 0  # type: ignore[arg-type]
    first_question = screen.lines.index("Your move [1-2]: ")
    assert screen.lines.index("The game starts") < first_question
    assert screen.lines.index("Round 1 starts: [R7] on the pile") < first_question


def greeted(config_home: Path, name: str | None) -> list[str]:
    """What `play` says before it looks for a game, run with `--name name` (None: no
    `--name`) after Ann signed up on this server; the game is then refused."""
    api, names = server_with_players()
    sign_in(api, name="Ann", directory=config_home)  # type: ignore[arg-type]
    api.answers[("POST", "/games")] = ApiError(503, "unavailable", "try later", {})
    screen = Scripted()
    options = Options(server="http://fake", name=name, config=config_home)
    with pytest.raises(ApiError):
        play(api, options, Console(screen=screen, paint=Painter(color=False)))  # type: ignore[arg-type]
    assert names == ["Ann"]  # nobody new signed up
    return screen.said


def test_a_name_a_saved_player_overrides_is_pointed_out_with_how_to_play_under_it(config_home):
    said = greeted(config_home, "Bob")
    assert said == [
        "Welcome back, Ann.",
        "--name Bob is not used: you play as Ann, the player saved for this server."
        " To play as Bob, add --new-player --name Bob.",
    ]


@pytest.mark.parametrize("name", [None, "Ann"])
def test_no_name_or_the_saved_name_is_greeted_alone(config_home, name):
    assert greeted(config_home, name) == ["Welcome back, Ann."]
