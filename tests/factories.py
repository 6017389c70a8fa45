"""Factories, personas and game builders for the service tests: the one home of test
data.

A persona is a player with a token and an API client that sends it: `host` creates
games, `guest` joins them, `outsider` sits in none, `staff` is an operator's (the
fixtures are in tests/conftest.py).

Games come three ways, from the most to the least real:

- `start_game`: made, seated and started through the services, as the API would;
  `seat_table` stops before the start. Seats are given in order: a persona takes
  the next seat, a strategy name ("random", "greedy", "expert") seats a bot.
- `put_state` then sets a started game's table to a position built with
  `games.engine.position.build_state`, when a test needs a particular hand.
- `stamp_game`: a row written directly, in any status, with its seats but without
  the events the services would have logged; for lists, filters and refusals that
  only read the row.
"""

from __future__ import annotations

import itertools
import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import factory
from factory.django import DjangoModelFactory
from rest_framework.response import Response
from rest_framework.test import APIClient

from games import services
from games.engine import GameConfig, GameState, Move, Rules, new_game
from games.engine.position import build_state, card_in_hand
from games.models import Game, Seat, seating_entry
from players.models import Device, DeviceKind, Player, PlayerSession, hash_token

API = "/api/v1"


class PlayerFactory(DjangoModelFactory):  # type: ignore[type-arg]
    """A player signed in on one device with `token` (`Player.session`)."""

    class Meta:
        model = Player

    name = factory.Sequence(lambda n: f"player{n}")
    token = factory.LazyFunction(lambda: secrets.token_urlsafe(24))

    @classmethod
    def _create(cls, model_class: type[Player], *args: Any, token: str, **kwargs: Any) -> Player:
        player = super()._create(model_class, *args, **kwargs)
        player.session = PlayerSession.objects.create(player=player, token_hash=hash_token(token))
        return player


class DeviceFactory(DjangoModelFactory):  # type: ignore[type-arg]
    """An app's FCM token (a browser's subscription needs real keys: see
    tests/push_service.py, `PushService.subscription`)."""

    class Meta:
        model = Device

    player = factory.SubFactory(PlayerFactory)
    kind = DeviceKind.FCM
    address = factory.Sequence(lambda n: f"fcm-token-{n}:APA91b{secrets.token_urlsafe(16)}")


class GameFactory(DjangoModelFactory):  # type: ignore[type-arg]
    """A game row; `seats=[player or strategy, ...]` says who sits where (the host
    alone by default), kept in step in `Game.seating` as the services keep it."""

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
    def seats(self, create: bool, extracted: Sequence[Player | str] | None, **kwargs: Any) -> None:
        if not create:
            return
        holders = [self.host] if extracted is None else list(extracted)
        for number, holder in enumerate(holders):
            player, bot = (None, holder) if isinstance(holder, str) else (holder, None)
            Seat.objects.create(game=self, seat=number, player=player, bot=bot)
        self.seating = [
            seating_entry(None, h) if isinstance(h, str) else seating_entry(h, None)
            for h in holders
        ]
        self.save(update_fields=["seating"])


@dataclass
class Persona:
    player: Player
    token: str
    client: APIClient

    def get(self, path: str, **params: Any) -> Response:
        return self.client.get(API + path, params or None)  # type: ignore[no-any-return]

    def post(self, path: str, body: Any = None, **headers: str) -> Response:
        return self.client.post(API + path, body, format="json", headers=headers)  # type: ignore[no-any-return]

    def patch(self, path: str, body: Any = None) -> Response:
        return self.client.patch(API + path, body, format="json")  # type: ignore[no-any-return]

    def put(self, path: str, body: Any = None) -> Response:
        return self.client.put(API + path, body, format="json")  # type: ignore[no-any-return]

    def delete(self, path: str) -> Response:
        return self.client.delete(API + path)  # type: ignore[no-any-return]

    def move(self, game_id: Any, version: int, /, **move: Any) -> Response:
        """A move at `version`; `move` may be one of `legal_moves` (which names the
        version it was listed at: `version` is sent instead)."""
        return self.post(f"/games/{game_id}/moves", {**move, "version": version})


_personas = itertools.count()


def make_persona(name: str) -> Persona:
    """A player with a client of their own, whose requests come from an address of
    their own (198.18.0.0/15, kept for tests): people on one network do not rate each
    other, and personas are different people."""
    token = secrets.token_urlsafe(24)
    player = PlayerFactory(name=name, token=token)
    n = next(_personas) % 65000
    client = APIClient(REMOTE_ADDR=f"198.18.{n // 250}.{n % 250 + 1}")
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


# -- games -------------------------------------------------------------------------


def stamp_game(
    *,
    host: Player | None = None,
    seats: Sequence[Player | str] | None = None,
    status: str = "waiting",
    state: GameState | None = None,
    **fields: Any,
) -> Game:
    """A game row written directly, without the services and so without events:
    `host` (a new player by default), `seats` in order (players or bot strategies;
    the host alone by default), `status`, and `state` stored as its snapshot (none
    by default, even for a game said to be playing). `fields` sets any other column."""
    if host is not None:
        fields["host"] = host
    if state is not None:
        fields["state"] = state.to_snapshot()
    return GameFactory(status=status, seats=seats, **fields)  # type: ignore[no-any-return]


def seat_table(
    host: Persona,
    *others: Persona | str,
    seed: int | None = None,
    max_players: int | None = None,
    target_score: int = 0,
    turn_timeout: int | None = None,
    rules: dict[str, bool] | None = None,
    visibility: str = "public",
    rated: bool = True,
) -> Game:
    """A waiting game made through the services: `host` at seat 0, then `others` in
    order, each persona joining and each strategy name a bot the host adds. One
    round (`target_score` 0) and no seat to spare (at least two) unless told. A
    `private` game's personas join as holders of its code."""
    outcome = services.game_create(
        host=host.player,
        max_players=max(2, 1 + len(others)) if max_players is None else max_players,
        target_score=target_score,
        turn_timeout=turn_timeout,
        rules=rules,
        seed=seed,
        visibility=visibility,
        rated=rated,
    )
    for other in others:
        if isinstance(other, str):
            outcome = services.game_add_bot(
                game_id=outcome.game.pk, player=host.player, strategy=other
            )
        else:
            outcome = services.game_join(game_id=outcome.game.pk, player=other.player, invited=True)
    return outcome.game


def start_game(host: Persona, *others: Persona | str, seed: int, **options: Any) -> Game:
    """`seat_table(host, *others, seed=seed, **options)`, then started by the host:
    round 1 dealt from `seed`. The game as the start left it (state, version, timers
    armed)."""
    game = seat_table(host, *others, seed=seed, **options)
    return services.game_start(game_id=game.pk, player=host.player).game


def put_state(game: Game | Any, state: GameState) -> Game:
    """Set the table of `game` (or the game with that id) to `state`, as if play had
    led there; the version stays, as clients and tasks hold it. The game, read again."""
    game_id = game.pk if isinstance(game, Game) else game
    Game.objects.filter(pk=game_id).update(state=state.to_snapshot())
    return Game.objects.get(pk=game_id)


def reload(game: Game | Any) -> Game:
    """`game` (or the game with that id) as stored now."""
    return Game.objects.get(pk=game.pk if isinstance(game, Game) else game)


class Footprint(NamedTuple):
    version: int
    last_seq: int
    status: str
    host_id: Any
    state: Any
    turn_deadline: Any
    seats: tuple[tuple[Any, str | None], ...]


def footprint(game_id: Any) -> Footprint:
    """What a rejected (or replayed) request must leave alone: the version, the last
    seq, the status, the host, the table, the turn deadline and who holds each seat."""
    game = Game.objects.get(pk=game_id)
    seats = Seat.objects.filter(game=game).order_by("seat").values_list("player", "bot")
    return Footprint(
        game.version,
        game.last_seq,
        game.status,
        game.host_id,
        game.state,
        game.turn_deadline,
        tuple(seats),
    )


# -- tables with bots and timers ---------------------------------------------------


def seed_where(players: int, wanted: Callable[[GameState], bool]) -> int:
    """A game seed whose first round starts the way `wanted` says."""
    for seed in range(1, 10_000):
        state, _ = new_game(GameConfig(players, 0, Rules()), seed)
        if wanted(state):
            return seed
    raise AssertionError("no such seed")


def human_to_act_game(host: Persona, guest: Persona, *, turn_timeout: int = 30) -> Game:
    """A two-human game where the host is to act, with a turn deadline."""
    seed = seed_where(2, lambda s: s.to_act == 0 and s.pending is None)
    return start_game(host, guest, seed=seed, turn_timeout=turn_timeout)


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


def finish_game(game: Game, winner: int, by: Persona, scores: Sequence[int] = ()) -> Game:
    """End the running `game` in one move of `by`, at seat `winner`, who goes out with
    their last card; the others hold two cards, worth 9 points (13 from the fifth
    seat on). With `scores`, the seats had those scores before, and the game
    is played to 50 points, which the winner's round takes them past; otherwise it is
    a one-round game, whose losers all end on 0 points."""
    seats = len(game.seating)
    losers = iter([["B4", "B5"], ["G4", "G5"], ["Y4", "Y5"], ["B6", "B7"], ["G6", "G7"]])
    table = [["R1"] if seat == winner else next(losers) for seat in range(seats)]
    target = 50 if scores else 0
    state = build_state(table, top="R5", current=winner, target_score=target, scores=scores or None)
    version = put_state(game, state).version
    play = Move.from_json({"action": "play", "card": card_in_hand(state, winner, "R1")})
    services.move_apply(game_id=game.pk, player=by.player, version=version, move=play)
    return reload(game)


# -- table talk --------------------------------------------------------------------


class TableMessageFactory(DjangoModelFactory):  # type: ignore[type-arg]
    """A message said at `game`'s table, written directly (no limit, no mask, not
    announced): by `sender` at `seat` (None: a spectator), `text` as readers see it."""

    class Meta:
        model = "games.TableMessage"

    game = factory.SubFactory(GameFactory)
    sender = factory.SubFactory(PlayerFactory)
    seat = 0
    kind = "phrase"
    code = "hello"
    text = "Hello!"


# -- friends and blocks --------------------------------------------------------------


class FriendRequestFactory(DjangoModelFactory):  # type: ignore[type-arg]
    """`sender` asked `receiver` to be friends (not answered yet)."""

    class Meta:
        model = "players.FriendRequest"

    sender = factory.SubFactory(PlayerFactory)
    receiver = factory.SubFactory(PlayerFactory)


class BlockFactory(DjangoModelFactory):  # type: ignore[type-arg]
    """`blocker` blocks `blocked` (written directly: nothing else ends)."""

    class Meta:
        model = "players.Block"

    blocker = factory.SubFactory(PlayerFactory)
    blocked = factory.SubFactory(PlayerFactory)


class TalkMuteFactory(DjangoModelFactory):  # type: ignore[type-arg]
    """`player` mutes `muted`'s table talk."""

    class Meta:
        model = "players.TalkMute"

    player = factory.SubFactory(PlayerFactory)
    muted = factory.SubFactory(PlayerFactory)


def make_friends(a: Player | Persona, b: Player | Persona) -> None:
    """`a` and `b` are friends: both rows, written directly."""
    from players.social.models import Friendship

    one = a.player if isinstance(a, Persona) else a
    other = b.player if isinstance(b, Persona) else b
    Friendship.objects.bulk_create(
        [Friendship(player=one, friend=other), Friendship(player=other, friend=one)]
    )
