"""The rules of docs/rules.md: dealing, legal moves, applying moves, timeouts and scoring.

`legal_moves(state, seat)` is the single source of truth: `apply` accepts a move
exactly when it is listed there (a play may carry ``uno=True`` on top), and only
explains a rejection by looking closer. A rejected move leaves the state untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .cards import (
    COLOR_NAMES,
    COLOR_OF,
    DRAW_TWO,
    FACE_OF,
    IS_WILD,
    KIND_OF,
    NO_COLOR,
    NUMBER,
    NUMBER_OF,
    REVERSE,
    SKIP,
    WILD_CUSTOMIZABLE,
    WILD_DRAW_FOUR,
    WILD_SHUFFLE_HANDS,
)
from .errors import EngineError, IllegalMove, MalformedMove, NotYourTurn, WrongPhase
from .events import Event
from .moves import (
    ACCEPT,
    CALL_UNO,
    CATCH_UNO,
    CHALLENGE,
    CHOOSE_COLOR,
    DRAW,
    PASS,
    PLAY_MOVES,
    Move,
    malformed_reason,
    play_targeted,
    takes_target,
)
from .rng import SEED_BITS, first_dealer, round_key, shuffle_round
from .scoring import hand_points, round_points
from .state import CLOCKWISE, COUNTERCLOCKWISE, GameConfig, GameState, Pending
from .vocabulary import (
    CardPlayedData,
    CardsDiscardedData,
    CardsDrawnData,
    ChallengedData,
    ColorChosenData,
    Direction,
    DirectionChangedData,
    DrawReason,
    GameEndedData,
    GameStartedData,
    HandRevealedData,
    HandsShuffledData,
    HandsSwappedData,
    RoundEndedData,
    RoundStartedData,
    TurnTimedOutData,
    UnoCaughtData,
)

HAND_SIZE: Final = 7
TIMEOUTS_BEFORE_BOT: Final = 3
DIRECTION_NAMES: Final[dict[int, Direction]] = {
    CLOCKWISE: "clockwise",
    COUNTERCLOCKWISE: "counterclockwise",
}

# Which actions each phase accepts at all, for telling wrong_phase from illegal_move.
_PHASE_ACTIONS: Final[dict[str | None, frozenset[str]]] = {
    None: frozenset(("play", "draw", "pass")),
    "drawn_card": frozenset(("play", "pass")),
    "stack": frozenset(("play", "draw")),
    "challenge": frozenset(("challenge", "accept", "play")),
    "choose_color": frozenset(("choose_color",)),
}
_PHASE_HINTS: Final[dict[str | None, str]] = {
    None: "play a card, draw or pass",
    "drawn_card": "play the card just drawn or pass to keep it",
    "stack": "stack a Draw Two or draw",
    "challenge": "challenge or accept the Wild Draw Four",
    "choose_color": "choose the colour of the first card",
}


# -- starting -------------------------------------------------------------------------


def new_game(
    config: GameConfig,
    seed: int | str,
    *,
    seed_bits: int = SEED_BITS,
    client_seeds: Sequence[str] = (),
) -> tuple[GameState, list[Event]]:
    """Deal round 1 of a new game. Same config, seed, `seed_bits` and client seeds,
    same game. A hex `seed` is a `uno-deal/1` server seed, dealt with `client_seeds`
    (one per seat, "" for a bot); an integer deals by the Mersenne Twister, as before."""
    state = GameState(config, seed, seed_bits=seed_bits, client_seeds=client_seeds)
    events: list[Event] = []
    start_game(state, events)
    return state, events


def start_game(state: GameState, events: list[Event]) -> None:
    """Deal round 1 on a fresh `state`, appending what happens to `events`."""
    dealer = first_dealer(_round_key(state, 1), state.players)
    events.append(Event("game_started", None, GameStartedData(dealer=dealer), 1))
    _start_round(state, dealer, events)


def _round_key(state: GameState, round_no: int) -> int | str:
    return round_key(state.seed, state.seed_bits, state.client_seeds, round_no)


def _shuffle(state: GameState, cards: list[int]) -> None:
    """The round's next shuffle of `cards`, in place."""
    shuffle_round(cards, _round_key(state, state.round), state.shuffles)
    state.shuffles += 1


def _start_round(state: GameState, dealer: int, events: list[Event]) -> None:
    n = state.players
    state.round += 1
    state.shuffles = 0
    state.dealer = dealer
    deck = list(range(state.config.deck_size))
    _shuffle(state, deck)
    state.hands = [[] for _ in range(n)]
    for _ in range(HAND_SIZE):
        for offset in range(1, n + 1):
            state.hands[(dealer + offset) % n].append(deck.pop())
    top = deck.pop()
    while KIND_OF[top] == WILD_DRAW_FOUR:
        deck.append(top)
        _shuffle(state, deck)
        top = deck.pop()
    state.draw_pile = deck
    state.discard = [top]
    state.color = COLOR_OF[top]
    state.direction = CLOCKWISE
    state.pending = None
    state.uno_owed = -1
    state.said_uno = [False] * n

    left = (dealer + 1) % n
    kind = KIND_OF[top]
    after: list[Event] = []
    if kind == SKIP:
        state.current = (dealer + 2) % n
        after.append(Event("player_skipped", left, {}, state.round))
    elif kind == REVERSE:
        state.direction = COUNTERCLOCKWISE
        state.current = dealer
        turned = DirectionChangedData(direction="counterclockwise")
        after.append(Event("direction_changed", None, turned, state.round))
    elif kind == DRAW_TWO:
        state.current = (dealer + 2) % n
    else:
        state.current = left
        if IS_WILD[top]:
            state.pending = Pending("choose_color", left)

    # round_started carries the table as it stands once the first card has acted;
    # the events after it say what happened on the way.
    dealt = RoundStartedData(
        dealer=dealer,
        top_card=top,
        current_color=COLOR_NAMES[state.color] if state.color != NO_COLOR else None,
        direction=DIRECTION_NAMES[state.direction],
        current_seat=state.current,
        hands=[list(hand) for hand in state.hands],
    )
    events.append(Event("round_started", None, dealt, state.round))
    if kind == DRAW_TWO:
        _draw(state, left, 2, "first_card", events)
        events.append(Event("player_skipped", left, {}, state.round))
    for event in after:  # one by one: a replay checks each as it is added
        events.append(event)


# -- legal moves ----------------------------------------------------------------------


def _wants_target(config: GameConfig, card: int) -> bool:
    """Whether a play of `card` names a seat at this table: a 7 under seven_o, a Wild
    Customizable that swaps hands."""
    if not takes_target(card):
        return False
    if KIND_OF[card] == WILD_CUSTOMIZABLE:
        return config.wild_customizable == "swap_hands"
    return config.rules.seven_o


def _play_variants(state: GameState, seat: int, card: int) -> tuple[Move, ...] | list[Move]:
    if not _wants_target(state.config, card):
        return PLAY_MOVES[card]
    others = [t for t in range(state.players) if t != seat]
    if IS_WILD[card]:
        return [play_targeted(card, t, color) for t in others for color in range(4)]
    return [play_targeted(card, t) for t in others]


def can_draw(state: GameState) -> bool:
    return bool(state.draw_pile) or len(state.discard) > 1


def is_playable(state: GameState, card: int) -> bool:
    """Matches the current colour, or the top card's number or symbol, or is wild."""
    return (
        IS_WILD[card]
        or COLOR_OF[card] == state.color
        or FACE_OF[card] == FACE_OF[state.discard[-1]]
    )


def _can_jump_in(state: GameState, card: int) -> bool:
    top = state.discard[-1]
    return not IS_WILD[card] and COLOR_OF[card] == COLOR_OF[top] and FACE_OF[card] == FACE_OF[top]


def legal_moves(state: GameState, seat: int) -> list[Move]:
    """Every move `seat` may make now, in turn or out of turn (catch, call, jump in)."""
    if state.winner >= 0:
        return []
    moves: list[Move] = []
    pending = state.pending
    hand = state.hands[seat]
    rules = state.config.rules
    if pending is None:
        if seat == state.current:
            # A play that may name a seat (`_wants_target` tells which): a seven_o 7, a
            # Wild Customizable that swaps hands.
            targeted = rules.seven_o or state.config.wild_customizable == "swap_hands"
            color = state.color
            face = FACE_OF[state.discard[-1]]
            for c in hand:
                if IS_WILD[c] or COLOR_OF[c] == color or FACE_OF[c] == face:
                    if targeted and (NUMBER_OF[c] == 7 or KIND_OF[c] == WILD_CUSTOMIZABLE):
                        moves.extend(_play_variants(state, seat, c))
                    else:
                        moves.extend(PLAY_MOVES[c])
            moves.append(DRAW if state.draw_pile or len(state.discard) > 1 else PASS)
        elif rules.jump_in:
            for c in hand:
                if _can_jump_in(state, c):
                    moves.extend(_play_variants(state, seat, c))
    elif pending.seat == seat:
        ptype = pending.type
        if ptype == "drawn_card":
            moves.extend(_play_variants(state, seat, pending.card))
            if not rules.force_play:
                moves.append(PASS)
        elif ptype == "stack":
            for c in hand:
                if KIND_OF[c] == DRAW_TWO:
                    moves.extend(PLAY_MOVES[c])
            moves.append(DRAW)
        elif ptype == "challenge":
            moves.append(CHALLENGE)
            moves.append(ACCEPT)
            if rules.stacking:
                for c in hand:
                    if KIND_OF[c] == WILD_DRAW_FOUR:
                        moves.extend(PLAY_MOVES[c])
        else:
            moves.extend(CHOOSE_COLOR)
    owed = state.uno_owed
    if owed >= 0:
        moves.append(CALL_UNO if owed == seat else CATCH_UNO[owed])
    return moves


def is_legal(state: GameState, seat: int, move: Move) -> bool:
    return 0 <= seat < state.players and move.without_uno() in legal_moves(state, seat)


# -- applying -------------------------------------------------------------------------


def apply(
    state: GameState, seat: int, move: Move, *, into: list[Event] | None = None
) -> list[Event]:
    """Apply `seat`'s `move` to `state` in place and return the events it caused
    (appended to `into` when given).

    Raises `MalformedMove` for a move no game could accept, and `IllegalMove` (or its
    `NotYourTurn` / `WrongPhase` subclasses) when this state forbids it; either way
    the state is unchanged.
    """
    if not 0 <= seat < state.players:
        raise MalformedMove(f"no seat {seat} in a {state.players}-player game")
    if move.without_uno() not in legal_moves(state, seat):
        raise _why_illegal(state, seat, move)
    state.timeouts[seat] = 0
    events: list[Event] = [] if into is None else into
    _perform(state, seat, move, events)
    return events


def push(state: GameState, seat: int, move: Move) -> list[Event]:
    """Apply a move already known to be legal (one `legal_moves` listed), unchecked.

    As python-chess's ``Board.push``: for search and simulation, where the caller
    picked the move from `legal_moves` and checking again would double the cost.
    An illegal move here corrupts the state: everything else must use `apply`.
    """
    events: list[Event] = []
    _perform(state, seat, move, events)
    return events


def _perform(state: GameState, seat: int, move: Move, events: list[Event]) -> None:
    action = move.action
    if action == "play":
        assert move.card is not None
        _play(state, seat, move.card, move, events)
    elif action == "draw":
        _do_draw(state, seat, events)
    elif action == "pass":
        state.uno_owed = -1
        state.pending = None
        events.append(Event("turn_passed", seat, {}, state.round))
        state.current = (seat + state.direction) % state.players
    elif action == "choose_color":
        assert move.color is not None
        state.uno_owed = -1
        state.pending = None
        state.color = move.color
        chosen = ColorChosenData(color=COLOR_NAMES[move.color])
        events.append(Event("color_chosen", seat, chosen, state.round))
    elif action == "call_uno":
        state.uno_owed = -1
        state.said_uno[seat] = True
        events.append(Event("uno_called", seat, {}, state.round))
    elif action == "catch_uno":
        target = state.uno_owed
        state.uno_owed = -1
        events.append(Event("uno_caught", target, UnoCaughtData(by=seat), state.round))
        _draw(state, target, 2, "uno_penalty", events)
    elif action == "challenge":
        _challenge(state, seat, events)
    else:  # accept
        pending = state.pending
        assert pending is not None
        state.uno_owed = -1
        state.pending = None
        reason: DrawReason = "wild_draw_four" if pending.amount == 4 else "stack"
        _draw(state, seat, pending.amount, reason, events)
        _skip(state, seat, events)


def _play(state: GameState, seat: int, card: int, move: Move, events: list[Event]) -> None:
    rules = state.config.rules
    pending = state.pending
    n = state.players
    rnd = state.round
    hand = state.hands[seat]
    previous_color = state.color
    stacked = pending.amount if pending is not None and pending.type != "drawn_card" else 0

    state.uno_owed = -1
    state.pending = None
    state.current = seat  # a jump-in plays on as if it were the jumper's turn
    hand.remove(card)
    state.discard.append(card)
    state.color = COLOR_OF[card] if move.color is None else move.color
    kind = KIND_OF[card]
    effect = None
    shed: list[int] | None = None
    if kind == WILD_CUSTOMIZABLE:
        effect = state.config.wild_customizable
        if effect == "discard_color":
            # The cards of the colour named go under the Wild Customizable, face up.
            shed = [c for c in hand if COLOR_OF[c] == state.color]
            if shed:
                hand[:] = [c for c in hand if COLOR_OF[c] != state.color]
                state.discard[-1:-1] = shed
    says_uno = move.uno and len(hand) == 1
    data: CardPlayedData = {"card": card, "color": COLOR_NAMES[state.color]}
    if move.target is not None:
        data["target"] = move.target
    if says_uno:
        data["uno"] = True
    events.append(Event("card_played", seat, data, rnd))
    if shed:
        events.append(Event("cards_discarded", seat, CardsDiscardedData(cards=shed), rnd))

    nxt = (seat + state.direction) % n
    if kind == WILD_SHUFFLE_HANDS:
        if hand or state.config.shuffle_hands_last_card == "redeal":
            _shuffle_hands(state, seat, events)
            hand = state.hands[seat]
        if hand:
            state.current = nxt  # the new hands owe no UNO: `_shuffle_hands` cleared it
            return
    if not hand:
        # Going out: a last Draw Two / Wild Draw Four still makes the next player draw,
        # and a last Wild Customizable that makes everyone draw one still does.
        if kind in (DRAW_TWO, WILD_DRAW_FOUR):
            amount = stacked + (2 if kind == DRAW_TWO else 4)
            base: DrawReason = "draw_two" if kind == DRAW_TWO else "wild_draw_four"
            _draw(state, nxt, amount, base if stacked == 0 else "stack", events)
        elif effect == "everyone_draws_one":
            _everyone_draws_one(state, seat, events)
        _end_round(state, seat, events)
        return

    if len(hand) == 1:
        if says_uno:
            state.said_uno[seat] = True
            events.append(Event("uno_called", seat, {}, rnd))
        else:
            state.uno_owed = seat

    if kind == NUMBER:
        if rules.seven_o and NUMBER_OF[card] == 7:
            assert move.target is not None
            _swap(state, seat, move.target, events)
        elif rules.seven_o and NUMBER_OF[card] == 0:
            _rotate(state, seat, events)
        state.current = nxt
    elif kind == SKIP:
        events.append(Event("player_skipped", nxt, {}, rnd))
        state.current = (nxt + state.direction) % n
    elif kind == REVERSE:
        state.direction = -state.direction
        turned = DirectionChangedData(direction=DIRECTION_NAMES[state.direction])
        events.append(Event("direction_changed", seat, turned, rnd))
        if n == 2:
            events.append(Event("player_skipped", nxt, {}, rnd))
            state.current = seat
        else:
            state.current = (seat + state.direction) % n
    elif kind == DRAW_TWO:
        if rules.stacking:
            state.pending = Pending("stack", nxt, amount=stacked + 2)
            state.current = nxt
        else:
            _draw(state, nxt, 2, "draw_two", events)
            _skip(state, nxt, events)
    elif effect is not None:
        _customized(state, seat, effect, move, events)
    elif kind == WILD_DRAW_FOUR:
        # Guilt is fixed now, from the hand as it was when the card went down.
        guilty = any(COLOR_OF[c] == previous_color for c in hand)
        state.pending = Pending(
            "challenge",
            nxt,
            amount=stacked + 4,
            accused=seat,
            guilty=guilty,
            previous_color=previous_color,
        )
        state.current = nxt
    else:
        state.current = nxt


def _customized(state: GameState, seat: int, effect: str, move: Move, events: list[Event]) -> None:
    """A Wild Customizable's effect, with its player still holding cards, and the turn
    it leaves (docs/rules.md, "Wild Customizable"); `discard_color` already acted."""
    n = state.players
    nxt = (seat + state.direction) % n
    if effect == "everyone_draws_one":
        _everyone_draws_one(state, seat, events)
    elif effect == "swap_hands":
        assert move.target is not None
        _swap(state, seat, move.target, events)
    elif effect == "skip_everyone":
        for step in range(1, n):
            events.append(
                Event("player_skipped", (seat + step * state.direction) % n, {}, state.round)
            )
        nxt = seat
    state.current = nxt


def _everyone_draws_one(state: GameState, seat: int, events: list[Event]) -> None:
    """Every other seat draws a card, in the order of play from the next one, from the
    draw pile as far as it goes: the discards are not shuffled back for it. Otherwise,
    at a big table whose cards are nearly all in hand, the Wild Customizable just
    played is shuffled back, drawn, and played again, over and over."""
    n = state.players
    pile = state.draw_pile
    for step in range(1, n):
        target = (seat + step * state.direction) % n
        drawn = [pile.pop()] if pile else []
        state.hands[target].extend(drawn)
        if drawn:
            state.said_uno[target] = False
        data: CardsDrawnData = {"count": len(drawn), "reason": "wild_customizable", "cards": drawn}
        events.append(Event("cards_drawn", target, data, state.round))


def _shuffle_hands(state: GameState, seat: int, events: list[Event]) -> None:
    """Wild Shuffle Hands: every card in every hand, gathered in the order of their ids
    (so that anyone can redo the shuffle from the cards alone), shuffled by the round's
    next shuffle and dealt one at a time from the seat to the left of `seat`, as the
    round's deal goes. Hands end at most one card apart; the new hands owe no UNO."""
    n = state.players
    cards = sorted(c for hand in state.hands for c in hand)
    _shuffle(state, cards)
    hands: list[list[int]] = [[] for _ in range(n)]
    for i in range(len(cards)):
        hands[(seat + 1 + i) % n].append(cards.pop())
    state.hands = hands
    state.uno_owed = -1
    state.said_uno = [False] * n
    shuffled = HandsShuffledData(
        hands=[list(hand) for hand in hands], counts=[len(hand) for hand in hands]
    )
    events.append(Event("hands_shuffled", seat, shuffled, state.round))


def _swap(state: GameState, seat: int, target: int, events: list[Event]) -> None:
    hands = state.hands
    hands[seat], hands[target] = hands[target], hands[seat]
    # Cards received in a swap owe no UNO call, and a swap closes any catch window.
    state.uno_owed = -1
    state.said_uno[seat] = state.said_uno[target] = False
    swapped: HandsSwappedData = {"with": target}
    events.append(Event("hands_swapped", seat, swapped, state.round))


def _rotate(state: GameState, seat: int, events: list[Event]) -> None:
    # Each hand moves to the next seat in the direction of play.
    n = state.players
    old = state.hands
    state.hands = [old[(s - state.direction) % n] for s in range(n)]
    state.uno_owed = -1
    state.said_uno = [False] * n
    rotated: HandsSwappedData = {"rotation": DIRECTION_NAMES[state.direction]}
    events.append(Event("hands_swapped", seat, rotated, state.round))


def _skip(state: GameState, seat: int, events: list[Event]) -> None:
    events.append(Event("player_skipped", seat, {}, state.round))
    state.current = (seat + state.direction) % state.players


def _challenge(state: GameState, seat: int, events: list[Event]) -> None:
    pending = state.pending
    assert pending is not None
    accused = pending.accused
    rnd = state.round
    state.uno_owed = -1
    state.pending = None
    challenged = ChallengedData(by=seat, guilty=pending.guilty)
    events.append(Event("challenged", accused, challenged, rnd))
    revealed = HandRevealedData(to=seat, hand=list(state.hands[accused]))
    events.append(Event("hand_revealed", accused, revealed, rnd))
    if pending.guilty:
        _draw(state, accused, pending.amount, "challenge", events)
        state.current = seat
    else:
        _draw(state, seat, pending.amount + 2, "challenge", events)
        _skip(state, seat, events)


def _do_draw(state: GameState, seat: int, events: list[Event]) -> None:
    pending = state.pending
    state.uno_owed = -1
    if pending is not None:  # a stack: draw the whole sum and lose the turn
        state.pending = None
        _draw(
            state,
            seat,
            pending.amount,
            "draw_two" if pending.amount == 2 else "stack",
            events,
        )
        _skip(state, seat, events)
        return
    rules = state.config.rules
    drawn: list[int] = []
    while True:
        card = _take(state)
        if card < 0:
            break
        drawn.append(card)
        if not rules.draw_until_playable or is_playable(state, card):
            break
    state.hands[seat].extend(drawn)
    state.said_uno[seat] = False
    data: CardsDrawnData = {"count": len(drawn), "reason": "draw", "cards": drawn}
    events.append(Event("cards_drawn", seat, data, state.round))
    if drawn and is_playable(state, drawn[-1]):
        state.pending = Pending("drawn_card", seat, card=drawn[-1])
    else:
        events.append(Event("turn_passed", seat, {}, state.round))
        state.current = (seat + state.direction) % state.players


def _take(state: GameState) -> int:
    """The top card of the draw pile, reshuffling the discards in when it is empty;
    -1 when both piles are exhausted."""
    pile = state.draw_pile
    if not pile:
        discard = state.discard
        if len(discard) <= 1:
            return -1
        pile.extend(discard[:-1])
        del discard[:-1]
        _shuffle(state, pile)
    return pile.pop()


def _draw(state: GameState, seat: int, count: int, reason: DrawReason, events: list[Event]) -> None:
    """Draw up to `count` cards (as far as the piles go) into `seat`'s hand."""
    drawn: list[int] = []
    for _ in range(count):
        card = _take(state)
        if card < 0:
            break
        drawn.append(card)
    state.hands[seat].extend(drawn)
    if drawn:
        state.said_uno[seat] = False
    data: CardsDrawnData = {"count": len(drawn), "reason": reason, "cards": drawn}
    events.append(Event("cards_drawn", seat, data, state.round))


def _end_round(state: GameState, winner: int, events: list[Event]) -> None:
    config = state.config
    partner = config.partner_of(winner)
    if partner is None:
        points = round_points(state.hands, winner)
        state.scores[winner] += points
    else:
        # The team scores what both opponents hold; partners share one total.
        team = winner % 2
        points = sum(hand_points(h) for seat, h in enumerate(state.hands) if seat % 2 != team)
        state.scores[winner] += points
        state.scores[partner] = state.scores[winner]
    state.uno_owed = -1
    state.pending = None
    ended = RoundEndedData(
        points=points, scores=list(state.scores), hands=[list(hand) for hand in state.hands]
    )
    if partner is not None:
        ended["team"] = winner % 2
    events.append(Event("round_ended", winner, ended, state.round))
    target = config.target_score
    if target == 0 or state.scores[winner] >= target:
        state.winner = winner
        over = GameEndedData(winner=winner, scores=list(state.scores))
        if partner is not None:
            over["team"] = winner % 2
        events.append(Event("game_ended", winner, over, state.round))
    else:
        _start_round(state, (state.dealer + 1) % state.players, events)


# -- timeouts -------------------------------------------------------------------------


def most_common_color(hand: list[int]) -> int:
    """The colour a seat holds most of (ties to the earlier of red, yellow, green, blue)."""
    counts = [0, 0, 0, 0]
    for c in hand:
        if COLOR_OF[c] != NO_COLOR:
            counts[COLOR_OF[c]] += 1
    return counts.index(max(counts))


def apply_timeout(state: GameState, *, into: list[Event] | None = None) -> list[Event]:
    """The default action for the seat to act, whose deadline has passed.

    Accept a pending Wild Draw Four; choose the most common colour; otherwise draw
    (unless already drawn this turn) and keep the card. The seat's run of timeouts
    grows by one; `TIMEOUTS_BEFORE_BOT` in a row is the caller's cue for a bot.
    """
    seat = state.to_act
    if seat is None:
        raise WrongPhase("the game is over")
    state.timeouts[seat] += 1
    events: list[Event] = [] if into is None else into
    timed_out = TurnTimedOutData(timeouts=state.timeouts[seat])
    events.append(Event("turn_timed_out", seat, timed_out, state.round))
    pending = state.pending
    if pending is None:
        if not can_draw(state):
            _perform(state, seat, PASS, events)
            return events
        _do_draw(state, seat, events)
        pending = state.pending
        if pending is None:  # the drawn card was not playable: the turn has ended
            return events
    if pending.type == "challenge":
        _perform(state, seat, ACCEPT, events)
    elif pending.type == "choose_color":
        _perform(state, seat, CHOOSE_COLOR[most_common_color(state.hands[seat])], events)
    elif pending.type == "stack":
        _perform(state, seat, DRAW, events)
    else:  # drawn_card: keep it, even under force_play
        _perform(state, seat, PASS, events)
    return events


def clear_timeouts(state: GameState, seat: int) -> None:
    """A player takes back the seat a bot held after their timeouts: their run of
    timeouts starts again from zero (docs/rules.md), so one more timeout does not hand
    the seat straight back. No event: the services log who resumed."""
    if not 0 <= seat < state.players:
        raise ValueError(f"no seat {seat} in a game of {state.players}")
    state.timeouts[seat] = 0


# -- explaining rejections ------------------------------------------------------------


def _why_illegal(state: GameState, seat: int, move: Move) -> EngineError:
    malformed = malformed_reason(move)
    if malformed is not None:
        return MalformedMove(malformed)
    if move.card is not None and move.card >= state.config.deck_size:
        return MalformedMove(f"unknown card id {move.card} in the {state.config.deck} deck")
    action = move.action
    card = move.card
    if state.winner >= 0:
        return WrongPhase("the game is over")
    if action == "call_uno":
        return IllegalMove("you have no UNO to call")
    if action == "catch_uno":
        return IllegalMove(f"seat {move.target} cannot be caught: no unsaid UNO to catch")
    pending = state.pending
    phase = pending.type if pending is not None else None
    to_act = pending.seat if pending is not None else state.current
    if seat != to_act:
        if action == "play" and pending is None and state.config.rules.jump_in:
            return NotYourTurn(
                "out of turn you may only jump in with a card identical to the top card"
            )
        return NotYourTurn(f"it is seat {to_act}'s turn")
    accepted = _PHASE_ACTIONS[phase]
    if action not in accepted or (
        phase == "challenge" and action == "play" and not state.config.rules.stacking
    ):
        return WrongPhase(f"now you must {_PHASE_HINTS[phase]}")
    if action == "play":
        assert card is not None
        if card not in state.hands[seat]:
            return IllegalMove(f"card {card} is not in your hand")
        wants_target = _wants_target(state.config, card)
        if wants_target and move.target is None:
            what = "a 7" if NUMBER_OF[card] == 7 else "a Wild Customizable"
            return IllegalMove(f"{what} names the seat to swap hands with ('target')")
        if not wants_target and move.target is not None:
            return IllegalMove(
                "'target' is only for a 7 with the seven_o rule, or a Wild Customizable"
                " that swaps hands"
            )
        if (
            wants_target
            and move.target is not None
            and not (0 <= move.target < state.players and move.target != seat)
        ):
            return IllegalMove(f"seat {move.target} is not another seat at this table")
        if phase == "drawn_card":
            return IllegalMove("only the card just drawn may be played now")
        if phase == "stack":
            return IllegalMove("only a Draw Two can be stacked on a Draw Two")
        if phase == "challenge":
            return IllegalMove("only a Wild Draw Four can be stacked on a Wild Draw Four")
        return IllegalMove("the card matches neither the colour nor the number or symbol")
    if action == "draw":
        return IllegalMove("nothing is left to draw: pass")
    if action == "pass":
        if phase == "drawn_card":
            return IllegalMove("force_play: the playable card just drawn must be played")
        return IllegalMove("you may pass only after drawing, or when nothing is left to draw")
    return IllegalMove("that move is not legal now")
