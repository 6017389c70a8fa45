"""The invariants of docs/design.md, each attacked through the API and the services.

- 108 cards at all times: hands + draw pile + discard pile.
- Event seqs per game are 1..n without gaps; (game, seq) is unique in the database.
- `version` grows by exactly one per accepted request; a stale version changes nothing.
- The stored state equals the re-run of the engine from the seed and the accepted moves.

(That no player sees another's cards is `test_secrecy.py`'s subject.) Games are
played by a driver that sends legal moves through the API: in turn, and out of turn
too (catching a missed UNO, jumping in), with UNO calls, challenges, accepted Wild
Draw Fours, draws and passes, over several rounds.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import engine
from games.engine import GameConfig, GameState, Move, Rules, parse_move
from games.models import Event, Game, Seat
from tests.factories import Persona, make_persona, seat_table

# Whole games in a few seconds exceed the per-minute rate limit.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rate_limits_off")]

OFFICIAL: dict[str, bool] = {}
HOUSE = {
    "stacking": True,
    "seven_o": True,
    "jump_in": True,
    "draw_until_playable": True,
    "force_play": True,
}
# (players, target score, rules, seed). The seeds are picked for short games that
# still reach what stresses an invariant: a reshuffle of the discards, a second
# round, challenges, caught UNOs, swapped hands (the tests check the first two).
CARD_COUNT_GAMES = [
    pytest.param(4, 0, OFFICIAL, 15, id="official-4p-1-round"),
    pytest.param(3, 100, HOUSE, 46, id="house-3p-to-100"),
]
RERUN_GAMES = [
    pytest.param(3, 100, OFFICIAL, 19, id="official-3p-to-100"),
    pytest.param(4, 0, HOUSE, 46, id="house-4p-1-round"),
]
MAX_STEPS = 3000


# -- a game played through the API -----------------------------------------------------


@dataclass
class Played:
    game_id: str
    players: list[Persona]
    # Every accepted move, in order: (seat, move, the events it appended).
    moves: list[tuple[int, Move, list[dict[str, Any]]]] = field(default_factory=list)


def new_game(
    host: Persona, count: int, target: int, rules: dict[str, bool], seed: int
) -> tuple[str, list[Persona]]:
    """A full waiting table of the host and `count - 1` new players; its id and the
    players by seat."""
    players = [host, *(make_persona(f"Player{i}") for i in range(1, count))]
    game = seat_table(*players, seed=seed, target_score=target, rules=rules)
    return str(game.pk), players


def start(host: Persona, game_id: str) -> None:
    started = host.post(f"/games/{game_id}/start")
    assert started.status_code == 200, started.json()


def choose(state: GameState, rng: random.Random) -> tuple[int, Move]:
    """A legal move: mostly the seat to act (plays first), sometimes someone out of
    turn (catching a missed UNO, jumping in)."""
    actor = state.to_act
    assert actor is not None
    out_of_turn = [
        (seat, move)
        for seat in range(state.players)
        if seat != actor
        for move in engine.legal_moves(state, seat)
    ]
    if out_of_turn and rng.random() < 0.3:
        return rng.choice(out_of_turn)
    moves = engine.legal_moves(state, actor)
    if any(m.action == "challenge" for m in moves) and rng.random() < 0.6:
        return actor, rng.choice([m for m in moves if m.action in ("challenge", "accept")])
    plays = [m for m in moves if m.action == "play"]
    move = rng.choice(plays if plays and rng.random() < 0.9 else moves)
    if move.action == "play" and len(state.hands[actor]) == 2 and rng.random() < 0.5:
        move = Move("play", card=move.card, color=move.color, target=move.target, uno=True)
    return actor, move


def send(persona: Persona, game_id: str, version: int, move: Move) -> Any:
    if move.action in ("challenge", "accept"):
        body = {"version": version, "challenge": move.action == "challenge"}
        return persona.post(f"/games/{game_id}/challenge", body)
    return persona.move(game_id, version, **move.to_json())


def play(
    played: Played,
    rng: random.Random,
    after_each: Callable[[Played], None] = lambda played: None,
) -> Game:
    """Play to the end, calling `after_each` after every accepted move."""
    for _ in range(MAX_STEPS):
        game = Game.objects.get(pk=played.game_id)
        if game.status != "playing":
            return game
        state = GameState.from_snapshot(game.state)
        seat, move = choose(state, rng)
        response = send(played.players[seat], played.game_id, game.version, move)
        assert response.status_code == 200, (seat, move, response.json())
        played.moves.append((seat, move, response.json()["events"]))
        after_each(played)
    raise AssertionError(f"the game did not end in {MAX_STEPS} moves")


def db_fingerprint(game_id: str) -> dict[str, Any]:
    """Everything a request could change about a game."""
    game = Game.objects.get(pk=game_id)
    return {
        "row": {
            f.attname: getattr(game, f.attname)
            for f in Game._meta.concrete_fields
            if f.attname != "updated_at"
        },
        "updated_at": game.updated_at,
        "seats": list(Seat.objects.filter(game=game).values_list("seat", "player_id", "bot")),
        "events": list(
            Event.objects.filter(game=game).values_list("seq", "type", "seat", "data", "round")
        ),
    }


# -- 108 cards ---------------------------------------------------------------------------


def assert_108_distinct_cards(game_id: str) -> None:
    state = Game.objects.get(pk=game_id).state
    cards = [c for hand in state["hands"] for c in hand] + state["draw"] + state["discard"]
    assert len(cards) == 108, f"{len(cards)} cards on the table"
    assert sorted(cards) == list(range(108)), "a card is duplicated or lost"


@pytest.mark.parametrize(("count", "target", "rules", "seed"), CARD_COUNT_GAMES)
def test_the_table_holds_the_108_cards_at_every_step_of_a_game(
    host: Persona, count: int, target: int, rules: dict[str, bool], seed: int
) -> None:
    game_id, players = new_game(host, count, target, rules, seed)
    start(host, game_id)
    assert_108_distinct_cards(game_id)
    shuffles: dict[int, list[int]] = {}  # round -> shuffles seen

    def check(played: Played) -> None:
        assert_108_distinct_cards(played.game_id)
        state = Game.objects.get(pk=played.game_id).state
        shuffles.setdefault(state["round"], []).append(state["shuffles"])

    game = play(Played(game_id, players), random.Random(seed), check)
    assert game.status == "finished"
    assert any(seen[-1] > seen[0] for seen in shuffles.values()), "no reshuffle: pick a seed"
    if target:
        assert len(shuffles) > 1, "the game had a single round: pick another seed"


# -- event seqs ------------------------------------------------------------------------


def test_event_seqs_run_from_1_to_n_without_gaps_through_lobby_play_and_rejections(
    host: Persona, guest: Persona
) -> None:
    game_id, players = new_game(host, 3, 0, HOUSE, 31)
    # Lobby traffic: a leave and a re-join, a rejected join and a rejected start.
    assert players[2].post(f"/games/{game_id}/leave").status_code == 200
    assert players[2].post(f"/games/{game_id}/join").status_code == 200
    assert guest.post(f"/games/{game_id}/join").json()["error"]["code"] == "game_full"
    assert players[1].post(f"/games/{game_id}/start").status_code == 403
    start(host, game_id)
    played = Played(game_id, players)
    rng = random.Random(31)

    def reject_something(played: Played) -> None:
        game = Game.objects.get(pk=played.game_id)
        if game.status == "playing" and rng.random() < 0.2:
            stale = played.players[0].move(game_id, game.version - 1, action="draw")
            assert stale.status_code == 409

    game = play(played, rng, reject_something)

    seqs = list(Event.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    assert game.last_seq == len(seqs)
    # Every move's events carried the next seqs, and the API pages the same log.
    answered = [e["seq"] for _, _, events in played.moves for e in events]
    assert answered == sorted(set(answered))
    assert answered == list(range(answered[0], game.last_seq + 1))
    logged = host.get(f"/games/{game_id}/events", after=0).json()
    assert [e["seq"] for e in logged["events"]] == seqs
    assert logged["last_seq"] == game.last_seq
    some = host.get(f"/games/{game_id}/events", after=10).json()["events"]
    assert [e["seq"] for e in some] == seqs[10:]


def test_the_database_refuses_a_second_event_with_the_same_seq(host: Persona) -> None:
    game_id, _ = new_game(host, 2, 0, OFFICIAL, 41)
    start(host, game_id)
    game = Game.objects.get(pk=game_id)
    existing = Event.objects.get(game=game, seq=game.last_seq)
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.create(
            game=game, seq=existing.seq, type="turn_passed", seat=0, data={}, at=timezone.now()
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.bulk_create(
            [
                Event(game=game, seq=game.last_seq + 1, type="turn_passed", at=timezone.now()),
                Event(game=game, seq=game.last_seq + 1, type="turn_passed", at=timezone.now()),
            ]
        )
    assert Event.objects.filter(game=game).count() == game.last_seq
    # The same seq in another game is fine: seqs are per game.
    other_id, _ = new_game(host, 2, 0, OFFICIAL, 42)
    assert not Event.objects.filter(game_id=other_id, seq=existing.seq).exists()
    Event.objects.create(game_id=other_id, seq=existing.seq, type="turn_passed", at=timezone.now())


# -- version -----------------------------------------------------------------------------


def test_version_grows_by_exactly_one_per_accepted_request(host: Persona) -> None:
    versions: list[int] = []

    def version_of(game_id: str) -> int:
        return Game.objects.get(pk=game_id).version

    created = host.post("/games", {"max_players": 3, "target_score": 0, "seed": 51})
    game_id = created.json()["id"]
    assert created.json()["version"] == version_of(game_id)
    versions.append(version_of(game_id))
    players = [host, make_persona("Second"), make_persona("Third")]
    for persona in players[1:]:
        response = persona.post(f"/games/{game_id}/join")
        assert response.status_code == 200
        assert response.json()["version"] == version_of(game_id) == versions[-1] + 1
        versions.append(version_of(game_id))
    start(host, game_id)
    assert version_of(game_id) == versions[-1] + 1
    versions.append(version_of(game_id))

    def check(played: Played) -> None:
        now = version_of(played.game_id)
        assert now == versions[-1] + 1, f"version went {versions[-1]} -> {now}"
        versions.append(now)

    play(Played(game_id, players), random.Random(51), check)
    assert versions == list(range(versions[0], versions[0] + len(versions)))


@pytest.mark.parametrize("rules", [OFFICIAL, HOUSE], ids=["official", "house"])
def test_a_request_with_a_stale_version_changes_nothing(
    host: Persona, rules: dict[str, bool]
) -> None:
    seed = 71
    game_id, players = new_game(host, 3, 0, rules, seed)
    start(host, game_id)
    rng = random.Random(seed)
    tried = 0

    def try_stale(played: Played) -> None:
        nonlocal tried
        game = Game.objects.get(pk=played.game_id)
        if game.status != "playing" or rng.random() > 0.25:
            return
        seat, move = choose(GameState.from_snapshot(game.state), rng)
        before = db_fingerprint(played.game_id)
        for version in (game.version - 1, game.version + 1, 0):
            response = send(played.players[seat], played.game_id, version, move)
            assert response.status_code == 409, response.json()
            error = response.json()["error"]
            assert error["code"] == "stale_version"
            assert error["details"]["version"] == game.version
        assert db_fingerprint(played.game_id) == before
        tried += 1

    play(Played(game_id, players), rng, try_stale)
    assert tried > 5


def test_a_rejected_move_changes_nothing(host: Persona, outsider: Persona) -> None:
    game_id, players = new_game(host, 3, 0, OFFICIAL, 61)
    start(host, game_id)
    game = Game.objects.get(pk=game_id)
    state = GameState.from_snapshot(game.state)
    actor = state.to_act
    assert actor is not None
    waiting = (actor + 1) % 3
    not_mine = next(c for c in state.hands[waiting])
    before = db_fingerprint(game_id)
    rejected = [
        (players[waiting].move(game_id, game.version, action="draw"), 409, "not_your_turn"),
        (
            players[actor].move(game_id, game.version, action="play", card=not_mine),
            422,
            "illegal_move",
        ),
        (players[actor].move(game_id, game.version, action="pass"), 422, "illegal_move"),
        (players[actor].move(game_id, game.version, action="fly"), 400, "invalid_request"),
        (outsider.move(game_id, game.version, action="draw"), 403, "forbidden"),
        (
            players[actor].post(f"/games/{game_id}/challenge", {"version": game.version}),
            400,
            "invalid_request",
        ),
    ]
    for response, status, code in rejected:
        assert (response.status_code, response.json()["error"]["code"]) == (status, code)
    assert db_fingerprint(game_id) == before


# -- replay ------------------------------------------------------------------------------


def rerun(game: Game, moves: list[tuple[int, Move, list[dict[str, Any]]]]) -> GameState:
    config = GameConfig(
        Seat.objects.filter(game=game).count(), game.target_score, Rules.from_json(game.rules)
    )
    state, _ = engine.new_game(config, game.seed)
    for seat, move, _ in moves:
        engine.apply(state, seat, move)
    return state


def as_stored(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The snapshot as it comes back from a JSON column."""
    result: dict[str, Any] = json.loads(json.dumps(snapshot))
    return result


@pytest.mark.parametrize(("count", "target", "rules", "seed"), RERUN_GAMES)
def test_the_stored_state_equals_the_engine_rerun_from_the_seed_and_the_moves(
    host: Persona, count: int, target: int, rules: dict[str, bool], seed: int
) -> None:
    game_id, players = new_game(host, count, target, rules, seed)
    start(host, game_id)
    game = Game.objects.get(pk=game_id)
    config = GameConfig(count, target, Rules.from_json(game.rules))
    shadow, start_events = engine.new_game(config, game.seed)
    assert game.state == as_stored(shadow.to_snapshot())
    setup = Event.objects.filter(game=game).count() - len(start_events)

    def follow(played: Played) -> None:
        # The shadow engine takes the moves the API accepted, parsed as the API does.
        seat, move, answered = played.moves[-1]
        body = move.to_json()
        events = engine.apply(shadow, seat, parse_move(body))
        stored = Game.objects.get(pk=played.game_id)
        assert stored.state == as_stored(shadow.to_snapshot()), f"after {seat}: {body}"
        # The engine's events, and the services' own that follow the end (the rating).
        assert [(e["type"], e["seat"], e["round"]) for e in answered if not after_end(e)] == [
            (e.type, e.seat, e.round) for e in events
        ]

    played = Played(game_id, players)
    game = play(played, random.Random(seed), follow)
    assert game.state == as_stored(rerun(game, played.moves).to_snapshot())
    assert game.winner == shadow.winner
    # The stored log is the engine's events, in order, after the lobby's.
    replayed = list(start_events)
    again, _ = engine.new_game(config, game.seed)
    for seat, move, _ in played.moves:
        replayed.extend(engine.apply(again, seat, move))
    stored = list(Event.objects.filter(game=game).order_by("seq")[setup:])
    assert [(e.type, e.seat, e.round, e.data) for e in stored if e.type not in AFTER_END] == [
        (e.type, e.seat, e.round, as_stored(e.data)) for e in replayed
    ]


# What the services log once a game is over, beside the engine's events.
AFTER_END = frozenset({"game_rated"})


def after_end(event: dict[str, Any]) -> bool:
    return event["type"] in AFTER_END


def _seating_from_rows(game_id: str) -> list[dict]:
    seats = Seat.objects.filter(game_id=game_id).select_related("player").order_by("seat")
    return [seat.seating_entry() for seat in seats]


def test_the_seating_on_the_game_row_always_matches_the_seat_rows(
    host: Persona, guest: Persona, outsider: Persona
) -> None:
    game_id = host.post("/games", {"max_players": 4}).json()["id"]
    steps = [
        lambda: guest.post(f"/games/{game_id}/join"),
        lambda: outsider.post(f"/games/{game_id}/join"),
        lambda: host.post(f"/games/{game_id}/bots", {"strategy": "greedy"}),
        lambda: guest.post(f"/games/{game_id}/leave"),  # later seats move up
        lambda: host.post(f"/games/{game_id}/start"),
        lambda: outsider.post(f"/games/{game_id}/leave"),  # a bot takes the seat
    ]
    for step in steps:
        assert step().status_code in (200, 201)
        game = Game.objects.get(pk=game_id)
        assert game.seating == _seating_from_rows(game_id)
    assert [entry["bot"] for entry in Game.objects.get(pk=game_id).seating] == [
        None,
        "greedy",
        "greedy",
    ]
