"""Ratings that cannot be farmed, over HTTP against the server command in production
settings (`tests.served`): an account that
beats fresh accounts that only draw and pass, two accounts that keep meeting in the
same quick match, and a weak player who leaves at the start and lets the bot that
takes the seat win for them.

Every game here is played out move by move through the API, one round to a game
(target score 0): the strong side plays its first playable card, the weak side only
draws and passes. Each account connects from a loopback address of its own
(127.0.0.2, 127.0.0.3, ...): accounts on one address do not rate each other at all."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import pytest
import requests
from requests.adapters import HTTPAdapter

from games import replay, services
from games.engine import GameState
from games.models import Game, Result
from tests.served import Served

API = "/api/v1"
MAX_MOVES = 2000
HOARD = 30
_names = itertools.count(1)


class FromAddress(HTTPAdapter):
    """Connections that leave from a given local address."""

    def __init__(self, address: str) -> None:
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, source_address=(self.address, 0), **kwargs)


def session_from(number: int) -> requests.Session:
    """A session whose connections come from 127.0.0.<2 + number>."""
    session = requests.Session()
    session.mount("http://", FromAddress(f"127.0.0.{2 + number % 250}"))
    return session


@dataclass
class Account:
    """A player signed up over HTTP, as any client signs up, from an address of its own."""

    server: Served
    id: str
    name: str
    token: str
    http: requests.Session

    @classmethod
    def sign_up(cls, server: Served, prefix: str) -> Account:
        number = next(_names)
        name = f"{prefix}{number}"
        http = session_from(number)
        answer = http.post(f"{server.url}{API}/players", json={"name": name}, timeout=10)
        assert answer.status_code == 201, answer.text
        body = answer.json()
        return cls(server, body["id"], name, body["token"], http)

    def get(self, path: str, **params: Any) -> Any:
        answer = self.http.get(
            f"{self.server.url}{API}{path}",
            params=params,
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=10,
        )
        assert answer.status_code == 200, answer.text
        return answer.json()

    def post(self, path: str, body: Any = None) -> Any:
        answer = self.http.post(
            f"{self.server.url}{API}{path}",
            json=body if body is not None else {},
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=10,
        )
        assert answer.status_code in (200, 201), answer.text
        return answer.json()

    def rating(self) -> dict[str, Any]:
        return self.get(f"/players/{self.id}")  # type: ignore[no-any-return]

    def on_leaderboard(self) -> bool:
        board = self.get("/leaderboard")
        return any(entry["player"]["id"] == self.id for entry in board["results"])


def strong_move(moves: list[dict[str, Any]], hand: int) -> dict[str, Any]:
    plays = [m for m in moves if m["action"] == "play"]
    return plays[0] if plays else moves[0]


def weak_move(moves: list[dict[str, Any]], hand: int) -> dict[str, Any]:
    """Draw and pass: the move of an account that lets itself be beaten. Past
    `HOARD` cards it lets one go now and then, lest it hold the whole deck and
    nobody could move."""
    plays = [m for m in moves if m["action"] == "play"]
    if hand > HOARD and plays:
        return plays[0]
    for action in ("draw", "pass", "accept"):
        for move in moves:
            if move["action"] == action:
                return move
    return next((m for m in moves if m["action"] != "play"), moves[0])


def play_out(game_id: str, strong: Account, weak: Account) -> dict[str, Any]:
    """Play the running game to its end over HTTP; bots (a seat a player left) move
    through the service a worker calls. Returns the strong account's final view.

    A move's answer is the mover's new view: a player who moves again (a draw, then
    a pass) reads nothing more, and a view is read only when the turn changes hands."""
    players = {strong.id: (strong, strong_move), weak.id: (weak, weak_move)}
    latest = strong.get(f"/games/{game_id}")
    known = {strong.id: latest}
    for _ in range(MAX_MOVES):
        if latest["status"] != "playing":
            return strong.get(f"/games/{game_id}")  # type: ignore[no-any-return]
        bots = any(seat["bot"] is not None for seat in latest["seats"])
        if bots and services.bot_act(game_id=game_id, version=latest["version"]) is not None:
            latest = strong.get(f"/games/{game_id}")
            known = {strong.id: latest}
            continue
        entry = latest["seats"][latest["current_seat"]]
        account, choose = players[entry["player"]["id"]]
        mine = known.get(account.id)
        if mine is None or mine["version"] != latest["version"]:
            mine = account.get(f"/games/{game_id}")
        moves = [m for m in mine["you"]["legal_moves"] if m["action"] != "catch_uno"]
        move = choose(moves, len(mine["you"]["hand"]))
        if move["action"] in ("challenge", "accept"):
            body = {"version": mine["version"], "challenge": move["action"] == "challenge"}
            answer = account.post(f"/games/{game_id}/challenge", body)
        else:
            answer = account.post(f"/games/{game_id}/moves", {"version": mine["version"], **move})
        latest = answer["game"]
        known = {account.id: latest}
    raise AssertionError(f"game {game_id} did not end in {MAX_MOVES} moves")


def hosted_game(strong: Account, weak: Account) -> str:
    """A two-seat rated one-round game the strong account hosts and starts."""
    created = strong.post("/games", {"max_players": 2, "target_score": 0})
    weak.post(f"/games/{created['id']}/join")
    strong.post(f"/games/{created['id']}/start")
    return str(created["id"])


def history_of(account: Account) -> list[dict[str, Any]]:
    return account.get(f"/players/{account.id}/games")["results"]  # type: ignore[no-any-return]


# -- one account beats fresh accounts that only draw and pass ---------------------------


@pytest.mark.slow
def test_an_account_beating_fresh_accounts_that_only_draw_and_pass_stays_off_the_leaderboard(
    served: Served,
):
    farmer = Account.sign_up(served, "Farmer")
    victims = [Account.sign_up(served, "Fresh") for _ in range(2)]
    ordinals = []
    for victim in victims:
        for _ in range(4):
            final = play_out(hosted_game(farmer, victim), farmer, victim)
            assert final["winner"] == final["you"]["seat"]
            ordinals.append(farmer.rating()["rating"]["ordinal"])
    profile = farmer.rating()
    # Eight wins, of which three against each account were rated: the rest repeat.
    assert profile["rating"]["games"] == 6
    assert (profile["opponents"], profile["provisional"], profile["rank"]) == (0, True, None)
    assert not farmer.on_leaderboard()
    reasons = [entry["unrated_reason"] for entry in reversed(history_of(farmer))]
    assert reasons == [None, None, None, "repeat_opponents"] * 2
    # The fourth win against an account moved nothing.
    assert ordinals[2] == ordinals[3]
    assert ordinals[6] == ordinals[7]


@pytest.mark.slow
def test_an_account_beating_five_fresh_accounts_up_to_the_repeat_limit_reaches_no_record(
    served: Served,
):
    """Five fresh accounts that only draw and pass, three rated games each: fifteen
    rated wins against five different people, none of whom had played five rated
    games before, so none counts towards the record."""
    farmer = Account.sign_up(served, "Farmer")
    victims = [Account.sign_up(served, "Fresh") for _ in range(5)]
    for victim in victims:
        for _ in range(3):
            final = play_out(hosted_game(farmer, victim), farmer, victim)
            assert final["winner"] == final["you"]["seat"]
    profile = farmer.rating()
    assert profile["rating"]["games"] == 15
    assert profile["rating"]["ordinal"] > 0  # fifteen wins did move the rating
    assert (profile["opponents"], profile["provisional"], profile["rank"]) == (0, True, None), (
        profile
    )
    assert not farmer.on_leaderboard()
    # The fresh accounts met the farmer once the farmer had five rated games, and
    # still have no record: three games each.
    last = victims[-1].rating()
    assert (last["rating"]["games"], last["opponents"], last["rank"]) == (3, 1, None)


# -- two accounts that keep meeting in the same quick match -----------------------------

UNUSUAL = {
    "max_players": 2,
    "target_score": 0,
    "rules": {"stacking": True, "draw_until_playable": True},
    "bots_after": None,
}


@pytest.mark.slow
def test_two_accounts_meeting_in_the_same_quick_match_stop_gaining_after_three_games(
    served: Served,
):
    first, second = Account.sign_up(served, "Ann"), Account.sign_up(served, "Bob")
    ordinals = []
    for _ in range(4):
        waiting = first.post("/matchmaking", UNUSUAL)
        found = second.post("/matchmaking", UNUSUAL)
        assert found["id"] == waiting["id"]  # they always meet
        assert found["status"] == "playing"
        play_out(found["id"], first, second)
        ordinals.append(first.rating()["rating"]["ordinal"])
    assert first.rating()["rating"]["games"] == 3
    assert ordinals[2] == ordinals[3]
    last = history_of(first)[0]
    assert (last["rated"], last["unrated_reason"], last["rating"]) == (
        False,
        "repeat_opponents",
        None,
    )


# -- a weak player leaves at the start and the bot wins for them ------------------------


def test_a_player_who_leaves_at_the_start_places_last_when_the_bot_in_their_seat_wins(
    served: Served,
):
    strong, weak = Account.sign_up(served, "Strong"), Account.sign_up(served, "Weak")
    game_id = hosted_game(strong, weak)
    weak.post(f"/games/{game_id}/leave")
    # From here the bot in the leaver's seat plays its cards and the other player
    # only draws: the bot wins the game.
    final = play_out(game_id, weak=strong, strong=weak)
    assert final["winner"] == 1
    assert final["seats"][1]["bot"] is not None
    gone = weak.rating()
    assert gone["rating"]["ordinal"] < 0  # below a newcomer's: the game counted as a loss
    assert strong.rating()["rating"]["ordinal"] > gone["rating"]["ordinal"]
    entry = history_of(weak)[0]
    assert (entry["place"], entry["rated"]) == (2, True)
    assert [(p["place"], p["forfeited"]) for p in entry["players"]] == [(1, False), (2, True)]
    # The log still replays exactly: forfeiting changes the rating, not the game.
    replay.verify(Game.objects.get(pk=game_id))
    state = GameState.from_snapshot(Game.objects.get(pk=game_id).state)
    assert state.winner == 1
    assert Result.objects.get(game_id=game_id, seat=1).forfeited
