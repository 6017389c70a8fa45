"""`python -m unoclient verify`: check a finished game's deal from its revealed log.

Every step of docs/fairness.md is redone here from the log alone: the commitment
against the revealed server seed, each round's seed from the server seed and every
seat's client seed, every shuffle (the cards are followed from pile to pile through
the log's events), and then every move through the rules engine, to the scores the
log ends with. The deal's algorithm is implemented here on its own, from the
specification, with nothing but `hashlib` and `hmac`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

ALGORITHM = "uno-deal/1"
DECKS = {"classic_108": 108, "modern_112": 112}
WILD_DRAW_FOURS = range(104, 108)  # turned up first, they go back and are shuffled in
HAND = 7


class Failed(Exception):
    """The first step of the check that does not hold: `step` names it."""

    def __init__(self, step: str, why: str) -> None:
        super().__init__(f"{step}: {why}")
        self.step = step
        self.why = why


# -- uno-deal/1, from docs/fairness.md --------------------------------------------------


def seeded(body: dict[str, Any]) -> dict[str, Any]:
    """A request body that seats this player, with a client seed of this machine's
    own: 128 bits from the operating system's CSPRNG."""
    return {**body, "client_seed": secrets.token_hex(16)}


def commitment(server_seed: bytes) -> str:
    return hashlib.sha256(ALGORITHM.encode() + b"\x00" + server_seed).hexdigest()


def round_seed(server_seed: bytes, client_seeds: list[str], round_no: int) -> bytes:
    message = ALGORITHM.encode() + b" round\x00" + struct.pack(">IB", round_no, len(client_seeds))
    for seed in client_seeds:
        encoded = seed.encode("ascii")
        message += struct.pack(">H", len(encoded)) + encoded
    return hmac.new(server_seed, message, hashlib.sha256).digest()


def words(key: bytes, label: str, index: int) -> Iterator[int]:
    prefix = f"{ALGORITHM} {label}".encode() + b"\x00" + struct.pack(">I", index)
    block = 0
    while True:
        data = hmac.new(key, prefix + struct.pack(">I", block), hashlib.sha256).digest()
        yield from struct.unpack(">8I", data)
        block += 1


def below(stream: Iterator[int], bound: int) -> int:
    limit = 2**32 - 2**32 % bound
    for word in stream:
        if word < limit:
            return word % bound
    raise AssertionError("the stream never ends")


def shuffle(cards: list[int], key: bytes, index: int) -> None:
    stream = words(key, "shuffle", index)
    for i in range(len(cards) - 1, 0, -1):
        j = below(stream, i + 1)
        cards[i], cards[j] = cards[j], cards[i]


# -- following the cards -----------------------------------------------------------------


@dataclass
class Round:
    number: int
    key: bytes
    shuffles: int = 0
    draw: list[int] | None = None
    discard: list[int] | None = None

    def shuffled(self, cards: list[int]) -> list[int]:
        shuffle(cards, self.key, self.shuffles)
        self.shuffles += 1
        return cards


def _card(value: Any) -> int:
    return int(value["id"]) if isinstance(value, dict) else int(value)


def follow_the_cards(
    events: list[dict[str, Any]], keys: list[bytes], seats: int, deck: int = 108
) -> int:
    """Check every dealt, turned and drawn card, and every hand a Wild Shuffle Hands
    dealt, against the round's shuffles of a `deck` of 108 or 112 cards; the number of
    shuffles checked."""
    current: Round | None = None
    total = 0
    for event in events:
        kind, data, seq = event["type"], event.get("data") or {}, event["seq"]
        if kind == "game_started":
            dealer = below(words(keys[0], "dealer", 0), seats)
            if data.get("dealer") != dealer:
                raise Failed(
                    "round 1's dealer",
                    f"the seeds pick seat {dealer}, the log says {data.get('dealer')}",
                )
        elif kind == "round_started":
            number = event["round"]
            if not 1 <= number <= len(keys):
                raise Failed(f"round {number}", "no revealed round seed for it")
            total += current.shuffles if current else 0
            current = Round(number, keys[number - 1])
            _check_deal(current, data, seats, seq, deck)
        elif current is None:
            continue
        elif kind == "card_played":
            assert current.discard is not None
            current.discard.append(_card(data["card"]))
        elif kind == "cards_discarded":  # under the Wild Customizable just played
            assert current.discard is not None
            current.discard[-1:-1] = [_card(card) for card in data["cards"]]
        elif kind == "cards_drawn":
            for card in data.get("cards", []):
                _check_draw(current, _card(card), seq)
        elif kind == "hands_shuffled":
            _check_hands_shuffled(current, event, seats, deck)
    return total + (current.shuffles if current else 0)


def _check_hands(step: str, logged: Any, hands: list[list[int]]) -> None:
    """The logged hands by seat (a map from seat, or a list) are `hands`."""
    for seat, hand in enumerate(hands):
        got = [_card(c) for c in logged[str(seat)]] if isinstance(logged, dict) else logged[seat]
        if got != hand:
            raise Failed(step, f"seat {seat} was dealt {got}, the shuffle deals {hand}")


def _check_deal(current: Round, data: dict[str, Any], seats: int, seq: int, size: int) -> None:
    step = f"round {current.number}, the deal (seq {seq})"
    deck = current.shuffled(list(range(size)))
    dealer = int(data["dealer"])
    hands: list[list[int]] = [[] for _ in range(seats)]
    for _ in range(HAND):
        for offset in range(1, seats + 1):
            hands[(dealer + offset) % seats].append(deck.pop())
    _check_hands(step, data["hands"], hands)
    top = deck.pop()
    while top in WILD_DRAW_FOURS:
        deck.append(top)
        current.shuffled(deck)
        top = deck.pop()
    if _card(data["top_card"]) != top:
        raise Failed(step, f"the first card is {_card(data['top_card'])}, the shuffle turns {top}")
    current.draw, current.discard = deck, [top]


def _check_hands_shuffled(current: Round, event: dict[str, Any], seats: int, size: int) -> None:
    """A Wild Shuffle Hands: every card in a hand (neither in the draw pile nor on the
    discards) in the order of their ids, shuffled by the round's next shuffle, dealt
    one at a time from the seat left of its player."""
    assert current.draw is not None
    assert current.discard is not None
    step = f"round {current.number}, shuffle {current.shuffles} (seq {event['seq']})"
    held = sorted(set(range(size)) - set(current.draw) - set(current.discard))
    cards = current.shuffled(held)
    hands: list[list[int]] = [[] for _ in range(seats)]
    for i in range(len(cards)):
        hands[(int(event["seat"]) + 1 + i) % seats].append(cards.pop())
    _check_hands(step, event["data"]["hands"], hands)


def _check_draw(current: Round, card: int, seq: int) -> None:
    assert current.draw is not None
    assert current.discard is not None
    if not current.draw:
        if len(current.discard) <= 1:
            raise Failed(f"seq {seq}", "a card was drawn from two empty piles")
        current.draw = current.shuffled(current.discard[:-1])
        current.discard = current.discard[-1:]
    expected = current.draw.pop()
    if card != expected:
        step = f"round {current.number}, shuffle {current.shuffles - 1} (seq {seq})"
        raise Failed(step, f"card {card} was drawn where the shuffle gives {expected}")


# -- the whole check ----------------------------------------------------------------------


def check(log: dict[str, Any], say: Callable[[str], None] = print) -> None:
    """Redo every step of the game's deal and play; `Failed` names the first that
    does not hold. `say` hears each step that does."""
    deal = log.get("deal") or {}
    if not log.get("complete") or deal.get("server_seed") is None:
        raise Failed("the reveal", "the game is not over: its seeds are still secret")
    algorithm = deal.get("algorithm")
    events = log.get("events") or []
    seats = len(log["game"]["players"])
    published = deal.get("commitment")
    if log.get("deal_commitment") != published:
        raise Failed("the commitment", "the log's two commitments differ")
    if algorithm != ALGORITHM:
        _check_integer_deal(log, algorithm, published, say)
        return
    try:
        server_seed = bytes.fromhex(deal["server_seed"])
    except (TypeError, ValueError):
        raise Failed("the server seed", "it is not hex") from None
    made = commitment(server_seed)
    if made != published:
        raise Failed(
            "the commitment",
            f"SHA-256 of the revealed seed is {made}, the game published {published}",
        )
    say(f"commitment  {published} is SHA-256 of the revealed server seed")
    client_seeds = deal.get("client_seeds") or []
    if len(client_seeds) != seats or not all(isinstance(s, str) for s in client_seeds):
        raise Failed("the client seeds", f"{len(client_seeds)} seeds for {seats} seats")
    say(f"client seeds {json.dumps(client_seeds)}")
    rounds = sum(1 for e in events if e["type"] == "round_started")
    revealed = deal.get("round_seeds") or []
    keys = []
    for number in range(1, rounds + 1):
        key = round_seed(server_seed, client_seeds, number)
        if number > len(revealed) or revealed[number - 1] != key.hex():
            raise Failed(
                f"round {number}'s seed",
                f"the seeds make {key.hex()}, the log reveals "
                f"{revealed[number - 1] if number <= len(revealed) else 'none'}",
            )
        keys.append(key)
    say(f"round seeds {rounds} recomputed from the server seed and every client seed")
    deck = DECKS.get(log["game"].get("deck", "classic_108"))
    if deck is None:
        raise Failed("the deck", f"{log['game'].get('deck')!r} is not one this checker knows")
    shuffles = follow_the_cards(events, keys, seats, deck)
    say(f"shuffles    {shuffles}: every card dealt, turned and drawn is where they put it")
    _replay(log, server_seed.hex(), client_seeds, say)


def _check_integer_deal(
    log: dict[str, Any], algorithm: Any, published: Any, say: Callable[[str], None]
) -> None:
    """A game dealt by the Mersenne Twister from an integer: the commitment, and the
    rules engine redoes its shuffles."""
    if algorithm not in ("mt19937/53", "mt19937/63"):
        raise Failed("the algorithm", f"{algorithm!r} is not one this checker knows")
    seed = log["deal"]["server_seed"]
    made = hashlib.sha256(f"{algorithm}\x00{seed}".encode()).hexdigest()
    if made != published:
        raise Failed("the commitment", f"SHA-256 of the revealed seed is {made}, not {published}")
    say(f"commitment  {published} is SHA-256 of the revealed seed ({algorithm})")
    _replay(log, int(seed), [], say, bits=int(algorithm.rsplit("/", 1)[1]))


def _replay(
    log: dict[str, Any],
    seed: int | str,
    client_seeds: list[str],
    say: Callable[[str], None],
    *,
    bits: int = 53,
) -> None:
    """Every move through the rules engine, from the seeds, to the logged scores."""
    from games.engine import EngineError, GameConfig, Rules
    from games.engine.events import stored_data
    from games.engine.replay import LoggedEvent, ReplayMismatch, replay

    game = log["game"]
    config = GameConfig(
        len(game["players"]),
        game["target_score"],
        Rules.from_json(game["rules"]),
        mode=game.get("mode", "classic"),  # whether partners see hands changes no event
        deck=game.get("deck", "classic_108"),
        shuffle_hands_last_card=game.get("shuffle_hands_last_card") or "redeal",
        wild_customizable=game.get("wild_customizable") or "wild",
    )
    logged = [
        LoggedEvent(e["seq"], e["type"], e["seat"], e["round"], stored_data(e["data"]))
        for e in log["events"]
    ]
    try:
        state = replay(config, seed, logged, seed_bits=bits, client_seeds=client_seeds)
    except ReplayMismatch as error:
        raise Failed(f"the move at seq {error.seq}", error.reason) from None
    except (EngineError, ValueError, KeyError, TypeError) as error:
        raise Failed("the moves", f"the rules cannot replay the log: {error}") from None
    ended = next((e for e in reversed(log["events"]) if e["type"] == "game_ended"), None)
    if state is None or ended is None:
        raise Failed("the end", "the log has no end of the game")
    if state.scores != ended["data"]["scores"]:
        raise Failed(
            "the scores", f"the rules give {state.scores}, the log {ended['data']['scores']}"
        )
    made = len(log["events"])
    say(f"moves       all {made} events made again, to the final scores {state.scores}")


def load(*, path: str | None, game_id: str | None, server: str, code: str | None) -> dict[str, Any]:
    """The log: from a saved file (the answer of `GET /games/{id}/log`), or from the
    server as the player saved for it (one is signed up when there is none)."""
    if path is not None:
        with open(path, encoding="utf-8") as saved:
            loaded: dict[str, Any] = json.load(saved)
        return loaded
    from urllib.parse import quote

    from unoclient.api import Api
    from unoclient.identity import config_dir, login_name, sign_in

    api = Api(server)
    sign_in(api, name=login_name(), directory=config_dir())
    query = f"?code={quote(code)}" if code else ""
    fetched: dict[str, Any] = api.get(f"/games/{quote(str(game_id))}/log{query}")
    return fetched
