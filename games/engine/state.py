"""Game configuration and the mutable game state, with its JSON snapshot.

The state is a plain mutable object, like a python-chess ``Board``: `rules.apply`
changes it in place and returns events. Piles are lists with their top at the end,
so drawing and discarding are O(1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, Final, Literal, cast

from . import fair
from .cards import DECK_SIZES, DECKS, NO_COLOR, Deck
from .errors import InvalidConfig
from .rng import LEGACY_SEED_BITS, SEED_BITS

PendingType = Literal["challenge", "choose_color", "drawn_card", "stack"]
CLOCKWISE: Final = 1
COUNTERCLOCKWISE: Final = -1
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 10
MAX_TARGET_SCORE: Final = 10_000
SNAPSHOT_VERSION: Final = 1
Mode = Literal["classic", "partners"]
MODES: Final[tuple[Mode, ...]] = ("classic", "partners")
PARTNERS_SEATS: Final = 4
ShuffleHandsLastCard = Literal["redeal", "wins"]
SHUFFLE_HANDS_LAST_CARD: Final[tuple[ShuffleHandsLastCard, ...]] = ("redeal", "wins")
# What the three Wild Customizable cards do, one effect for all three, chosen by the
# host (docs/rules.md, "Wild Customizable").
CustomEffect = Literal["wild", "everyone_draws_one", "swap_hands", "discard_color", "skip_everyone"]
CUSTOM_EFFECTS: Final[tuple[CustomEffect, ...]] = (
    "wild",
    "everyone_draws_one",
    "swap_hands",
    "discard_color",
    "skip_everyone",
)


@dataclass(frozen=True, slots=True)
class Rules:
    """House rules; all off is the official game."""

    stacking: bool = False
    seven_o: bool = False
    jump_in: bool = False
    draw_until_playable: bool = False
    force_play: bool = False

    def to_json(self) -> dict[str, bool]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @staticmethod
    def from_json(obj: object) -> Rules:
        """Strict: a misspelt rule must not be silently ignored."""
        if obj is None:
            return Rules()
        if not isinstance(obj, dict):
            raise InvalidConfig("'rules' must be an object")
        names = {f.name for f in fields(Rules)}
        values: dict[str, bool] = {}
        for key, value in cast(dict[str, object], obj).items():
            if key not in names:
                raise InvalidConfig(f"unknown rule '{key}'")
            if type(value) is not bool:
                raise InvalidConfig(f"rule '{key}' must be true or false")
            values[key] = value
        return Rules(**values)


@dataclass(frozen=True, slots=True)
class GameConfig:
    """A table: how many seats, the target, the house rules, the mode and the deck.

    The mode is `classic`, every seat for itself, or `partners` (docs/rules.md,
    "Partners"): four seats, 0 and 2 against 1 and 3, each team scoring together;
    with `partners_see_hands`, partners see each other's hands. The deck is the
    classic 108 cards or the modern 112 (docs/rules.md, "The 112-card deck"), whose
    Wild Shuffle Hands ends a hand or not by `shuffle_hands_last_card` and whose
    Wild Customizable does `wild_customizable`.
    """

    players: int
    target_score: int = 500
    rules: Rules = Rules()
    mode: Mode = "classic"
    partners_see_hands: bool = False
    deck: Deck = "classic_108"
    shuffle_hands_last_card: ShuffleHandsLastCard = "redeal"
    wild_customizable: CustomEffect = "wild"

    def __post_init__(self) -> None:
        if type(self.players) is not int or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise InvalidConfig(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players")
        if type(self.target_score) is not int or not 0 <= self.target_score <= MAX_TARGET_SCORE:
            raise InvalidConfig(f"target_score must be 0 to {MAX_TARGET_SCORE}")
        if self.mode not in MODES:
            raise InvalidConfig(f"mode must be one of {', '.join(MODES)}")
        if self.mode == "partners" and self.players != PARTNERS_SEATS:
            raise InvalidConfig(f"partners is played by {PARTNERS_SEATS} players, two teams of two")
        if type(self.partners_see_hands) is not bool:
            raise InvalidConfig("partners_see_hands must be true or false")
        if self.partners_see_hands and self.mode != "partners":
            raise InvalidConfig("partners_see_hands needs mode partners")
        if self.deck not in DECKS:
            raise InvalidConfig(f"deck must be one of {', '.join(DECKS)}")
        if self.shuffle_hands_last_card not in SHUFFLE_HANDS_LAST_CARD:
            raise InvalidConfig(
                f"shuffle_hands_last_card must be one of {', '.join(SHUFFLE_HANDS_LAST_CARD)}"
            )
        if self.wild_customizable not in CUSTOM_EFFECTS:
            raise InvalidConfig(f"wild_customizable must be one of {', '.join(CUSTOM_EFFECTS)}")
        if self.deck != "modern_112":
            if self.shuffle_hands_last_card != "redeal":
                raise InvalidConfig("shuffle_hands_last_card needs deck modern_112")
            if self.wild_customizable != "wild":
                raise InvalidConfig("wild_customizable needs deck modern_112")

    @property
    def deck_size(self) -> int:
        return DECK_SIZES[self.deck]

    @property
    def partners(self) -> bool:
        return self.mode == "partners"

    def partner_of(self, seat: int) -> int | None:
        """The seat across the table in partners (0 and 2, 1 and 3); None otherwise."""
        return (seat + 2) % PARTNERS_SEATS if self.partners else None

    def team_of(self, seat: int) -> int | None:
        """Team 0 (seats 0 and 2) or team 1 (seats 1 and 3) in partners; None otherwise."""
        return seat % 2 if self.partners else None


class Pending:
    """A decision the table waits for before play goes on.

    `card` is the drawn card (drawn_card); `amount` the cards a stack or Wild Draw
    Four would make `seat` draw; `accused`/`guilty` the Wild Draw Four under
    challenge, its guilt fixed when it was played, and `previous_color` the colour
    that was current before it (public: what a challenger weighs).
    """

    __slots__ = ("accused", "amount", "card", "guilty", "previous_color", "seat", "type")

    def __init__(
        self,
        type: PendingType,
        seat: int,
        *,
        card: int = -1,
        amount: int = 0,
        accused: int = -1,
        guilty: bool = False,
        previous_color: int = -1,
    ) -> None:
        self.type: PendingType = type
        self.seat = seat
        self.card = card
        self.amount = amount
        self.accused = accused
        self.guilty = guilty
        self.previous_color = previous_color

    def to_json(self) -> list[Any]:
        return [
            self.type,
            self.seat,
            self.card,
            self.amount,
            self.accused,
            self.guilty,
            self.previous_color,
        ]

    @staticmethod
    def from_json(obj: list[Any]) -> Pending:
        kind, seat, card, amount, accused, guilty, previous_color = obj
        return Pending(
            kind,
            seat,
            card=card,
            amount=amount,
            accused=accused,
            guilty=guilty,
            previous_color=previous_color,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pending) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return f"Pending{tuple(self.to_json())!r}"


class GameState:
    """Everything the rules need, and nothing else (seats' owners live elsewhere)."""

    __slots__ = (
        "client_seeds",
        "color",
        "config",
        "current",
        "dealer",
        "direction",
        "discard",
        "draw_pile",
        "hands",
        "pending",
        "round",
        "said_uno",
        "scores",
        "seed",
        "seed_bits",
        "shuffles",
        "timeouts",
        "uno_owed",
        "winner",
    )

    def __init__(
        self,
        config: GameConfig,
        seed: int | str,
        *,
        seed_bits: int = SEED_BITS,
        client_seeds: Sequence[str] = (),
    ) -> None:
        n = config.players
        if isinstance(seed, str):
            problem = fair.deal_problem(seed, client_seeds, n)
            if problem is not None:
                raise InvalidConfig(problem)
        elif client_seeds:
            raise InvalidConfig("client seeds take part only in a deal from a server seed")
        self.config = config
        # A hex server seed (`uno-deal/1`, with `client_seeds`), or the integer seed of
        # a Mersenne Twister deal with round seeds `seed_bits` wide.
        self.seed = seed
        self.seed_bits = seed_bits
        self.client_seeds = tuple(client_seeds)
        self.round = 0
        self.shuffles = 0  # shuffles done this round: the next one's sub-seed index
        self.dealer = 0
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.draw_pile: list[int] = []
        self.discard: list[int] = []
        self.current = 0
        self.direction = CLOCKWISE
        self.color = NO_COLOR
        self.pending: Pending | None = None
        self.uno_owed = -1  # the seat that must say UNO and can be caught, or -1
        self.said_uno = [False] * n
        self.scores = [0] * n
        self.timeouts = [0] * n
        self.winner = -1

    @property
    def players(self) -> int:
        return self.config.players

    @property
    def finished(self) -> bool:
        return self.winner >= 0

    @property
    def top_card(self) -> int:
        return self.discard[-1]

    @property
    def to_act(self) -> int | None:
        """The seat whose turn or decision it is (None once the game is over)."""
        if self.winner >= 0:
            return None
        return self.pending.seat if self.pending is not None else self.current

    def card_total(self) -> int:
        return len(self.draw_pile) + len(self.discard) + sum(len(h) for h in self.hands)

    def copy(self) -> GameState:
        other = GameState.__new__(GameState)
        for name in GameState.__slots__:
            setattr(other, name, getattr(self, name))
        other.hands = [list(hand) for hand in self.hands]
        other.draw_pile = list(self.draw_pile)
        other.discard = list(self.discard)
        other.said_uno = list(self.said_uno)
        other.scores = list(self.scores)
        other.timeouts = list(self.timeouts)
        if self.pending is not None:
            other.pending = Pending.from_json(self.pending.to_json())
        return other

    def to_snapshot(self) -> dict[str, Any]:
        """A compact JSON-able dict; `from_snapshot` is its exact inverse."""
        rules = self.config.rules
        snapshot: dict[str, Any] = {
            "v": SNAPSHOT_VERSION,
            "players": self.config.players,
            "target": self.config.target_score,
            "rules": [f.name for f in fields(rules) if getattr(rules, f.name)],
            "seed": self.seed,
            "round": self.round,
            "shuffles": self.shuffles,
            "dealer": self.dealer,
            "hands": self.hands,
            "draw": self.draw_pile,
            "discard": self.discard,
            "current": self.current,
            "dir": self.direction,
            "color": self.color,
            "pending": self.pending.to_json() if self.pending is not None else None,
            "uno_owed": self.uno_owed,
            "said_uno": [int(x) for x in self.said_uno],
            "scores": self.scores,
            "timeouts": self.timeouts,
            "winner": self.winner,
        }
        # Absent, classic: the snapshots of every game before partners stay as they were.
        if self.config.partners:
            snapshot["mode"] = self.config.mode
            if self.config.partners_see_hands:
                snapshot["partners_see_hands"] = True
        if self.config.deck != "classic_108":
            snapshot["deck"] = self.config.deck
            snapshot["shuffle_hands_last_card"] = self.config.shuffle_hands_last_card
            snapshot["wild_customizable"] = self.config.wild_customizable
        if isinstance(self.seed, str):
            snapshot["deal"] = fair.ALGORITHM
            snapshot["client_seeds"] = list(self.client_seeds)
        # Absent, 63: the snapshots of games dealt before stay exactly as they were.
        elif self.seed_bits != LEGACY_SEED_BITS:
            snapshot["seed_bits"] = self.seed_bits
        return snapshot

    @staticmethod
    def from_snapshot(snap: dict[str, Any]) -> GameState:
        if snap.get("v") != SNAPSHOT_VERSION:
            raise ValueError(f"unsupported snapshot version {snap.get('v')!r}")
        config = GameConfig(
            players=snap["players"],
            target_score=snap["target"],
            rules=Rules(**dict.fromkeys(snap["rules"], True)),
            mode=snap.get("mode", "classic"),
            partners_see_hands=snap.get("partners_see_hands", False),
            deck=snap.get("deck", "classic_108"),
            shuffle_hands_last_card=snap.get("shuffle_hands_last_card", "redeal"),
            wild_customizable=snap.get("wild_customizable", "wild"),
        )
        deal = snap.get("deal")
        if deal is None:
            bits = snap.get("seed_bits", LEGACY_SEED_BITS)
            state = GameState(config, snap["seed"], seed_bits=bits)
        elif deal == fair.ALGORITHM:
            state = GameState(config, snap["seed"], client_seeds=snap["client_seeds"])
        else:
            raise ValueError(f"unknown deal algorithm {deal!r}")
        state.round = snap["round"]
        state.shuffles = snap["shuffles"]
        state.dealer = snap["dealer"]
        state.hands = [list(hand) for hand in snap["hands"]]
        state.draw_pile = list(snap["draw"])
        state.discard = list(snap["discard"])
        state.current = snap["current"]
        state.direction = snap["dir"]
        state.color = snap["color"]
        pending = snap["pending"]
        state.pending = Pending.from_json(pending) if pending is not None else None
        state.uno_owed = snap["uno_owed"]
        state.said_uno = [bool(x) for x in snap["said_uno"]]
        state.scores = list(snap["scores"])
        state.timeouts = list(snap["timeouts"])
        state.winner = snap["winner"]
        if state.round and state.card_total() != config.deck_size:
            raise ValueError(f"snapshot does not hold exactly {config.deck_size} cards")
        return state

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.to_snapshot() == other.to_snapshot()

    # Mutable and compared by value: not hashable (object's type says it always is).
    __hash__ = None  # type: ignore[assignment]
