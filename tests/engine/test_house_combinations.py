"""House rules together (docs/rules.md, "House rules"): scenarios where two rules meet,
and random legal play with rules combined that must keep the deck whole and always
leave the seat to act a legal move."""

from __future__ import annotations

import random

import pytest

from games.engine import (
    GameConfig,
    GameState,
    IllegalMove,
    Move,
    NotYourTurn,
    Pending,
    Rules,
    apply,
    legal_moves,
    new_game,
)
from games.engine.cards import BLUE, DECK_SIZE, GREEN
from games.engine.position import build_state, card_in_hand, hand_codes

DRAW = Move("draw")
PASS = Move("pass")


def play(state, seat, code, **fields):
    return apply(state, seat, Move("play", card=card_in_hand(state, seat, code), **fields))


def play_move(state, seat, code, **fields):
    return Move("play", card=card_in_hand(state, seat, code), **fields)


def types(events):
    return [e.type for e in events]


def assert_rejected(state, seat, move, error=IllegalMove):
    before = state.to_snapshot()
    with pytest.raises(error):
        apply(state, seat, move)
    assert state.to_snapshot() == before


# -- stacking + jump_in ----------------------------------------------------------------


def test_an_identical_draw_two_cannot_jump_in_on_a_stack_but_can_once_it_is_drawn():
    rules = Rules(stacking=True, jump_in=True)
    state = build_state(
        [
            ["R+2", "G1", "G2"],
            ["B1", "B2", "B3"],
            ["Y4", "Y5", "Y6"],
            ["R+2", "G7", "G8"],
        ],
        top="R5",
        draw=["B4", "B5"],
        rules=rules,
    )
    play(state, 0, "R+2")
    assert state.pending == Pending("stack", 1, amount=2)
    assert legal_moves(state, 3) == []
    assert_rejected(state, 3, play_move(state, 3, "R+2"), NotYourTurn)

    apply(state, 1, DRAW)
    assert state.pending is None
    assert state.current == 2
    assert legal_moves(state, 3) == [play_move(state, 3, "R+2")]

    events = play(state, 3, "R+2")

    # As if it were seat 3's turn: seat 0, after the jumper, faces a fresh stack of two.
    assert types(events) == ["card_played"]
    assert state.pending == Pending("stack", 0, amount=2)
    assert state.current == 0
    assert hand_codes(state, 2) == ["Y4", "Y5", "Y6"]


def test_a_wild_draw_four_cannot_be_stacked_out_of_turn_by_a_jump_in():
    rules = Rules(stacking=True, jump_in=True)
    state = build_state(
        [["W+4", "G1", "G2"], ["B1", "B2", "B3"], ["W+4", "G7", "G8"]],
        top="R5",
        rules=rules,
    )
    play(state, 0, "W+4", color=BLUE)

    assert legal_moves(state, 2) == []
    assert_rejected(state, 2, play_move(state, 2, "W+4", color=GREEN), NotYourTurn)


# -- seven_o + jump_in -----------------------------------------------------------------


def test_a_jumped_in_seven_names_a_target_and_swaps_and_play_goes_on_from_the_jumper():
    rules = Rules(seven_o=True, jump_in=True)
    state = build_state(
        [
            ["G1", "G2", "G3"],
            ["B1", "B2"],
            ["R7", "Y7", "Y8"],
            ["G4", "G5", "G6", "G9"],
        ],
        top="R7",
        rules=rules,
    )
    seven = card_in_hand(state, 2, "R7")
    assert set(legal_moves(state, 2)) == {Move("play", card=seven, target=t) for t in (0, 1, 3)}
    assert_rejected(state, 2, Move("play", card=seven), IllegalMove)

    events = apply(state, 2, Move("play", card=seven, target=0))

    assert types(events) == ["card_played", "hands_swapped"]
    assert events[1].data == {"with": 0}
    assert hand_codes(state, 2) == ["G1", "G2", "G3"]
    assert hand_codes(state, 0) == ["Y7", "Y8"]
    assert state.current == 3


def test_a_jumped_in_seven_goes_on_from_the_jumper_counterclockwise():
    rules = Rules(seven_o=True, jump_in=True)
    state = build_state(
        [
            ["G1", "G2", "G3"],
            ["B1", "B2"],
            ["R7", "Y7", "Y8"],
            ["G4", "G5", "G6", "G9"],
        ],
        top="R7",
        direction=-1,
        rules=rules,
    )

    play(state, 2, "R7", target=3)

    assert hand_codes(state, 2) == ["G4", "G5", "G6", "G9"]
    assert hand_codes(state, 3) == ["Y7", "Y8"]
    assert state.current == 1


def test_a_jumped_in_seven_as_second_to_last_card_leaves_nobody_to_catch():
    rules = Rules(seven_o=True, jump_in=True)
    state = build_state(
        [
            ["G1", "G2", "G3"],
            ["B1", "B2", "B3"],
            ["R7", "Y8"],
            ["G4", "G5", "G6", "G9"],
        ],
        top="R7",
        rules=rules,
    )

    play(state, 2, "R7", target=3)

    assert hand_codes(state, 3) == ["Y8"]
    assert state.current == 3
    assert state.uno_owed == -1
    for seat in range(4):
        assert all(m.action != "catch_uno" for m in legal_moves(state, seat))
    assert_rejected(state, 0, Move("catch_uno", target=3))
    assert_rejected(state, 0, Move("catch_uno", target=2))


# -- draw_until_playable + force_play --------------------------------------------------


def test_drawing_until_playable_then_the_card_found_must_be_played():
    rules = Rules(draw_until_playable=True, force_play=True)
    state = build_state(
        [["G1", "B2"], ["Y7", "Y8", "Y9"], ["B7", "B8", "B9"]],
        top="R5",
        draw=["Y1", "G2", "R8", "Y3"],
        rules=rules,
    )

    events = apply(state, 0, DRAW)

    assert types(events) == ["cards_drawn"]
    assert events[0].data["count"] == 3
    eight = card_in_hand(state, 0, "R8")
    assert legal_moves(state, 0) == [Move("play", card=eight)]
    assert_rejected(state, 0, PASS)
    apply(state, 0, Move("play", card=eight))
    assert state.current == 1
    assert hand_codes(state, 0) == ["G1", "B2", "Y1", "G2"]


def test_drawing_until_a_wild_then_it_must_be_played_naming_a_colour():
    rules = Rules(draw_until_playable=True, force_play=True)
    state = build_state(
        [["G1", "B2"], ["Y7", "Y8", "Y9"], ["B7", "B8", "B9"]],
        top="R5",
        draw=["Y1", "W", "R8"],
        rules=rules,
    )
    apply(state, 0, DRAW)
    wild = card_in_hand(state, 0, "W")

    assert set(legal_moves(state, 0)) == {Move("play", card=wild, color=c) for c in range(4)}


def test_drawing_until_playable_with_force_play_ends_the_turn_when_the_piles_run_out():
    rules = Rules(draw_until_playable=True, force_play=True)
    state = build_state(
        [["G1", "B2"], ["Y7", "Y8", "Y9"], ["B7", "B8", "B9"]],
        top="R5",
        draw=["Y1", "G2"],
        rest="none",
        rules=rules,
    )

    events = apply(state, 0, DRAW)

    assert types(events) == ["cards_drawn", "turn_passed"]
    assert events[0].data["count"] == 2
    assert state.pending is None
    assert state.current == 1


# -- force_play + seven_o, draw_until_playable + jump_in -------------------------------


def test_a_drawn_seven_under_force_play_must_be_played_naming_a_seat():
    rules = Rules(seven_o=True, force_play=True)
    state = build_state(
        [["G1", "B2"], ["Y7", "Y8", "Y9"], ["B7", "B8", "B9"]],
        top="R5",
        draw=["R7"],
        rules=rules,
    )
    apply(state, 0, DRAW)
    seven = card_in_hand(state, 0, "R7")

    assert set(legal_moves(state, 0)) == {Move("play", card=seven, target=t) for t in (1, 2)}
    assert_rejected(state, 0, PASS)

    apply(state, 0, Move("play", card=seven, target=2))
    assert hand_codes(state, 0) == ["B7", "B8", "B9"]
    assert hand_codes(state, 2) == ["G1", "B2"]


def test_nobody_can_jump_in_while_a_card_found_by_drawing_waits():
    rules = Rules(draw_until_playable=True, jump_in=True)
    state = build_state(
        [["G1", "B2"], ["Y7", "Y8", "Y9"], ["R5", "B8", "B9"]],
        top="R5",
        draw=["Y1", "R8"],
        rules=rules,
    )
    apply(state, 0, DRAW)
    assert state.pending is not None
    assert state.pending.type == "drawn_card"

    assert legal_moves(state, 2) == []
    assert_rejected(state, 2, play_move(state, 2, "R5"), NotYourTurn)


# -- random play -----------------------------------------------------------------------


ALL_FIVE = Rules(
    stacking=True, seven_o=True, jump_in=True, draw_until_playable=True, force_play=True
)


EAGER = frozenset(("play", "challenge", "call_uno", "catch_uno"))


def check_table(state: GameState) -> None:
    cards = [c for hand in state.hands for c in hand] + state.draw_pile + state.discard
    assert state.card_total() == DECK_SIZE
    assert sorted(cards) == list(range(DECK_SIZE))
    assert GameState.from_snapshot(state.to_snapshot()) == state
    if state.finished:
        return
    seat = state.to_act
    assert seat is not None
    assert legal_moves(state, seat), f"seat {seat} has no legal move"
    if state.uno_owed >= 0:
        assert len(state.hands[state.uno_owed]) == 1


def random_play(rules: Rules, players: int, seed: int, moves: int) -> int:
    """Play `moves` random legal moves (in turn or out of turn) from a seeded deal,
    checking the table after each; returns how many moves were played."""
    rng = random.Random(seed)
    state, _ = new_game(GameConfig(players, 10_000, rules), seed)
    check_table(state)
    played = 0
    for _ in range(moves):
        options = [(s, m) for s in range(players) for m in legal_moves(state, s)]
        if not options:
            break
        # Lean towards plays, challenges and UNO calls/catches so that hands shrink,
        # rounds end and every rule gets its turn; otherwise anything legal, anyone's.
        eager = [o for o in options if o[1].action in EAGER]
        seat, move = rng.choice(eager if eager and rng.random() < 0.85 else options)
        if move.action == "play" and rng.random() < 0.5:
            move = Move("play", card=move.card, color=move.color, target=move.target, uno=True)
        events = apply(state, seat, move)
        played += 1
        check_table(state)
        if "hands_swapped" in types(events):
            assert state.uno_owed == -1
        if state.finished:
            break
    return played


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("players", [2, 4, 7])
def test_random_legal_play_with_all_five_rules_keeps_108_cards_and_a_move_to_make(players, seed):
    assert random_play(ALL_FIVE, players, seed, moves=300) > 0


@pytest.mark.parametrize(
    "rules",
    [
        Rules(stacking=True, jump_in=True),
        Rules(seven_o=True, jump_in=True),
        Rules(draw_until_playable=True, force_play=True),
        Rules(stacking=True, force_play=True),
        Rules(seven_o=True, draw_until_playable=True),
    ],
    ids=lambda r: "+".join(name for name, on in r.to_json().items() if on),
)
@pytest.mark.parametrize("seed", range(3))
def test_random_legal_play_with_two_rules_keeps_108_cards_and_a_move_to_make(rules, seed):
    assert random_play(rules, 4, seed, moves=300) > 0
