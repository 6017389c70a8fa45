"""What the table has shown about each hand: true of the real hands whenever players
draw only when nothing fits, and read from what the reading seat may see only."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.bots import STRATEGIES, expert, memory
from games.bots.expert import decision, sampling
from games.engine import (
    Event,
    GameConfig,
    Move,
    Rules,
    apply,
    new_game,
    player_view,
)
from games.engine.cards import BLUE, CODE_OF, COLOR_OF, FACE_OF, IS_WILD, RED
from games.engine.position import build_state, card_in_hand

RULE_SETS = [
    Rules(),
    Rules(draw_until_playable=True),
    Rules(stacking=True),
    Rules(seven_o=True),
    Rules(jump_in=True, force_play=True),
]


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    players=st.integers(2, 6),
    rules=st.sampled_from(RULE_SETS),
    strategy=st.sampled_from(["random", "greedy"]),
)
def test_what_the_table_has_shown_is_true_of_every_real_hand(
    seed: int, players: int, rules: Rules, strategy: str
) -> None:
    rng = random.Random(seed)
    state, history = new_game(GameConfig(players, 0, rules), seed)
    while not state.finished:
        seat = state.to_act
        assert seat is not None
        view = player_view(state, seat, history)
        for other, knowledge in enumerate(
            memory.read(view.history, seat, players, draw_until_playable=rules.draw_until_playable)
        ):
            if other == seat:
                assert knowledge == memory.Knowledge()
                continue
            hand = list(state.hands[other])
            for card in knowledge.known:
                assert card in hand
                hand.remove(card)
            assert sum(1 for card in hand if knowledge.excludes(card)) <= knowledge.fresh
            lacking_earlier = sum(1 for card in hand if knowledge.excludes_older(card))
            assert lacking_earlier <= knowledge.fresh + knowledge.recent
        move = STRATEGIES[strategy](view, rng)
        assert move is not None
        history.extend(apply(state, seat, move))


def test_a_seat_that_draws_holds_nothing_that_fitted() -> None:
    state = build_state([["R1", "G2"], ["B2", "Y2", "G7"], ["B3", "B4"]], top="R5", draw=["G9"])
    history = apply(state, 0, Move("play", card=card_in_hand(state, 0, "R1")))
    history += apply(state, 1, Move("draw"))  # on a red 1: G9 does not fit either
    seen = memory.read(player_view(state, 2, history).history, 2, 3)[1]
    assert seen.fresh == 0
    assert not seen.known
    for card in range(108):
        shown_lacking = seen.excludes(card)
        assert shown_lacking == (IS_WILD[card] or COLOR_OF[card] == RED or FACE_OF[card] == 1)
    assert all(not seen.excludes(card) for card in state.hands[1])


def test_cards_given_as_a_penalty_may_be_anything() -> None:
    state = build_state(
        [["G2", "G+2", "Y3"], ["B1", "Y7", "R7"], ["G4", "B3", "B4"]],
        top="G5",
        draw=["B9", "R1", "R2"],
    )
    history = apply(state, 0, Move("play", card=card_in_hand(state, 0, "G2")))
    history += apply(state, 1, Move("draw"))  # B9 does not fit a green 2 either
    history += apply(state, 2, Move("play", card=card_in_hand(state, 2, "G4")))
    before = memory.read(player_view(state, 0, history).history, 0, 3)[1]
    assert before.fresh == 0
    assert before.excludes(card_in_hand(state, 0, "Y3")) is False
    assert before.excludes(card_in_hand(state, 0, "G+2"))
    history += apply(state, 0, Move("play", card=card_in_hand(state, 0, "G+2"), uno=True))
    after = memory.read(player_view(state, 0, history).history, 0, 3)[1]
    assert after.fresh == 2
    assert len(state.hands[1]) == 6


def test_the_challenger_remembers_the_hand_it_was_shown_until_it_is_played() -> None:
    state = build_state([["W+4", "R1", "G1", "Y5"], ["B5", "B6", "B7"], ["Y1", "Y2"]], top="R2")
    history = apply(state, 0, Move("play", card=card_in_hand(state, 0, "W+4"), color=RED))
    history += apply(state, 1, Move("challenge"))  # guilty: seat 0 draws four
    shown = memory.read(player_view(state, 1, history).history, 1, 3)[0]
    assert sorted(shown.known) == sorted(state.hands[0][:3])
    assert shown.fresh == 4
    assert memory.read(player_view(state, 2, history).history, 2, 3)[0].known == []


def test_an_innocent_wild_draw_four_shows_its_player_lacked_the_colour_before() -> None:
    state = build_state(
        [["W+4", "G1", "Y5"], ["B5", "B6", "B7"], ["R7", "Y1", "Y2"]], top="R2", current=2
    )
    history = apply(state, 2, Move("play", card=card_in_hand(state, 2, "R7")))
    history += apply(state, 0, Move("play", card=card_in_hand(state, 0, "W+4"), color=RED))
    history += apply(state, 1, Move("challenge"))
    onlooker = memory.read(player_view(state, 2, history).history, 2, 3)[0]
    assert onlooker.excludes(card_in_hand(state, 1, "B5")) is False
    assert all(onlooker.excludes(c) for c in range(108) if COLOR_OF[c] == RED)


def test_the_expert_deals_its_worlds_within_what_the_table_has_shown() -> None:
    state = build_state(
        [["R1", "G2", "B2", "Y8"], ["B2", "Y2", "G7", "Y9"], ["B3", "B4", "R3"]],
        top="R5",
        draw=["G9"],
    )
    history = apply(state, 0, Move("play", card=card_in_hand(state, 0, "R1")))
    history += apply(state, 1, Move("draw"))
    history += apply(state, 2, Move("play", card=card_in_hand(state, 2, "R3")))
    view = player_view(state, 0, history)
    limits = expert.hand_limits(view)
    for seed in range(30):
        world = expert.determinize(view, random.Random(seed), limits)
        assert world.card_total() == 108
        assert len(world.hands[1]) == 5
        assert not any(IS_WILD[c] or COLOR_OF[c] == RED or FACE_OF[c] == 1 for c in world.hands[1])


def test_a_wild_draw_four_from_a_hand_shown_to_lack_the_colour_is_known_innocent() -> None:
    state = build_state(
        [["R1", "G2", "G3"], ["Y7", "Y8", "G9"], ["B3", "B4", "B5"]], top="R5", draw=["W+4"]
    )
    history = apply(state, 0, Move("play", card=card_in_hand(state, 0, "R1")))
    history += apply(state, 1, Move("draw"))  # nothing fitted a red 1; the drawn card does
    history += apply(state, 1, Move("play", card=card_in_hand(state, 1, "W+4"), color=RED))
    informed = player_view(state, 2, history)
    limits = expert.hand_limits(informed)
    assert sampling._guilt_posterior(informed, limits[1]) == 0.0
    worlds = [expert.determinize(informed, random.Random(seed), limits) for seed in range(20)]
    assert not any(world.pending is not None and world.pending.guilty for world in worlds)
    # Without the round's events the same hand might have held red.
    assert sampling._guilt_posterior(player_view(state, 2), None) > 0.0


def test_a_wild_may_name_the_colour_the_next_seat_is_known_to_lack() -> None:
    state = build_state(
        [["B1", "W", "R1", "R2", "G3", "G4"], ["R7", "Y8", "G9"], ["B6", "Y3", "Y4"]],
        top="B5",
        draw=["Y2"],
    )
    history = apply(state, 0, Move("play", card=card_in_hand(state, 0, "B1")))
    history += apply(state, 1, Move("draw"))  # nothing blue, no 1, no wild
    history += apply(state, 2, Move("play", card=card_in_hand(state, 2, "B6")))
    view = player_view(state, 0, history)
    wild = card_in_hand(state, 0, "W")
    baseline = Move("play", card=wild, color=RED)
    lacking = decision._lacking_colors(view)
    assert lacking == 1 << BLUE
    candidates = expert.candidate_moves(view, list(view.legal_moves), baseline, lacking)
    assert Move("play", card=wild, color=BLUE) in candidates
    uninformed = expert.candidate_moves(view, list(view.legal_moves), baseline)
    assert Move("play", card=wild, color=BLUE) not in uninformed


def test_cards_held_through_two_draws_lack_what_fitted_either_time() -> None:
    state = build_state(
        [
            ["R1", "B4", "G3", "G5", "R8", "R9", "B7"],
            ["G2", "Y7", "G8", "Y9", "G9", "G7", "Y5"],
            ["B1", "Y3", "Y6", "R2", "R3", "B2", "B3"],
        ],
        top="R5",
        draw=["Y2", "G6"],
    )
    dealt = Event(
        "round_started",
        None,
        {"top_card": state.discard[-1], "current_color": "red", "hands": state.hands},
        state.round,
    )
    history = [dealt]
    history += apply(state, 0, Move("play", card=card_in_hand(state, 0, "R1")))
    history += apply(state, 1, Move("draw"))  # nothing red, no 1: keeps Y2
    history += apply(state, 2, Move("play", card=card_in_hand(state, 2, "B1")))
    history += apply(state, 0, Move("play", card=card_in_hand(state, 0, "B4")))
    history += apply(state, 1, Move("draw"))  # nothing blue, no 4: keeps G6
    view = player_view(state, 2, history)
    seen = memory.of_view(view)[1]
    assert (seen.fresh, seen.recent) == (0, 1)

    def lacks_both_times(card: int) -> bool:
        return not (IS_WILD[card] or COLOR_OF[card] in (RED, BLUE) or FACE_OF[card] in (1, 4))

    assert all(lacks_both_times(c) for c in state.hands[1])
    for seed in range(30):
        world = expert.determinize(view, random.Random(seed), expert.hand_limits(view))
        dealt_hand = world.hands[1]
        assert len(dealt_hand) == 9
        assert sum(1 for c in dealt_hand if lacks_both_times(c)) >= 8
        assert not any(IS_WILD[c] or COLOR_OF[c] == BLUE or FACE_OF[c] == 4 for c in dealt_hand)


def test_a_card_lacked_at_the_earlier_draw_can_only_be_one_of_the_newer_cards() -> None:
    red_seven = next(c for c in range(108) if CODE_OF[c] == "R7")
    red_eight = next(c for c in range(108) if CODE_OF[c] == "R8")
    seen = memory.Knowledge(colors=1 << BLUE | memory.WILD_BIT, older_colors=1 << RED, recent=1)
    memory._played(seen, red_seven, 6, just_drawn=False, until_playable=False)
    assert (seen.recent, seen.older_colors) == (0, 1 << RED)
    # A second red card cannot have come from the cards held through both draws.
    memory._played(seen, red_eight, 5, just_drawn=False, until_playable=False)
    assert (seen.recent, seen.older_colors) == (0, 0)
    assert seen.excludes(next(c for c in range(108) if CODE_OF[c] == "B2"))
