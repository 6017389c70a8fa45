"""The event vocabulary (games/engine/vocabulary.py) against real games: every type
the engine and the services emit is declared, each declared type is emitted, each
event's data has the keys and values its type declares, and every event as any
reader gets it matches the API's schema of events."""

from __future__ import annotations

import datetime as dt
import functools
import random
import uuid
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import pytest
import time_machine

from games import presenters, services
from games.engine import Event, Move, Rules, render
from games.engine.cards import CARD_COUNT
from games.engine.position import build_state, card_in_hand
from games.engine.state import CUSTOM_EFFECTS, MAX_PLAYERS
from games.engine.vocabulary import EVENT_TYPES, Means, data_keys, keys_of, means
from games.models import Event as StoredEvent
from games.models import Game, GameStatus
from tests.factories import Persona, human_to_act_game, put_state, start_game
from tests.openapi import component_validator, openapi, validator
from tests.random_games import ALL_HOUSE_RULES, play_random_game

# -- checking data against its declaration ----------------------------------------------


def _conforms(hint: Any, value: Any) -> bool:
    meaning = means(hint)
    if meaning is Means.CARD:
        return type(value) is int and 0 <= value < CARD_COUNT
    if meaning is Means.SEAT:
        return type(value) is int and 0 <= value < MAX_PLAYERS
    if meaning in (Means.PLAYER_ID, Means.GAME_ID):
        return isinstance(value, str) and str(uuid.UUID(value)) == value
    if meaning is Means.TIME:
        return isinstance(value, str) and dt.datetime.fromisoformat(value).tzinfo is not None
    origin = get_origin(hint)
    if origin is Annotated:
        return _conforms(get_args(hint)[0], value)
    if origin is Literal:
        return value in get_args(hint)
    if origin is Union or type(hint).__name__ == "UnionType":
        return any(_conforms(option, value) for option in get_args(hint))
    if origin is list:
        return isinstance(value, list) and all(_conforms(get_args(hint)[0], v) for v in value)
    if hint is type(None):
        return value is None
    if isinstance(hint, type) and hasattr(hint, "__required_keys__"):
        return isinstance(value, dict) and not _problems(keys_of(hint), value)
    return type(value) is hint


def _problems(keys: tuple[Any, ...], data: dict[str, Any]) -> list[str]:
    declared = {key.name: key for key in keys}
    problems = [f"missing {name}" for name, key in declared.items() if key.required]
    problems = [p for p in problems if p.removeprefix("missing ") not in data]
    for name, value in data.items():
        if name not in declared:
            problems.append(f"undeclared {name}")
        elif not _conforms(declared[name].type, value):
            problems.append(f"{name}={value!r} is not a {declared[name].type}")
    return problems


def assert_declared(event_type: str, data: dict[str, Any]) -> None:
    assert event_type in EVENT_TYPES, f"{event_type} is not declared"
    assert _problems(data_keys(event_type), data) == [], (event_type, data)


# -- real games ---------------------------------------------------------------------------


@functools.cache
def engine_games() -> tuple[tuple[int, list[Event]], ...]:
    """Seeded games under every house rule, then under none, then with the 112-card
    deck: (players, events)."""
    games = []
    for rules in (ALL_HOUSE_RULES, Rules()):
        for seed in range(100):
            config, _, events = play_random_game(seed, random.Random(seed), rules=rules)
            games.append((config.players, events))
    # The 112-card deck, each Wild Customizable in turn.
    for seed, effect in enumerate(CUSTOM_EFFECTS * 4):
        config, _, events = play_random_game(
            seed, random.Random(seed), players=4, deck="modern_112", wild_customizable=effect
        )
        games.append((config.players, events))
    return tuple(games)


def engine_types() -> set[str]:
    return {event.type for _, events in engine_games() for event in events}


def some_engine_games(every: int) -> list[tuple[int, list[Event]]]:
    """Every `every`-th game, and each game with a type of event the others lack."""
    chosen: list[tuple[int, list[Event]]] = []
    seen: set[str] = set()
    for number, (players, events) in enumerate(engine_games()):
        types = {event.type for event in events}
        if number % every == 0 or not types <= seen:
            chosen.append((players, events))
            seen |= types
    return chosen


def time_out(game: Game) -> None:
    with time_machine.travel(game.turn_deadline + dt.timedelta(milliseconds=1), tick=False):
        assert services.turn_timeout_apply(game_id=game.pk, version=game.version) is not None


def service_games(host: Persona, guest: Persona, outsider: Persona) -> list[Game]:
    """A lobby where a bot is added, the seats are arranged and a player leaves; a
    running game that a player leaves, whose host times out until paused, resumes,
    and which is then abandoned and rematched."""
    lobby = services.game_create(host=host.player).game
    services.game_add_bot(game_id=lobby.pk, player=host.player, strategy="expert")
    services.game_join(game_id=lobby.pk, player=outsider.player)
    services.game_seats_arrange(game_id=lobby.pk, player=host.player, order=[0, 2, 1])
    services.game_leave(game_id=lobby.pk, player=outsider.player)

    game = human_to_act_game(host, guest)
    services.game_leave(game_id=game.pk, player=guest.player)
    for _ in range(100):
        game = Game.objects.get(pk=game.pk)
        if game.paused_until is not None or game.status != GameStatus.PLAYING:
            break
        if services.bot_act(game_id=game.pk, version=game.version) is None:
            time_out(game)
    assert game.paused_until is not None, "the host's seat never went to a bot"
    services.seat_resume(game_id=game.pk, player=host.player)
    services.game_abandon(game_id=game.pk, reason="closed by an operator", by="operator")
    services.game_rematch(game_id=game.pk, player=host.player)
    return [lobby, game, rated_game(host, guest)]


def rated_game(host: Persona, guest: Persona) -> Game:
    """A one-round game of two players, played to its end: it is rated."""
    game = start_game(host, guest, seed=3, target_score=0)
    state = build_state([["R1"], ["B4", "B5"]], top="R5", target_score=0)
    version = put_state(str(game.pk), state).version
    play = Move.from_json({"action": "play", "card": card_in_hand(state, 0, "R1")})
    services.move_apply(game_id=game.pk, player=host.player, version=version, move=play)
    return game


# -- the tests ----------------------------------------------------------------------------


def test_every_event_the_engine_emits_has_the_data_its_type_declares():
    for _, events in engine_games():
        for event in events:
            assert_declared(event.type, dict(event.data))


@pytest.mark.django_db
def test_every_event_the_services_store_has_the_data_its_type_declares(host, guest, outsider):
    games = service_games(host, guest, outsider)
    stored = StoredEvent.objects.filter(game__in=games)
    for event in stored:
        assert_declared(event.type, event.data)
    emitted = engine_types() | {event.type for event in stored}
    assert emitted == set(EVENT_TYPES), "declared but never emitted"


class SchemaCheck:
    """Checks events as the API shows them against the schema of events: each against
    its type's schema, and each new shape of each type also against the union of all,
    which must pick it by its `type` alone."""

    def __init__(self) -> None:
        union = openapi()["components"]["schemas"]["EventOut"]
        mapping = union["discriminator"]["mapping"]
        assert set(mapping) == set(EVENT_TYPES)
        self.by_type = {t: validator({"$ref": ref}) for t, ref in mapping.items()}
        self.union = component_validator("EventOut")
        self.shapes: set[tuple[str, tuple[str, ...]]] = set()

    def __call__(self, shown: dict[str, Any]) -> None:
        errors = list(self.by_type[shown["type"]].iter_errors(shown))
        shape = (shown["type"], tuple(sorted(shown["data"])))
        if shape not in self.shapes:
            self.shapes.add(shape)
            errors += self.union.iter_errors(shown)
        assert [error.message for error in errors] == [], shown


def test_every_event_as_any_reader_gets_it_matches_the_schema_of_events():
    check = SchemaCheck()
    for players, events in some_engine_games(every=10):
        for seq, event in enumerate(events, start=1):
            # Everything, a spectator, the event's seat, and another seat.
            seat = event.seat if event.seat is not None else 0
            readers = [(None, True), (None, False), (seat, False), ((seat + 1) % players, False)]
            for viewer, complete in readers:
                shown = {"seq": seq, "at": "2026-05-14T09:31:07+00:00"}
                check(shown | render(event, viewer, complete=complete))
    assert {shape[0] for shape in check.shapes} == engine_types()


@pytest.mark.django_db
def test_every_stored_event_as_any_reader_gets_it_matches_the_schema_of_events(
    host, guest, outsider
):
    check = SchemaCheck()
    for game in service_games(host, guest, outsider):
        for event in StoredEvent.objects.filter(game=game):
            for viewer in (None, 0, 1):
                check(presenters.event_json(event, viewer))
                check(presenters.event_json(event, viewer, complete=True))
                check(presenters.event_json(event, viewer, complete=True, staff=True))
