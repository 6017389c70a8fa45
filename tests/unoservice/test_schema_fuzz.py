"""Schemathesis against the served OpenAPI schema: every operation, in process (WSGI).

Runs schemathesis' default checks (no 5xx, documented status codes, content types,
response bodies and headers that conform to the schema, negative data rejected,
schema-valid data accepted, auth not ignored, ...) on every operation of
``/api/v1/schema/``, as a player with a bearer token.

So that the fuzzing gets past 404 and 409 into the services and the engine, most
cases that carry a well-formed game id are aimed at a real game (waiting and started,
with the caller seated and not), `/moves` and `/challenge` often carry the game's
current version or one of the caller's legal moves, and the opponent in the caller's
game plays whenever it is their turn.
"""

from __future__ import annotations

import random
import secrets
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
import schemathesis
from confusable_homoglyphs import confusables
from django.db import connection
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient
from schemathesis import GenerationMode
from schemathesis.core.parameters import ParameterLocation

from games import presenters
from games.engine.cards import FIRST_WILD_DRAW_FOUR
from games.models import Game, GameStatus
from tests.factories import Persona, PlayerFactory, make_persona, seat_table, start_game
from tests.push_service import Receiver
from unoservice import throttling
from unoservice.presence import NOBODY
from unoservice.wsgi import application

SCHEMA_PATH = "/api/v1/schema/"
UNLIMITED = "100000/min"
# The caller's token. Fixed before the tests are collected, because schemathesis
# builds the coverage-phase cases (credentials included) at collection time; each
# test's `world` creates the player that owns it.
TOKEN = secrets.token_urlsafe(24)

# `format: printable` (player names): printable characters (Python's `str.isprintable`)
# with, around them, whitespace that the trimming drops; a name that mixes scripts of
# look-alike letters (refused, as the format's description says) is cut to its first.
_NON_PRINTABLE = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs")
_WHITESPACE = "".join(chr(c) for c in range(0x10000) if chr(c).isspace())
_printable = st.characters(exclude_categories=_NON_PRINTABLE)
_padding = st.text(st.sampled_from(_WHITESPACE), max_size=3)


def _name_of(parts: tuple[str, str, tuple[str, ...] | str, str]) -> str:
    before, first, rest, after = parts
    name = before + first + "".join(rest) + after
    # One character is of one script.
    return before + first + after if confusables.is_dangerous(name.strip()) else name


_printable_text = st.tuples(
    _padding,
    _printable,
    st.one_of(st.just(""), st.tuples(st.text(_printable | st.just(" "), max_size=30), _printable)),
    _padding,
).map(_name_of)
schemathesis.openapi.format("printable", _printable_text)

# The served schema, fetched through the WSGI app at import (pytest-django has set
# Django up by then; serving the schema touches no database). Not
# `schemathesis.pytest.from_fixture`: its lazy loader rewrites `Node._nodeid`, which
# pytest 9.2 no longer has.
schema = schemathesis.openapi.from_wsgi(
    SCHEMA_PATH,
    application,
    config=schemathesis.Config.from_dict(
        {
            "auth": {"openapi": {"bearerAuth": {"bearer": TOKEN}}},
            "checks": {
                # A 422 answers a well-formed request that the game's state or rules
                # refuse (an illegal move, an Idempotency-Key reused with another
                # body): schema-valid data may rightly get one.
                "positive_data_acceptance": {
                    "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "422", "429"]
                }
            },
        }
    ),
)


@dataclass
class World:
    """The caller, the opponent in the caller's started game, and the games."""

    me: Persona
    opponent: Persona
    games: list[str] = field(default_factory=list)
    seated: str = ""  # started, the caller and the opponent at its seats


@pytest.fixture
def world(db: None, monkeypatch: pytest.MonkeyPatch) -> World:
    # Requests reach the WSGI app directly, not through Django's test client, so the
    # end of each would close the database connection (and with it the test's
    # transaction, on PostgreSQL); keep it open, as the test client does.
    monkeypatch.setattr(connection, "close_if_unusable_or_obsolete", lambda: None)
    monkeypatch.setattr(throttling.PlayerRateThrottle, "rate", UNLIMITED, raising=False)
    monkeypatch.setattr(throttling.AnonymousRateThrottle, "rate", UNLIMITED, raising=False)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    me = Persona(PlayerFactory(name="Me", token=TOKEN), TOKEN, client)
    other, third = make_persona("Other"), make_persona("Third")

    games = [
        # Waiting, hosted by the caller, two seats taken: /bots, /start and /leave act
        # as the host.
        seat_table(me, third, max_players=5, target_score=500),
        # Waiting, hosted by someone else: /join has room; /start and /bots are 403.
        seat_table(other, max_players=4, target_score=500),
        # Started, the caller against a human opponent (who plays in `_advance`).
        start_game(me, other, seed=7, target_score=500, rules={"seven_o": True}),
        # Started without the caller: a spectator view; moves are 403.
        start_game(
            other,
            third,
            "greedy",
            seed=8,
            max_players=4,
            target_score=500,
            rules={"stacking": True},
        ),
    ]
    ids = [str(game.pk) for game in games]
    return World(me=me, opponent=other, games=ids, seated=ids[2])


PATH, HEADER, BODY = ParameterLocation.PATH, ParameterLocation.HEADER, ParameterLocation.BODY


def _is_positive(case: schemathesis.Case, location: ParameterLocation) -> bool:
    """Whether `case` means `location` to be valid (a negative part must stay invalid)."""
    component = case.meta.components.get(location) if case.meta is not None else None
    return component is None or component.mode is GenerationMode.POSITIVE


def _legal_moves(game: Game, persona: Persona) -> list[dict[str, Any]]:
    view = presenters.game_view(game, persona.player, presence=NOBODY)
    return list((view["you"] or {}).get("legal_moves") or [])


def _play(world: World, persona: Persona, moves: list[dict[str, Any]], version: int) -> None:
    """`persona` makes one of `moves`, keen on Wild Draw Fours (to be challenged)."""
    plays = [m for m in moves if m["action"] == "play"]
    keen = [m for m in plays if m["card"] >= FIRST_WILD_DRAW_FOUR] or plays or moves
    move = keen[version % len(keen)]
    if move["action"] in ("challenge", "accept"):
        path, move = "/challenge", {"challenge": move["action"] == "challenge"}
    else:
        path = "/moves"
    response = persona.post(f"/games/{world.seated}{path}", {**move, "version": version})
    assert response.status_code == 200, response.content


def _advance(world: World, *, to_challenge: bool) -> None:
    """The opponent plays until it is the caller's turn (or the game is over); with
    `to_challenge`, the caller plays too, for a few turns, until they may challenge."""
    for _ in range(12):
        game = Game.objects.get(pk=world.seated)
        if game.status != GameStatus.PLAYING:
            return
        mine = _legal_moves(game, world.me)
        if not mine:
            theirs = _legal_moves(game, world.opponent)
            if not theirs:
                return
            _play(world, world.opponent, theirs, game.version)
        elif to_challenge and all(m["action"] != "challenge" for m in mine):
            _play(world, world.me, mine, game.version)
        else:
            return


def _aim(case: schemathesis.Case, world: World) -> None:
    """Point a case with a valid game id at a real game (most of the time), and give
    moves the current version or a legal move. Parts generated invalid stay as they
    are; schemathesis re-validates the edited case before sending it."""
    # Deterministic choices, so that a failing case replays the same way.
    rng = random.Random(repr((case.path_parameters, case.query, case.body)))
    query = dict(case.query) if isinstance(case.query, Mapping) else {}
    wait = query.get("wait")
    if type(wait) is int and 0 < wait <= 30:
        # `/events?wait=n` is a long poll, held up to n seconds: no case may sleep.
        case.query = {**query, "wait": 0}
    _aim_at_game(case, world, rng)
    _aim_at_a_push_service(case, rng)
    headers = dict(case.headers) if isinstance(case.headers, Mapping) else {}
    key = headers.get("Idempotency-Key")
    if isinstance(key, str) and rng.random() < 0.8 and _is_positive(case, HEADER):
        # Generated keys repeat a lot ("0", "00", ...), and a key reused on another
        # request is a 422: mostly, tie the key to the request (the same one replays).
        request = repr((case.path_parameters, case.body)).encode()
        suffix = f"-{zlib.crc32(request):08x}"
        case.headers = {**headers, "Idempotency-Key": key[: 255 - len(suffix)] + suffix}


def _aim_at_a_push_service(case: schemathesis.Case, rng: random.Random) -> None:
    """A browser subscription the schema lets through is one no browser could make
    (its key no point of the curve, its endpoint no push service's URL): give it a
    real one, as a browser would. Negative cases keep theirs."""
    body = case.body
    if case.operation.path != "/api/v1/players/me/devices" or case.method != "POST":
        return
    if not isinstance(body, dict) or body.get("kind") != "webpush" or not _is_positive(case, BODY):
        return
    endpoint = f"https://updates.push.services.mozilla.com/wpush/v2/{rng.randrange(10**6)}"
    case.body = {**body, "subscription": Receiver().subscription(endpoint)}


def _aim_at_game(case: schemathesis.Case, world: World, rng: random.Random) -> None:
    path = case.operation.path
    params = case.path_parameters or {}
    if "game_id" not in params or not _is_positive(case, PATH) or rng.random() < 0.2:
        return  # a well-formed id of no game, or a malformed one
    playing = path.endswith(("/moves", "/challenge"))
    game_id = world.seated if playing and rng.random() < 0.8 else rng.choice(world.games)
    case.path_parameters = {**params, "game_id": game_id}
    if not playing or not isinstance(case.body, dict) or not _is_positive(case, BODY):
        return
    if game_id == world.seated:
        _advance(world, to_challenge=path.endswith("/challenge"))
    game = Game.objects.get(pk=game_id)
    if rng.random() < 0.8:
        case.body = {**case.body, "version": game.version}
    moves = _legal_moves(game, world.me) if game_id == world.seated else []
    if path.endswith("/challenge"):
        moves = [m for m in moves if m["action"] in ("challenge", "accept")]
        moves = [{"challenge": m["action"] == "challenge"} for m in moves]
    else:
        moves = [m for m in moves if m["action"] not in ("challenge", "accept")]
    if moves and rng.random() < 0.6:
        case.body = {"version": game.version, **rng.choice(moves)}


@schema.parametrize()
@settings(
    max_examples=30,
    deadline=None,
    # The same cases every run: the `printable` name format is ours, and schemathesis,
    # unable to check it, may offer a name that is in fact printable as "invalid".
    derandomize=True,
    # One world per operation on purpose: its games live on through the examples.
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
    ],
)
def test_every_operation_conforms_to_the_schema(case: schemathesis.Case, world: World) -> None:
    _aim(case, world)
    case.call_and_validate()
