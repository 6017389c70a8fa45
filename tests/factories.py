"""Factories and personas for the service tests.

A persona is a player with a token and an API client that sends it: `host` creates
games, `guest` joins them, `outsider` sits in none.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import factory
from factory.django import DjangoModelFactory
from rest_framework.response import Response
from rest_framework.test import APIClient

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
