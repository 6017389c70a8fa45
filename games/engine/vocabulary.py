"""Every type of event a game's log holds, declared once.

For each type: the shape of its `data` as stored (a TypedDict: cards as ids, every
hand in full), what its `seat` is, which keys of `data` are secret while the game
runs and who may read them, and whether it only changes who sits at the table. The
redaction and rendering of events (`events`), the replay's skipping of seat events
(`replay`), the services' events and the API's schema of event data are all derived
from here, so a new type or key is declared in this file and nowhere else.
"""

# No `from __future__ import annotations` here: on Python 3.11 a TypedDict sees
# `NotRequired` only in evaluated annotations, and `data_keys` reads them at runtime.

from dataclasses import dataclass
from enum import Enum
from typing import (
    Annotated,
    Any,
    Final,
    Literal,
    NotRequired,
    TypedDict,
    TypeGuard,
    get_args,
    get_origin,
    get_type_hints,
)

from .cards import ColorName

EventType = Literal[
    # Who sits at the table (the services).
    "player_joined",
    "player_left",
    "bot_added",
    "seats_arranged",
    "seat_taken_by_bot",
    "seat_resumed",
    # The table (the engine).
    "game_started",
    "round_started",
    "card_played",
    "cards_drawn",
    "turn_passed",
    "uno_called",
    "player_skipped",
    "direction_changed",
    "color_chosen",
    "uno_caught",
    "challenged",
    "hand_revealed",
    "hands_swapped",
    "hands_shuffled",
    "cards_discarded",
    "turn_timed_out",
    "round_ended",
    "game_ended",
    # Pauses and ends without a winner (the services).
    "game_paused",
    "game_resumed",
    "game_abandoned",
    # After the end (the services).
    "game_rated",
    "rematch_offered",
]
EVENT_TYPES: Final[tuple[EventType, ...]] = get_args(EventType)


# -- what plain values stand for ---------------------------------------------------------


class Means(Enum):
    """What an int or a str in `data` stands for, where its type alone does not say."""

    CARD = "card"  # a card id 0-111 (`cards.CARDS`); clients get the card object
    SEAT = "seat"  # a seat number, 0 to players - 1
    PLAYER_ID = "player_id"  # a player's UUID
    GAME_ID = "game_id"  # a game's UUID
    TIME = "time"  # an ISO-8601 timestamp with a UTC offset
    BOT = "bot"  # the name of a bot strategy


@dataclass(frozen=True, slots=True)
class Doc:
    """What a key of `data` tells, for the API's reference."""

    text: str


CardId = Annotated[int, Means.CARD]
Seat = Annotated[int, Means.SEAT]
Direction = Literal["clockwise", "counterclockwise"]
DrawReason = Literal[
    "draw",
    "draw_two",
    "wild_draw_four",
    "stack",
    "challenge",
    "uno_penalty",
    "first_card",
    "wild_customizable",
]


class PlayerRef(TypedDict):
    """A player: their id and name."""

    id: Annotated[str, Means.PLAYER_ID, Doc("the player's id")]
    name: Annotated[str, Doc("the player's name")]


# -- the shape of `data`, one TypedDict per type -----------------------------------------


class PlayerJoinedData(TypedDict):
    """A player took the next free seat (the host takes seat 0 when creating the game)."""

    player: Annotated[PlayerRef, Doc("who joined")]


class PlayerLeftData(TypedDict):
    """A player left the game: before the start their seat is freed and the seats after
    it move up; once it runs, a bot keeps the seat (`seat_taken_by_bot` follows, unless
    a bot already held it after the player's timeouts)."""

    player: Annotated[PlayerRef, Doc("who left")]


class BotAddedData(TypedDict):
    """The host seated a bot before the start."""

    strategy: Annotated[str, Means.BOT, Doc("the bot's strategy")]


class SeatsArrangedData(TypedDict):
    """The host arranged the seats before the start: in partners, who plays with whom
    (seats 0 and 2 against 1 and 3)."""

    order: Annotated[list[Seat], Doc("for each seat from 0 up, the seat whose holder moved there")]


class SeatTakenByBotData(TypedDict):
    """A bot took over a running game's seat: its player left, or timed out three times
    in a row (they may take it back with a resume)."""

    strategy: Annotated[str, Means.BOT, Doc("the bot's strategy (always greedy)")]


class SeatResumedData(TypedDict):
    """A player whose seat a bot took over after their timeouts took it back; their run
    of timeouts starts again from zero."""

    player: Annotated[PlayerRef, Doc("who took their seat back")]


class GameStartedData(TypedDict):
    """The host started the game; round 1 is dealt next."""

    dealer: Annotated[Seat, Doc("the dealer of round 1")]


class RoundStartedData(TypedDict):
    """A round was dealt: the table as it stands once the first card turned up has
    acted (the events after it say what it did)."""

    dealer: Annotated[Seat, Doc("the round's dealer")]
    top_card: Annotated[CardId, Doc("the first card of the discard pile")]
    current_color: Annotated[
        ColorName | None, Doc("the colour to match; null while a first Wild waits for one")
    ]
    direction: Annotated[Direction, Doc("the direction of play")]
    current_seat: Annotated[Seat, Doc("whose turn it is")]
    hands: Annotated[list[list[CardId]], Doc("every seat's hand as dealt, by seat")]


class CardPlayedData(TypedDict):
    """A card went onto the discard pile: a play in turn, a jump-in, a stack."""

    card: Annotated[CardId, Doc("the card played")]
    color: Annotated[ColorName, Doc("the colour now current (a wild's is the one named)")]
    target: NotRequired[
        Annotated[
            Seat,
            Doc("the seat a seven_o 7, or a Wild Customizable that swaps hands, swaps with"),
        ]
    ]
    uno: NotRequired[Annotated[Literal[True], Doc("present when UNO was said with the play")]]


class CardsDrawnData(TypedDict):
    """A seat drew cards, by choice or as a penalty. Fewer than asked when both piles
    ran out."""

    count: Annotated[int, Doc("how many cards were drawn")]
    reason: Annotated[
        DrawReason,
        Doc(
            "why: draw (by choice), draw_two, wild_draw_four, stack (a stacked sum),"
            " challenge (a challenge lost), uno_penalty (caught without UNO),"
            " first_card (a Draw Two turned up first) or wild_customizable (a Wild"
            " Customizable that makes everyone else draw one)"
        ),
    ]
    cards: Annotated[list[CardId], Doc("the cards drawn")]


class TurnPassedData(TypedDict):
    """A seat ended its turn without playing: it kept a card it drew, or had nothing to
    draw."""


class UnoCalledData(TypedDict):
    """A seat said UNO: with its second-to-last card, or afterwards before anyone
    caught it."""


class PlayerSkippedData(TypedDict):
    """A seat lost its turn (a Skip, a Draw Two, a penalty, a reverse between two)."""


class DirectionChangedData(TypedDict):
    """A Reverse turned the direction of play."""

    direction: Annotated[Direction, Doc("the direction of play now")]


class ColorChosenData(TypedDict):
    """A seat named the colour of a Wild that turned up as the round's first card."""

    color: Annotated[ColorName, Doc("the colour named")]


class UnoCaughtData(TypedDict):
    """A seat holding one card without having said UNO was caught; it draws two
    (`cards_drawn` follows)."""

    by: Annotated[Seat, Doc("the seat that caught it")]


class ChallengedData(TypedDict):
    """The seat a Wild Draw Four was played on challenged it."""

    by: Annotated[Seat, Doc("the challenger")]
    guilty: Annotated[
        bool, Doc("whether the Wild Draw Four was played while holding the colour to match")
    ]


class HandRevealedData(TypedDict):
    """The challenged seat showed its hand to the challenger."""

    to: Annotated[Seat, Doc("the challenger, who sees the hand")]
    hand: Annotated[list[CardId], Doc("the challenged seat's hand")]


# `with` is a keyword, so this one is declared the functional way.
HandsSwappedData = TypedDict(
    "HandsSwappedData",
    {
        "with": NotRequired[Annotated[Seat, Doc("the seat a 7 swapped hands with")]],
        "rotation": NotRequired[Annotated[Direction, Doc("how every hand moved on, after a 0")]],
    },
)
HandsSwappedData.__doc__ = """Hands changed seats: a seven_o 7 or a Wild Customizable that
swaps hands swapped two hands (`with`), or a seven_o 0 passed every hand on in the
direction of play (`rotation`)."""


class HandsShuffledData(TypedDict):
    """A Wild Shuffle Hands gathered every hand, shuffled the cards and dealt them out
    again from the seat to its player's left; nobody owes UNO for the new hands."""

    hands: Annotated[list[list[CardId]], Doc("every seat's new hand, by seat")]
    counts: Annotated[list[int], Doc("how many cards each seat now holds, by seat")]


class CardsDiscardedData(TypedDict):
    """A Wild Customizable that discards a colour took every card of the colour named
    from its player's hand, face up under it on the discard pile."""

    cards: Annotated[list[CardId], Doc("the cards discarded")]


class TurnTimedOutData(TypedDict):
    """A human to act let the turn timer run out; the default move's events follow."""

    timeouts: Annotated[int, Doc("the seat's timeouts in a row, this one included")]


class RoundEndedData(TypedDict):
    """A seat played its last card and won the round."""

    points: Annotated[int, Doc("the points the winner scored this round")]
    scores: Annotated[list[int], Doc("every seat's total score, by seat")]
    hands: Annotated[list[list[CardId]], Doc("what every seat had left, by seat")]
    team: NotRequired[
        Annotated[int, Doc("in partners: the winning team (0: seats 0 and 2; 1: seats 1 and 3)")]
    ]


class GameEndedData(TypedDict):
    """The winner of a round reached the target score (or the game was one round)."""

    winner: Annotated[Seat, Doc("the winning seat")]
    scores: Annotated[list[int], Doc("every seat's final score, by seat")]
    team: NotRequired[
        Annotated[int, Doc("in partners: the winning team (0: seats 0 and 2; 1: seats 1 and 3)")]
    ]


class GamePausedData(TypedDict):
    """No human is left at the table and a timed-out player may still resume: nobody
    moves until then."""

    until: Annotated[str, Means.TIME, Doc("when the game is abandoned unless someone resumes")]


class GameResumedData(TypedDict):
    """A paused game goes on: a timed-out player took their seat back."""


class GameAbandonedData(TypedDict):
    """The game ended without a winner: an operator ended it, its last human left
    while nobody could resume a seat, or nobody resumed a paused game in time."""

    reason: Annotated[str, Doc("why, in words")]
    by: NotRequired[
        Annotated[str, Doc("the username of the staff member who ended it, when one did")]
    ]


class RatingData(TypedDict):
    """A skill rating (Weng-Lin / OpenSkill Plackett-Luce)."""

    mu: Annotated[float, Doc("the estimate of the skill")]
    sigma: Annotated[float, Doc("its uncertainty")]
    ordinal: Annotated[float, Doc("mu - 3 sigma: what the leaderboard ranks by")]
    games: Annotated[int, Doc("the rated games played, this one included")]


class RatingChangeData(TypedDict):
    """How much a rating moved."""

    mu: Annotated[float, Doc("the change of mu")]
    sigma: Annotated[float, Doc("the change of sigma")]
    ordinal: Annotated[float, Doc("the change of the ordinal")]


class SeatRatingData(TypedDict):
    """The rating one seat counted for, after the game."""

    seat: Annotated[Seat, Doc("the seat")]
    rated_as: Annotated[str, Doc("whose rating: a player's id, or bot:<strategy>")]
    rating: Annotated[RatingData, Doc("the rating after this game")]
    change: Annotated[RatingChangeData, Doc("what this game changed")]


class GameRatedData(TypedDict):
    """The game was rated (it finished with at least two human players and counts for
    ratings): every seat's rating moved, in the same change as `game_ended`."""

    ratings: Annotated[list[SeatRatingData], Doc("by seat")]


class RematchOfferedData(TypedDict):
    """A player of the game, once it was over, asked for the next game with the same
    settings: that game waits for the others to join it. Logged once, by the first to
    ask; the others who ask join the same game."""

    game: Annotated[str, Means.GAME_ID, Doc("the id of the new game")]
    by: Annotated[PlayerRef, Doc("who asked for it, and hosts it")]


# -- who may read what ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Secret:
    """A key of `data` that only one seat may read while the game runs. Once the game
    is over everyone reads it, and staff always do in the complete log."""

    key: str
    # The seat that may read it: "seat" for the event's own seat, another key of
    # `data` for the seat that key holds, or None for nobody.
    reader: str | None
    # For a per-seat list that nobody reads whole: each seated reader gets its own
    # entry under this key instead.
    own_entry_as: str | None = None

    def reader_seat(self, seat: int | None, data: Any) -> int | None:
        if self.reader is None:
            return None
        if self.reader == "seat":
            return seat
        found = data.get(self.reader)
        return found if isinstance(found, int) else None


@dataclass(frozen=True, slots=True)
class EventSpec:
    """One type of event: the TypedDict of its `data` and what its `seat` is."""

    data: Any  # a TypedDict class
    seat: str
    secrets: tuple[Secret, ...] = ()
    # Changes who sits at the table, whether the game runs, or what follows it, and
    # never the table itself: the replay skips it.
    seat_event: bool = False
    # Keys of `data` for staff alone, even once the game is over: who among the staff
    # did something is the operators' business, not the players'.
    staff_only: tuple[str, ...] = ()


_TABLE_WIDE = "null: the event is about the whole table"

VOCABULARY: Final[dict[EventType, EventSpec]] = {
    "player_joined": EventSpec(PlayerJoinedData, "the seat taken", seat_event=True),
    "player_left": EventSpec(PlayerLeftData, "the seat left", seat_event=True),
    "bot_added": EventSpec(BotAddedData, "the bot's seat", seat_event=True),
    "seats_arranged": EventSpec(SeatsArrangedData, _TABLE_WIDE, seat_event=True),
    "seat_taken_by_bot": EventSpec(SeatTakenByBotData, "the seat", seat_event=True),
    "seat_resumed": EventSpec(SeatResumedData, "the seat taken back"),
    "game_started": EventSpec(GameStartedData, _TABLE_WIDE),
    "round_started": EventSpec(
        RoundStartedData, _TABLE_WIDE, secrets=(Secret("hands", None, own_entry_as="hand"),)
    ),
    "card_played": EventSpec(CardPlayedData, "who played"),
    "cards_drawn": EventSpec(CardsDrawnData, "who drew", secrets=(Secret("cards", "seat"),)),
    "turn_passed": EventSpec(TurnPassedData, "who passed"),
    "uno_called": EventSpec(UnoCalledData, "who said UNO"),
    "player_skipped": EventSpec(PlayerSkippedData, "who was skipped"),
    "direction_changed": EventSpec(
        DirectionChangedData, "who reversed; null for a Reverse turned up first"
    ),
    "color_chosen": EventSpec(ColorChosenData, "who chose"),
    "uno_caught": EventSpec(UnoCaughtData, "who was caught"),
    "challenged": EventSpec(ChallengedData, "who played the Wild Draw Four"),
    "hand_revealed": EventSpec(
        HandRevealedData, "who played the Wild Draw Four", secrets=(Secret("hand", "to"),)
    ),
    "hands_swapped": EventSpec(
        HandsSwappedData, "who played the 7, the 0 or the Wild Customizable"
    ),
    "hands_shuffled": EventSpec(
        HandsShuffledData,
        "who played the Wild Shuffle Hands",
        secrets=(Secret("hands", None, own_entry_as="hand"),),
    ),
    "cards_discarded": EventSpec(CardsDiscardedData, "who discarded"),
    "turn_timed_out": EventSpec(TurnTimedOutData, "who timed out"),
    "round_ended": EventSpec(RoundEndedData, "the round's winner"),
    "game_ended": EventSpec(GameEndedData, "the winner"),
    "game_paused": EventSpec(GamePausedData, _TABLE_WIDE, seat_event=True),
    "game_resumed": EventSpec(GameResumedData, _TABLE_WIDE, seat_event=True),
    "game_abandoned": EventSpec(
        GameAbandonedData, _TABLE_WIDE, seat_event=True, staff_only=("by",)
    ),
    "game_rated": EventSpec(GameRatedData, _TABLE_WIDE, seat_event=True),
    "rematch_offered": EventSpec(
        RematchOfferedData, "the seat of the player who asked", seat_event=True
    ),
}

SEAT_EVENTS: Final = frozenset(t for t, spec in VOCABULARY.items() if spec.seat_event)
SECRETS: Final[dict[str, tuple[Secret, ...]]] = {
    t: spec.secrets for t, spec in VOCABULARY.items() if spec.secrets
}
STAFF_ONLY: Final[dict[str, frozenset[str]]] = {
    t: frozenset(spec.staff_only) for t, spec in VOCABULARY.items() if spec.staff_only
}


# -- reading the declaration ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DataKey:
    """One key of an event's `data`, as declared."""

    name: str
    type: Any  # the declared type, without its `Doc` and `NotRequired`
    required: bool
    doc: str


def is_event_type(name: str) -> TypeGuard[EventType]:
    """Whether a stored type names an event of the vocabulary."""
    return name in VOCABULARY


def keys_of(shape: Any) -> tuple[DataKey, ...]:
    """The keys of a TypedDict, in declaration order."""
    hints = get_type_hints(shape, include_extras=True)
    required = shape.__required_keys__
    keys = []
    for name, hint in hints.items():
        if get_origin(hint) is NotRequired:
            (hint,) = get_args(hint)
        hint, doc = _without_doc(hint)
        keys.append(DataKey(name, hint, name in required, doc))
    return tuple(keys)


def data_keys(event_type: EventType) -> tuple[DataKey, ...]:
    """The keys of `data` for `event_type`, as stored."""
    return keys_of(VOCABULARY[event_type].data)


def _without_doc(hint: Any) -> tuple[Any, str]:
    if get_origin(hint) is not Annotated:
        return hint, ""
    base, *meta = get_args(hint)
    docs = [m.text for m in meta if isinstance(m, Doc)]
    rest = tuple(m for m in meta if not isinstance(m, Doc))
    return (Annotated[(base, *rest)] if rest else base), " ".join(docs)


def means(hint: Any) -> Means | None:
    """What a declared type stands for (`Means`), if it says."""
    if get_origin(hint) is not Annotated:
        return None
    return next((m for m in get_args(hint)[1:] if isinstance(m, Means)), None)


CardForm = Literal["card", "cards", "hands"]


def card_form(hint: Any) -> CardForm | None:
    """How a key holds cards: one card id, a list of them, or a list of lists by seat
    (which clients get as a map from seat to cards)."""
    if means(hint) is Means.CARD:
        return "card"
    if get_origin(hint) is list:
        inner = card_form(get_args(hint)[0])
        if inner == "card":
            return "cards"
        if inner == "cards":
            return "hands"
    return None


def _card_keys() -> dict[str, CardForm]:
    """Every key of `data` that holds cards, with its form; one key, one form."""
    forms: dict[str, CardForm] = {}
    for event_type, spec in VOCABULARY.items():
        keys = {key.name: key.type for key in data_keys(event_type)}
        if "seat" in keys:
            raise TypeError(f"{event_type}: 'seat' names the event's seat in a Secret")
        for secret in spec.secrets:
            if secret.own_entry_as is not None:
                keys[secret.own_entry_as] = get_args(keys[secret.key])[0]
        for name, hint in keys.items():
            form = card_form(hint)
            if form is not None and forms.setdefault(name, form) != form:
                raise TypeError(f"{event_type}.{name} holds cards unlike elsewhere")
    return forms


CARD_KEYS: Final = _card_keys()

if set(VOCABULARY) != set(EVENT_TYPES):
    raise TypeError("VOCABULARY must declare every EventType, and only those")
