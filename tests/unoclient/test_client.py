"""The terminal client: what it shows, how it reads the command line, and whole games
played against bots through the HTTP API and the game's stream alone (a live server;
a real worker, or bots moved on a thread of the test)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from games import replay
from games.models import Game
from tests.unoclient.fakes import FakeApi, Scripted
from unoclient.api import Api, ApiError
from unoclient.cli import parser
from unoclient.play import Console, Options, find_game, play
from unoclient.render import Painter, describe_event, describe_move

SEATS = [
    {"seat": 0, "player": {"id": "p", "name": "Ann"}, "bot": None},
    {"seat": 1, "player": None, "bot": "greedy"},
]
R5 = {"id": 5, "code": "R5", "color": "red", "kind": "number", "number": 5}
WILD = {"id": 100, "code": "W", "color": None, "kind": "wild", "number": None}


def test_a_card_is_shown_in_its_colour_or_plainly():
    assert Painter(color=True).card(R5) == "\x1b[1;97;41m R5 \x1b[0m"
    assert Painter(color=True).card(WILD).startswith("\x1b[1;97;40m")
    assert Painter(color=False).card(R5) == "[R5]"


def test_events_read_as_sentences_from_the_players_seat():
    paint = Painter(color=False)
    played = {"type": "card_played", "seat": 1, "round": 1, "data": {"card": WILD, "color": "blue"}}
    assert describe_event(played, SEATS, 0, paint) == "Bot 1 (greedy) played [W], colour blue"
    drawn = {
        "type": "cards_drawn",
        "seat": 0,
        "round": 1,
        "data": {"count": 1, "reason": "draw", "cards": [R5]},
    }
    assert describe_event(drawn, SEATS, 0, paint) == "You drew 1 card: [R5]"
    hidden = {
        "type": "cards_drawn",
        "seat": 1,
        "round": 1,
        "data": {"count": 2, "reason": "draw_two"},
    }
    assert describe_event(hidden, SEATS, 0, paint) == "Bot 1 (greedy) drew 2 cards (Draw Two)"
    caught = {"type": "uno_caught", "seat": 0, "round": 1, "data": {"by": 1}}
    assert describe_event(caught, SEATS, 0, paint) == "Bot 1 (greedy) caught You without UNO!"


def test_a_shuffle_of_hands_and_a_discard_read_as_sentences():
    paint = Painter(color=False)
    shuffled = {
        "type": "hands_shuffled",
        "seat": 1,
        "round": 1,
        "data": {"counts": [3, 2], "hand": [R5, WILD, R5]},
    }
    assert describe_event(shuffled, SEATS, 0, paint) == (
        "Bot 1 (greedy) shuffled every hand and dealt them out (You 3, Bot 1 (greedy) 2);"
        " your new hand: [R5] [W] [R5]"
    )
    watched = {**shuffled, "data": {"counts": [3, 2]}}
    assert describe_event(watched, SEATS, None, paint).endswith("(Ann 3, Bot 1 (greedy) 2)")
    discarded = {"type": "cards_discarded", "seat": 0, "round": 1, "data": {"cards": [R5, R5]}}
    assert describe_event(discarded, SEATS, 0, paint) == "You discarded [R5] [R5]"


def test_moves_are_described_with_the_cards_of_the_hand():
    paint = Painter(color=False)
    assert describe_move({"action": "play", "card": 5}, [R5], SEATS, 0, paint) == "play [R5]"
    wild = describe_move({"action": "play", "card": 100, "color": "green"}, [WILD], SEATS, 0, paint)
    assert wild == "play [W] as green"
    assert describe_move({"action": "draw"}, [], SEATS, 0, paint) == "draw a card"
    catch = describe_move({"action": "catch_uno", "target": 1}, [], SEATS, 0, paint)
    assert catch == "catch Bot 1 (greedy) without UNO"


def test_the_command_line_takes_bots_rules_and_strategies():
    args = parser().parse_args(
        ["play", "--bots", "2", "--rules", "stacking,jump_in", "--strategy", "expert,random"]
    )
    assert args.bots == 2
    assert args.rules == ("stacking", "jump_in")
    assert args.strategy == ("expert", "random")


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--rules", "no_such_rule"],
        ["play", "--bots", "12"],
        ["play", "--strategy", "smart"],
    ],
)
def test_the_command_line_refuses_what_the_server_would(argv, capsys):
    with pytest.raises(SystemExit):
        parser().parse_args(argv)
    assert "error" in capsys.readouterr().err


def test_an_unreachable_server_is_an_api_error_not_a_crash():
    with pytest.raises(ApiError) as caught:
        Api("http://127.0.0.1:9", timeout=2, retries=1, backoff=0.01).get("/games")
    assert caught.value.status == 0


def test_a_dropped_post_is_sent_again_with_the_same_idempotency_key(monkeypatch):
    api = Api("http://127.0.0.1:9", retries=3, backoff=0)
    keys: list[str] = []

    def flaky(method: str, path: str, data: Any, headers: dict[str, str]) -> Any:
        keys.append(headers["Idempotency-Key"])
        if len(keys) < 3:
            raise ApiError(0, "unreachable", "connection reset", {})
        return {"ok": True}

    monkeypatch.setattr(api, "_send", flaky)
    assert api.post("/games", {}) == {"ok": True}
    assert len(keys) == 3
    assert len(set(keys)) == 1


def test_a_refused_move_is_not_sent_again(monkeypatch):
    api = Api("http://127.0.0.1:9", retries=3, backoff=0)
    calls = []

    def refuse(*args: Any) -> Any:
        calls.append(args)
        raise ApiError(422, "illegal_move", "no", {})

    monkeypatch.setattr(api, "_send", refuse)
    with pytest.raises(ApiError):
        api.post("/games/x/moves", {})
    assert len(calls) == 1


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.worker
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_person_plays_a_whole_game_against_bots_in_the_terminal(live_server, celery_processes):
    # A plain WSGI server answers the stream with its opening alone: the client
    # reconnects after each answer, with Last-Event-ID, and plays all the same.
    celery_processes(0.0)
    keyboard = Scripted()
    console = Console(screen=keyboard, paint=Painter(color=False))
    options = Options(server=live_server.url, name="Ann", bots=3, target_score=0)
    started = time.monotonic()
    assert play(Api(live_server.url), options, console) == 0
    game: Any = Game.objects.get()
    assert game.status == "finished"
    assert keyboard.said[-1] == "Game over (finished)."
    assert any(line.endswith("won the game!") for line in keyboard.lines)
    assert any(q.startswith("Your move [1-") for q in keyboard.questions)
    assert any("Bot 1 (greedy) played" in line for line in keyboard.lines)
    replay.verify(game)
    assert time.monotonic() - started < 300  # a bound on a stall, not a speed measure


@pytest.mark.slow
def test_a_person_plays_a_whole_game_by_the_stream_to_its_end(live, bots_in_process):
    keyboard = Scripted()
    console = Console(screen=keyboard, paint=Painter(color=False))
    options = Options(server=live.url, name="Ann", bots=1, target_score=0)
    started = time.monotonic()
    assert play(Api(live.url), options, console) == 0
    game: Any = Game.objects.get()
    assert game.status == "finished"
    assert keyboard.said[-1] == "Game over (finished)."
    assert keyboard.said[-2].startswith("Final scores: You ")
    assert any(line.endswith("won the game!") for line in keyboard.lines)
    assert any(q.startswith("Your move [1-") for q in keyboard.questions)
    assert any("Bot 1 (greedy) played" in line for line in keyboard.lines)
    # Every event of the log shown at most once (cards_drawn lines may repeat: a
    # card drawn twice in one game reads the same, so only the plays are compared).
    played = [line for line in keyboard.said if " played " in line]
    plays = game.events.filter(type="card_played").count()
    assert len(played) == plays
    replay.verify(game)
    assert time.monotonic() - started < 120  # a bound on a stall, not a speed measure


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_person_plays_by_a_server_that_answers_the_stream_with_its_opening_alone(
    live_server, bots_in_process
):
    # Django's own server cannot hold a stream open: the client reconnects after each
    # answer with Last-Event-ID, as after a dropped connection.
    keyboard = Scripted()
    console = Console(screen=keyboard, paint=Painter(color=False))
    options = Options(server=live_server.url, name="Ann", bots=3, target_score=0)
    assert play(Api(live_server.url), options, console) == 0
    game: Any = Game.objects.get()
    assert game.status == "finished"
    assert keyboard.said[-1] == "Game over (finished)."
    played = [line for line in keyboard.said if " played " in line]
    assert len(played) == game.events.filter(type="card_played").count()
    replay.verify(game)


@pytest.mark.slow
def test_a_person_plays_a_partners_game_against_bots_seeing_their_partner_s_hand(
    live, bots_in_process
):
    keyboard = Scripted()
    console = Console(screen=keyboard, paint=Painter(color=False))
    options = Options(server=live.url, name="Ann", target_score=0, partners=True, see_hands=True)
    assert play(Api(live.url), options, console) == 0
    game: Any = Game.objects.get()
    assert (game.mode, game.partners_see_hands, len(game.seating)) == ("partners", True, 4)
    assert game.status == "finished"
    assert any(
        line.startswith("Your partner is Bot 2 (greedy), across the table: ")
        for line in keyboard.said
    )
    replay.verify(game)


@pytest.mark.slow
def test_a_person_plays_the_112_card_deck_against_bots(live, bots_in_process):
    keyboard = Scripted()
    console = Console(screen=keyboard, paint=Painter(color=False))
    options = Options(
        server=live.url,
        name="Ann",
        target_score=0,
        deck="modern_112",
        wild_customizable="swap_hands",
    )
    assert play(Api(live.url), options, console) == 0
    game: Any = Game.objects.get()
    assert (game.deck, game.wild_customizable) == ("modern_112", "swap_hands")
    assert game.status == "finished"
    assert any(
        line.startswith("112 cards: Wild Customizable = swap hands with a seat you name")
        for line in keyboard.said
    )
    replay.verify(game)


def test_the_command_line_takes_the_deck_and_its_options():
    args = parser().parse_args(
        ["play", "--deck", "modern_112", "--wild-customizable", "skip_everyone"]
    )
    assert (args.deck, args.wild_customizable, args.shuffle_hands_last_card) == (
        "modern_112",
        "skip_everyone",
        "redeal",
    )


def test_a_quick_match_as_partners_asks_the_partners_queue_naming_the_friend():
    api = FakeApi({("POST", "/matchmaking"): {"id": "g"}})
    friend = "7d1c3b0e-5c8a-4f57-9f2a-1e2d3c4b5a69"
    options = Options(server="x", quick=True, partners=True, partner=friend, target_score=0)
    find_game(api, options, Console(screen=Scripted(), paint=Painter(color=False)))  # type: ignore[arg-type]
    ((_, _, body),) = api.calls
    assert (body["mode"], body["max_players"], body["partner"]) == ("partners", 4, friend)
    assert "client_seed" in body
