"""Factories and personas for the service tests.

A persona is a player with a token and an API client that sends it: `host` creates
games, `guest` joins them, `outsider` sits in none.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import factory
from factory.django import DjangoModelFactory
from rest_framework.response import Response
from rest_framework.test import APIClient

from games import services
from games.engine import GameConfig, GameState, Rules, new_game
from games.models import Game, Seat
from players.models import Player, hash_token

API = "/api/v1"


class PlayerFactory(DjangoModelFactory):  # type: ignore[type-arg]
    class Meta:
        model = Player
        exclude = ("token",)

    name = factory.Sequence(lambda n: f"player{n}")
    token = factory.LazyFunction(lambda: secrets.token_urlsafe(24))
    token_hash = factory.LazyAttribute(lambda o: hash_token(o.token))


class GameFactory(DjangoModelFactory):  # type: ignore[type-arg]
    class Meta:
        model = Game
        skip_postgeneration_save = True

    host = factory.SubFactory(PlayerFactory)
    seed = factory.Sequence(lambda n: 1000 + n)
    rules = factory.LazyFunction(
        lambda: {
            "stacking": False,
            "seven_o": False,
            "jump_in": False,
            "draw_until_playable": False,
            "force_play": False,
        }
    )

    @factory.post_generation
    def host_seat(self, create: bool, extracted: Any, **kwargs: Any) -> None:
        if create:
            Seat.objects.create(game=self, seat=0, player=self.host)


@dataclass
class Persona:
    player: Player
    token: str
    client: APIClient

    def get(self, path: str, **params: Any) -> Response:
        return self.client.get(API + path, params or None)  # type: ignore[no-any-return]

    def post(self, path: str, body: Any = None, **headers: str) -> Response:
        return self.client.post(API + path, body, format="json", headers=headers)  # type: ignore[no-any-return]

    def move(self, game_id: Any, version: int, **move: Any) -> Response:
        return self.post(f"/games/{game_id}/moves", {"version": version, **move})


def make_persona(name: str) -> Persona:
    token = secrets.token_urlsafe(24)
    player = PlayerFactory(name=name, token_hash=hash_token(token))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return Persona(player=player, token=token, client=client)


def assert_error(response: Any, status: int, code: str | None) -> dict[str, Any]:
    """An answer in docs/api.md's error shape, with `status` and (unless None) `code`."""
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = json.loads(response.content)
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "details"}
    assert isinstance(body["error"]["code"], str)
    assert code is None or body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str)
    assert body["error"]["message"]
    assert isinstance(body["error"]["details"], dict)
    return body["error"]  # type: ignore[no-any-return]


def start_four_player_game(
    players: list[Persona], seed: int, rules: dict[str, bool] | None = None
) -> str:
    """`players[0]` creates a one-round 4-player game, the others join, it starts."""
    body: dict[str, Any] = {"max_players": 4, "target_score": 0, "seed": seed}
    if rules is not None:
        body["rules"] = rules
    created = players[0].post("/games", body)
    assert created.status_code == 201, created.json()
    game_id: str = created.json()["id"]
    for persona in players[1:]:
        assert persona.post(f"/games/{game_id}/join").status_code == 200
    started = players[0].post(f"/games/{game_id}/start")
    assert started.status_code == 200, started.json()
    return game_id


# -- tables with bots and timers ---------------------------------------------------


def seed_where(players: int, wanted: Callable[[GameState], bool]) -> int:
    """A game seed whose first round starts the way `wanted` says."""
    for seed in range(1, 10_000):
        state, _ = new_game(GameConfig(players, 0, Rules()), seed)
        if wanted(state):
            return seed
    raise AssertionError("no such seed")


def table(
    host: Persona,
    bots: Sequence[str],
    *,
    seed: int,
    turn_timeout: int | None = None,
    humans: Sequence[Persona] = (),
) -> Game:
    """A started one-round game: `host` at seat 0, then `humans`, then `bots`."""
    game = services.game_create(
        host=host.player,
        max_players=1 + len(humans) + len(bots),
        target_score=0,
        seed=seed,
        turn_timeout=turn_timeout,
    ).game
    for persona in humans:
        services.game_join(game_id=game.pk, player=persona.player)
    for strategy in bots:
        services.game_add_bot(game_id=game.pk, player=host.player, strategy=strategy)
    return services.game_start(game_id=game.pk, player=host.player).game


def human_to_act_game(host: Persona, guest: Persona, *, turn_timeout: int = 30) -> Game:
    """A two-human game where the host is to act, with a turn deadline."""
    seed = seed_where(2, lambda s: s.to_act == 0 and s.pending is None)
    return table(host, [], seed=seed, humans=[guest], turn_timeout=turn_timeout)


def play_out(game: Game, humans: dict[int, Persona], *, max_steps: int = 5000) -> Game:
    """Play `game` to its end: bots through the service a worker calls, the humans at
    `humans` (seat -> persona) through the API, each sending its first play if it has
    one, else its first legal move."""
    for _ in range(max_steps):
        game = Game.objects.get(pk=game.pk)
        if game.status != "playing":
            return game
        if services.bot_act(game_id=game.pk, version=game.version) is not None:
            continue
        state = GameState.from_snapshot(game.state)
        seat = state.to_act
        assert seat is not None
        assert seat in humans, f"seat {seat} is to act but is neither a bot nor given"
        view = humans[seat].get(f"/games/{game.pk}").json()
        moves = [m for m in view["you"]["legal_moves"] if m["action"] not in ("catch_uno",)]
        move = next((m for m in moves if m["action"] == "play"), moves[0])
        if move["action"] in ("challenge", "accept"):
            body = {"version": view["version"], "challenge": move["action"] == "challenge"}
            answer = humans[seat].post(f"/games/{game.pk}/challenge", body)
        else:
            answer = humans[seat].move(game.pk, view["version"], **move)
        assert answer.status_code == 200, answer.json()
    raise AssertionError(f"game {game.pk} did not end in {max_steps} steps")
