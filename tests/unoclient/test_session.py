"""The play loop on a stream: it shows what happens while the player thinks, gives up
a prompt the game has moved past, survives a seat handed to a bot and a stale move,
and asks a yes/no question again until it gets a yes or a no."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from tests.unoclient.fakes import (
    B2,
    R5,
    WILD,
    FakeApi,
    FakeStream,
    Scripted,
    end_message,
    event_message,
    game_view,
    view_message,
)
from unoclient.api import ApiError
from unoclient.play import Console, Session
from unoclient.render import Painter, clock_time

PLAY_R5 = {"action": "play", "card": R5["id"]}
DRAW = {"action": "draw"}
MOVES_PATH = ("POST", "/games/g1/moves")


def in_seconds(seconds: float) -> str:
    return (dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds)).isoformat()


def session_of(
    stream: FakeStream, screen: Scripted, api: FakeApi | None = None, first: int = 1
) -> Session:
    console = Console(screen=screen, paint=Painter(color=False))
    return Session(api or FakeApi(), console, game_view(first), stream)  # type: ignore[arg-type]


def answers(script: dict[str, list[str | None]]) -> Callable[[str], str | None]:
    """Answer each question (by a word in it) with its answers in turn, the last
    one for ever after."""

    def answer(question: str) -> str | None:
        for word, replies in script.items():
            if word in question:
                return replies.pop(0) if len(replies) > 1 else replies[0]
        raise AssertionError(f"unexpected question {question!r}")

    return answer


def moved(
    stream: FakeStream, after: dict[str, Any], *more: Any, wrapped: bool = True
) -> Callable[[Any], Any]:
    """A move's answer, the new view (in `{"game"}` unless not `wrapped`, as
    /resume answers); the stream then brings the view, then `more`."""

    def answer(body: Any) -> Any:
        stream.push(view_message(after), *more)
        return {"game": after, "events": []} if wrapped else after

    return answer


def test_a_bad_answer_to_a_yes_no_question_asks_again():
    catch = {"action": "catch_uno", "target": 1}
    stream = FakeStream(view_message(game_view(2, moves=[catch])))
    screen = Scripted(answers({"Catch": ["maybe", "", "  YES "]}))
    api = FakeApi()
    api.answers[MOVES_PATH] = moved(stream, game_view(3), end_message())
    assert session_of(stream, screen, api).run() == 0
    assert screen.questions == ["Bot 1 (greedy) did not say UNO. Catch them? [y/n] "] * 3
    assert screen.said.count("Please answer y (yes) or n (no).") == 2
    assert api.calls == [("POST", "/games/g1/moves", {"version": 2, **catch})]


def test_a_no_to_an_optional_question_is_not_asked_again_for_the_same_position():
    catch = {"action": "catch_uno", "target": 1}
    stream = FakeStream(view_message(game_view(2, moves=[catch])))
    screen = Scripted(answers({"Catch": ["No"]}), on_poll=lambda n, q: stream.push(end_message()))
    assert session_of(stream, screen).run() == 0
    assert len(screen.questions) == 1


def test_a_number_out_of_range_asks_for_the_move_again():
    stream = FakeStream(view_message(game_view(2, current=0, moves=[PLAY_R5, DRAW])))
    screen = Scripted(answers({"Your move": ["3", "x", "2"]}))
    api = FakeApi()
    api.answers[MOVES_PATH] = moved(stream, game_view(3), end_message())
    assert session_of(stream, screen, api).run() == 0
    assert screen.said.count("Type the number of a move.") == 2
    assert api.calls[-1][2] == {"version": 2, **DRAW}


def test_a_timeout_under_the_prompt_abandons_it_and_asks_from_the_new_view():
    stream = FakeStream(
        view_message(game_view(2, current=0, moves=[PLAY_R5, DRAW], deadline=in_seconds(30)))
    )

    def time_runs_out(poll: int, question: str) -> None:
        if poll == 1 and len(screen.questions) == 1:
            stream.push(
                event_message(3, "turn_timed_out", 0, timeouts=1),
                event_message(4, "cards_drawn", 0, count=1, reason="draw", cards=[WILD]),
                event_message(5, "card_played", 1, card=B2, color="blue"),
                view_message(game_view(5, current=0, moves=[PLAY_R5, DRAW])),
            )

    screen = Scripted(answers({"Your move": [None, "1"], "UNO": ["y"]}), on_poll=time_runs_out)
    api = FakeApi()
    api.answers[MOVES_PATH] = moved(stream, game_view(6), end_message())
    assert session_of(stream, screen, api).run() == 0
    assert screen.questions[:2] == ["Your move [1-2]: ", "Your move [1-2]: "]
    assert screen.settled[0] is False  # the first prompt was given up, not answered
    first = screen.lines.index("Your move [1-2]: ")
    shown = screen.lines[first + 1 : screen.lines.index("Your move [1-2]: ", first + 1)]
    assert "Your turn timed out (1 in a row)" in shown
    assert "You drew 1 card: [W]" in shown
    assert "Bot 1 (greedy) played [B2]" in shown
    assert api.calls == [("POST", "/games/g1/moves", {"version": 5, **PLAY_R5, "uno": True})]
    counted = [s for s in screen.countdowns if s is not None]
    assert counted
    assert 25 <= counted[0] <= 30


def test_the_seat_handed_to_a_bot_is_said_and_taken_back_with_r():
    until = in_seconds(300)
    stream = FakeStream(
        view_message(game_view(2, current=0, moves=[PLAY_R5, DRAW], deadline=in_seconds(5)))
    )

    def handed_over(poll: int, question: str) -> None:
        if poll == 1 and question.startswith("Your move"):
            stream.push(
                event_message(3, "turn_timed_out", 0, timeouts=3),
                event_message(4, "seat_taken_by_bot", 0, strategy="greedy"),
                event_message(5, "game_paused", None, until=until),
                view_message(game_view(5, my_seat_bot="greedy", paused_until=until)),
            )

    screen = Scripted(answers({"Your move": [None], "seat back": ["r"]}), on_poll=handed_over)
    api = FakeApi()
    api.answers[("POST", "/games/g1/resume")] = moved(
        stream,
        game_view(7),
        event_message(6, "seat_resumed", 0, player={"id": "p", "name": "Ann"}),
        event_message(7, "game_resumed", None),
        view_message(game_view(7)),
        event_message(8, "card_played", 1, card=B2, color="blue"),
        view_message(game_view(8, status="finished", scores=(0, 40))),
        end_message(),
        wrapped=False,
    )
    assert session_of(stream, screen, api).run() == 0
    said = screen.said
    assert "Your turn timed out (3 in a row)" in said
    assert "Your seat was handed to a greedy bot; type r and Enter to take it back" in said
    paused = [line for line in said if line.startswith("The game is paused until")]
    assert paused == [f"The game is paused until {clock_time(until)}: nobody is at the table"]
    assert screen.questions == ["Your move [1-2]: ", "Type r and Enter to take your seat back: "]
    assert api.calls == [("POST", "/games/g1/resume", {})]
    assert said[-5:] == [
        "You took your seat back",
        "The game goes on",
        "Bot 1 (greedy) played [B2]",
        "Final scores: You 0, Bot 1 (greedy) 40",
        "Game over (finished).",
    ]


def test_a_player_whose_seat_a_bot_plays_goes_on_watching_to_the_end():
    stream = FakeStream(
        event_message(2, "seat_taken_by_bot", 0, strategy="greedy"),
        view_message(game_view(2, my_seat_bot="greedy")),
    )

    def bots_play_on(poll: int, question: str) -> None:
        if poll == 2:
            stream.push(
                event_message(3, "card_played", 0, card=R5, color="red"),
                event_message(4, "card_played", 1, card=B2, color="blue"),
                view_message(game_view(4, my_seat_bot="greedy")),
            )
        if poll == 4:
            stream.push(view_message(game_view(5, my_seat_bot="greedy", status="finished")))
            stream.push(end_message())

    screen = Scripted(answers({"seat back": [None]}), on_poll=bots_play_on)
    assert session_of(stream, screen).run() == 0
    assert "You played [R5]" in screen.said
    assert "Bot 1 (greedy) played [B2]" in screen.said
    assert screen.said[-1] == "Game over (finished)."
    assert len(screen.questions) == 1  # the offer stays on screen while the bots play


def test_a_stale_move_is_no_crash_the_game_is_read_again():
    stream = FakeStream(view_message(game_view(2, current=0, moves=[PLAY_R5, DRAW])))
    screen = Scripted()
    api = FakeApi()
    api.answers[MOVES_PATH] = ApiError(409, "stale_version", "the game is at version 3", {})

    def read_again(body: Any) -> Any:
        stream.push(view_message(game_view(3)), end_message())
        return game_view(3)

    api.answers[("GET", "/games/g1")] = read_again
    assert session_of(stream, screen, api).run() == 0
    assert "(the game is at version 3)" in screen.said
    assert [call[:2] for call in api.calls] == [MOVES_PATH, ("GET", "/games/g1")]


def test_a_drawn_card_is_played_or_kept_by_a_yes_or_a_no():
    pending = {"type": "drawn_card", "seat": 0, "card": B2}
    drawn = game_view(
        2,
        current=0,
        hand=[R5, B2],
        pending=pending,
        moves=[{"action": "play", "card": 30}, {"action": "pass"}],
    )
    stream = FakeStream(view_message(drawn))
    screen = Scripted(answers({"Play it?": ["perhaps", "n"]}))
    api = FakeApi()
    api.answers[MOVES_PATH] = moved(stream, game_view(3), end_message())
    assert session_of(stream, screen, api).run() == 0
    assert screen.questions == ["You drew [B2]. Play it? [y/n] "] * 2
    assert api.calls[-1][2] == {"version": 2, "action": "pass"}


def test_playing_the_second_to_last_card_asks_for_uno():
    stream = FakeStream(view_message(game_view(2, current=0, moves=[PLAY_R5, DRAW])))
    screen = Scripted()
    api = FakeApi()
    api.answers[MOVES_PATH] = moved(stream, game_view(3), end_message())
    assert session_of(stream, screen, api).run() == 0
    assert screen.questions[-1] == "That leaves you one card. Say UNO? [y/n] "
    assert api.calls[-1][2] == {"version": 2, **PLAY_R5, "uno": True}
