"""A player never receives another player's hand or drawn cards while the game runs.

Four humans play whole one-round games through the API. Before every move each of
them (and a spectator) reads what a client can read: the game view, the events, the
whole log, the replay (refused while the game runs) and the game list; the mover
also gets the move response. Every card id anywhere in those answers is checked
against where the cards really are (`Game.state["hands"]`).

The log is history: an event may show a card that was public or the reader's own
*when the event happened* (a card drawn, played, reshuffled and drawn again by
someone else is not a leak). So a logged event is judged against the hands as they
were when it was appended; everything else against the hands now. The rules allow
two exceptions: once the game is finished everything may be shown, and
`hand_revealed` shows the accused hand to the challenger (and only to them).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from games.models import Game
from tests.factories import Persona, make_persona, start_game

# Five readers poll after every move, hundreds of requests in a few seconds: a lower
# rate limit (THROTTLE_RATE_PLAYER) must not make this file flaky.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rate_limits_off")]

OFFICIAL: dict[str, bool] = {}
HOUSE = {
    "stacking": True,
    "seven_o": True,
    "jump_in": True,
    "draw_until_playable": True,
    "force_play": False,
}
MAX_STEPS = 2000
# Every reader reads the game view and the events new to them at every step, so each
# event is judged by each reader as soon as it is appended; the whole log (after=0)
# and the game list at every FULL_READ_EVERY-th step: reading those from everyone
# after every move would make this file take half a minute more.
FULL_READ_EVERY = 8
# Keys under which the API may put cards (as objects; raw ids are caught too).
CARD_KEYS = ("card", "top_card", "cards", "hand", "hands")

Hands = list[frozenset[int]]


# -- finding cards in any answer -------------------------------------------------------


def _raw_ids(value: Any) -> Iterator[int]:
    """Card ids given as plain ints (a list, a list of lists, a seat-keyed map)."""
    if type(value) is int:
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _raw_ids(item)
    elif isinstance(value, dict) and not ("id" in value and "code" in value):
        for item in value.values():
            yield from _raw_ids(item)


def card_ids(node: Any, path: str = "$") -> dict[int, str]:
    """Every card id in a JSON answer, each with one path where it appears."""
    found: dict[int, str] = {}

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            if "id" in node and "code" in node and type(node["id"]) is int:
                found.setdefault(node["id"], path)
            for key, value in node.items():
                if key in CARD_KEYS:
                    for card in _raw_ids(value):
                        found.setdefault(card, f"{path}.{key}")
                walk(value, f"{path}.{key}")
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, f"{path}[{index}]")

    walk(node, path)
    return found


def test_card_ids_finds_cards_as_objects_and_as_raw_ids() -> None:
    answer = {
        "top_card": {"id": 7, "code": "R7"},
        "events": [{"data": {"cards": [{"id": 1, "code": "R1"}], "hands": {"0": [5, 6]}}}],
        "you": {"legal_moves": [{"action": "play", "card": 9}], "seat": 2},
        "host": {"id": "8d0c", "name": "Ann"},
    }
    assert set(card_ids(answer)) == {1, 5, 6, 7, 9}


# -- the table as it really is -----------------------------------------------------


def true_hands(game_id: str) -> tuple[Game, Hands]:
    game = Game.objects.get(pk=game_id)
    return game, [frozenset(hand) for hand in game.state["hands"]]


def others(hands: Hands, seat: int | None) -> set[int]:
    """The cards `seat` must not see (a spectator, seat None, may see no hand)."""
    return {card for s, hand in enumerate(hands) if s != seat for card in hand}


class Table:
    """The true hands after every accepted request, by the seqs it appended."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.after: dict[int, Hands] = {}  # seq -> hands when it was appended
        self.before: dict[int, Hands] = {}  # seq -> hands before its request
        self.last_seq = 0
        self.revealed = 0
        self.record(true_hands(game_id)[1])

    def record(self, previous: Hands) -> Hands:
        game, hands = true_hands(self.game_id)
        for seq in range(self.last_seq + 1, game.last_seq + 1):
            self.after[seq] = hands
            self.before[seq] = previous
        self.last_seq = game.last_seq
        return hands


def assert_no_leak(answer: Any, forbidden: set[int], who: str, what: str) -> None:
    leaked = {card: path for card, path in card_ids(answer).items() if card in forbidden}
    assert not leaked, f"{who} received cards of another hand in {what}: {leaked}"


def check_events(events: list[dict[str, Any]], seat: int | None, table: Table, who: str) -> None:
    for event in events:
        seq = event["seq"]
        forbidden = others(table.after[seq], seat)
        if event["type"] == "hand_revealed" and seat is not None:
            accused = table.before[seq][event["seat"]]
            if event["data"].get("to") == seat:
                forbidden -= accused  # the challenger sees the accused hand
                shown = set(card_ids(event["data"].get("hand", [])))
                assert shown == set(accused), f"{who}: the revealed hand is not the accused's"
                table.revealed += 1
            else:
                assert "hand" not in event["data"], f"{who} sees a hand revealed to another"
        assert_no_leak(event, forbidden, who, f"event #{seq} {event['type']}")


class Reader:
    """A seated player (seat 0-3) or the spectator (seat None) and what they read."""

    def __init__(self, persona: Persona, seat: int | None) -> None:
        self.persona = persona
        self.seat = seat
        self.who = f"seat {seat}" if seat is not None else "the spectator"
        self.seen = 0  # the last seq read from the log


def check_everything_a_reader_sees(
    readers: list[Reader], game_id: str, table: Table, step: int
) -> dict[int | None, dict[str, Any]]:
    """Every reader reads the game, the log (what is new to them, or all of it) and
    the game list, as often as set above. Returns the game views by seat."""
    game, hands = true_hands(game_id)
    full = step % FULL_READ_EVERY == 0
    views: dict[int | None, dict[str, Any]] = {}
    for reader in readers:
        persona, seat, who = reader.persona, reader.seat, reader.who
        view = persona.get(f"/games/{game_id}")
        assert view.status_code == 200, view.json()
        views[seat] = view.json()
        if game.status != "playing":
            continue  # finished: everything may be shown
        if seat is None:
            assert views[seat]["you"] is None
        else:
            assert views[seat]["you"]["seat"] == seat
            assert {c["id"] for c in views[seat]["you"]["hand"]} == hands[seat]
        assert_no_leak(views[seat], others(hands, seat), who, "GET /games/{id}")
        page = persona.get(f"/games/{game_id}/events", after=0 if full else reader.seen)
        assert page.status_code == 200, page.json()
        events = page.json()["events"]
        if full:
            assert [e["seq"] for e in events] == list(range(1, game.last_seq + 1))
        check_events(events, seat, table, who)
        reader.seen = game.last_seq
        if full:
            lobby = persona.get("/games")
            assert lobby.status_code == 200, lobby.json()
            assert_no_leak(lobby.json(), others(hands, seat), who, "GET /games")
            log = persona.get(f"/games/{game_id}/log")
            assert log.status_code == 200, log.json()
            assert log.json()["complete"] is False
            assert log.json()["seed"] is None  # the seed would deal every hand
            assert log.json()["seeds"] is None
            assert [e["seq"] for e in log.json()["events"]] == list(range(1, game.last_seq + 1))
            check_events(log.json()["events"], seat, table, f"{who} (log)")
            assert_no_leak(log.json()["game"], others(hands, seat), who, "the log's game")
            table_now = persona.get(f"/games/{game_id}/replay", seq=game.last_seq)
            assert table_now.status_code == 403, table_now.json()
    return views


def choose(view: dict[str, Any], rng: random.Random) -> tuple[str, dict[str, Any]]:
    """A move from the caller's own legal moves: plays first; a Wild Draw Four is
    mostly challenged (so hands get revealed); sometimes catch or say UNO."""
    moves = view["you"]["legal_moves"]
    actions = {m["action"] for m in moves}
    if "challenge" in actions:
        return "/challenge", {"challenge": rng.random() < 0.8}
    catches = [m for m in moves if m["action"] == "catch_uno"]
    if catches and rng.random() < 0.5:
        return "/moves", rng.choice(catches)
    plays = [m for m in moves if m["action"] == "play"]
    turn = [m for m in moves if m["action"] not in ("catch_uno", "call_uno")]
    move = dict(rng.choice(plays or turn or moves))
    if move["action"] == "play" and len(view["you"]["hand"]) == 2 and rng.random() < 0.5:
        move["uno"] = True
    return "/moves", move


def move_and_check(
    players: list[Persona],
    game_id: str,
    views: dict[int | None, dict[str, Any]],
    table: Table,
    rng: random.Random,
) -> None:
    """The seat to act makes a move; its answer is checked like everything else."""
    pending = views[None]["pending"]
    seat = pending["seat"] if pending else views[None]["current_seat"]
    endpoint, move = choose(views[seat], rng)
    _, hands_before = true_hands(game_id)
    response = players[seat].post(
        f"/games/{game_id}{endpoint}", {**move, "version": views[seat]["version"]}
    )
    assert response.status_code == 200, (move, response.json())
    hands = table.record(hands_before)
    body = response.json()
    if body["game"]["status"] != "playing":
        return  # the move that ends the game may show every hand
    who = f"seat {seat} (mover)"
    assert_no_leak(body["game"], others(hands, seat), who, "the move response's game")
    check_events(body["events"], seat, table, who)


# Seeds picked for short games that still have what tests secrecy hardest: a Wild
# Draw Four challenged (guilty and not), caught UNOs, penalty draws, a first card
# that is a Wild, swapped hands (house rules).
@pytest.mark.parametrize(
    ("seed", "rules"),
    [(10, OFFICIAL), (25, OFFICIAL), (18, HOUSE)],
    ids=["official-10", "official-25", "house-18"],
)
def test_no_player_ever_receives_another_players_cards_while_the_game_runs(
    host: Persona, guest: Persona, outsider: Persona, seed: int, rules: dict[str, bool]
) -> None:
    players = [host, guest, make_persona("Third"), make_persona("Fourth")]
    game_id = str(start_game(*players, seed=seed, rules=rules).pk)
    readers = [Reader(p, s) for s, p in enumerate(players)] + [Reader(outsider, None)]
    table = Table(game_id)
    rng = random.Random(seed)
    moves = 0
    for step in range(MAX_STEPS):
        views = check_everything_a_reader_sees(readers, game_id, table, step)
        if views[None]["status"] != "playing":
            break
        move_and_check(players, game_id, views, table, rng)
        moves += 1
    else:
        raise AssertionError(f"the game did not end in {MAX_STEPS} steps")
    assert views[None]["status"] == "finished"
    assert moves > 10
    # The exception for hand_revealed was exercised, not just allowed.
    assert table.revealed > 0, "no Wild Draw Four was challenged: pick another seed"


def test_a_player_who_left_a_running_game_sees_no_hand_any_more(
    host: Persona, guest: Persona, outsider: Persona
) -> None:
    players = [host, guest, make_persona("Third"), make_persona("Fourth")]
    game_id = str(start_game(*players, seed=10, rules=OFFICIAL).pk)
    table = Table(game_id)
    readers = [Reader(p, s) for s, p in enumerate(players)] + [Reader(outsider, None)]
    rng = random.Random(10)
    for step in range(6):
        views = check_everything_a_reader_sees(readers, game_id, table, step)
        move_and_check(players, game_id, views, table, rng)
    _, hands_before = true_hands(game_id)
    left = guest.post(f"/games/{game_id}/leave")
    assert left.status_code == 200, left.json()
    table.record(hands_before)
    # The seat (and its hand) now belongs to a bot: the leaver is a spectator.
    leaver = Reader(guest, None)
    leaver.who = "the player who left"
    views = check_everything_a_reader_sees([leaver], game_id, table, step=0)
    assert views[None]["seats"][1]["bot"] is not None
    assert guest.move(game_id, views[None]["version"], action="draw").status_code == 403
