"""The 112-card deck (docs/rules.md, "The 112-card deck"): the classic 108 plus one Wild
Shuffle Hands, which gathers every hand and deals them out again, and three Wild
Customizable, which do what the host chose; both score 40."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    GameConfig,
    GameState,
    InvalidConfig,
    MalformedMove,
    Move,
    apply,
    hand_points,
    legal_moves,
    new_game,
    render,
)
from games.engine.cards import BLUE, CODE_OF, COLOR_OF, GREEN, RED, SHUFFLE_HANDS
from games.engine.events import Event
from games.engine.position import build_state, card_in_hand, hand_codes
from games.engine.replay import LoggedEvent, replay
from games.engine.state import CUSTOM_EFFECTS
from tests.random_games import play_to_the_end

MODERN = {"deck": "modern_112"}


def play(
    state: GameState, seat: int, code: str, color: str | None = None, target: int | None = None
) -> list[Event]:
    body: dict[str, object] = {"action": "play", "card": card_in_hand(state, seat, code)}
    if color is not None:
        body["color"] = color
    if target is not None:
        body["target"] = target
    return apply(state, seat, Move.from_json(body))


def of_type(events: list[Event], kind: str) -> list[Event]:
    return [e for e in events if e.type == kind]


# -- the table's options -------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"deck": "modern_110"},
        {"shuffle_hands_last_card": "wins"},
        {"wild_customizable": "swap_hands"},
        {"deck": "modern_112", "shuffle_hands_last_card": "keep"},
        {"deck": "modern_112", "wild_customizable": "draw_four"},
    ],
)
def test_the_modern_deck_s_options_need_it_and_take_only_their_documented_values(options):
    with pytest.raises(InvalidConfig):
        GameConfig(4, **options)


@pytest.mark.parametrize("players", [2, 5, 10])
def test_a_modern_game_deals_seven_each_from_all_112_cards(players):
    state, _ = new_game(GameConfig(players, **MODERN), "11" * 32, client_seeds=[""] * players)
    assert all(len(hand) == 7 for hand in state.hands)
    cards = [c for hand in state.hands for c in hand] + state.draw_pile + state.discard
    assert sorted(cards) == list(range(112))


def test_a_modern_snapshot_keeps_its_deck_and_options_and_a_classic_one_is_as_before():
    config = GameConfig(
        3, deck="modern_112", shuffle_hands_last_card="wins", wild_customizable="swap_hands"
    )
    state, _ = new_game(config, 7)
    snap = json.loads(json.dumps(state.to_snapshot()))
    assert snap["deck"] == "modern_112"
    assert GameState.from_snapshot(snap).config == config
    assert "deck" not in new_game(GameConfig(3), 7)[0].to_snapshot()


def test_a_card_of_the_modern_deck_is_no_card_at_all_in_a_classic_game():
    state = build_state([["R1", "R2"], ["B1"]], top="R5")
    with pytest.raises(MalformedMove, match="unknown card id 108"):
        apply(state, 0, Move("play", card=SHUFFLE_HANDS, color=RED))


def test_the_new_cards_score_40_each():
    state = build_state([["R1"], ["WSH", "WC", "B3"], ["WC", "W"]], top="R5", **MODERN)
    events = play(state, 0, "R1")
    ended = of_type(events, "round_ended")[0]
    assert ended.data["points"] == 40 + 40 + 3 + 40 + 50
    assert hand_points([SHUFFLE_HANDS]) == 40


# -- Wild Shuffle Hands --------------------------------------------------------------


def test_shuffle_hands_may_be_played_while_other_cards_fit():
    state = build_state([["WSH", "R1", "R2"], ["B1", "B2"]], top="R5", **MODERN)
    plays = {(m.card, m.color) for m in legal_moves(state, 0) if m.action == "play"}
    assert {(SHUFFLE_HANDS, color) for color in range(4)} <= plays


def test_shuffle_hands_gathers_every_hand_and_deals_them_out_from_the_left_one_apart():
    hands = [["R1", "R2"], ["WSH", "G1", "G2", "G3", "G4"], ["B1", "B2", "B3"], ["Y1"]]
    state = build_state(hands, top="R5", current=1, **MODERN)
    before = sorted(c for hand in state.hands for c in hand if c != SHUFFLE_HANDS)
    shuffles = state.shuffles
    events = play(state, 1, "WSH", color="blue")
    shuffled = of_type(events, "hands_shuffled")[0]
    assert shuffled.seat == 1
    # Ten cards among four seats, dealt from seat 2: seats 2 and 3 get the odd ones.
    assert [len(hand) for hand in state.hands] == [2, 2, 3, 3] == shuffled.data["counts"]
    assert shuffled.data["hands"] == state.hands
    assert sorted(c for hand in state.hands for c in hand) == before
    assert state.shuffles == shuffles + 1  # the round's next shuffle did it
    assert state.color == BLUE
    assert state.current == 2  # play goes on to the left of its player


def test_the_new_hands_owe_no_uno_and_close_any_catch_window():
    hands = [["R1", "R2"], ["WSH", "G1"], ["B1", "B2", "B3"]]
    state = build_state(hands, top="R5", current=1, **MODERN)
    state.said_uno = [False, False, True]
    play(state, 1, "WSH", color="green")
    assert state.uno_owed == -1
    assert state.said_uno == [False, False, False]


def test_each_player_reads_only_their_own_new_hand_and_everyone_the_counts():
    hands = [["R1", "R2"], ["WSH", "G1", "G2"], ["B1", "B2", "B3"]]
    state = build_state(hands, top="R5", current=1, **MODERN)
    shuffled = of_type(play(state, 1, "WSH", color="red"), "hands_shuffled")[0]
    for viewer in range(3):
        data = render(shuffled, viewer)["data"]
        assert "hands" not in data
        assert [card["id"] for card in data["hand"]] == state.hands[viewer]
        assert data["counts"] == [len(hand) for hand in state.hands]
    spectator = render(shuffled, None)["data"]
    assert set(spectator) == {"counts"}
    assert render(shuffled, None, complete=True)["data"]["hands"]["0"]


def test_a_last_shuffle_hands_is_dealt_again_by_default_so_its_player_does_not_go_out():
    state = build_state([["WSH"], ["B1", "B2", "B3"], ["G1", "G2"]], top="R5", **MODERN)
    events = play(state, 0, "WSH", color="red")
    assert not of_type(events, "round_ended")
    assert [len(hand) for hand in state.hands] == [1, 2, 2]
    assert state.current == 1


def test_a_last_shuffle_hands_goes_out_when_the_table_chose_wins():
    state = build_state(
        [["WSH"], ["B1", "B2", "B3"], ["G1", "G2"]],
        top="R5",
        shuffle_hands_last_card="wins",
        **MODERN,
    )
    events = play(state, 0, "WSH", color="red")
    assert not of_type(events, "hands_shuffled")
    assert of_type(events, "round_ended")[0].data["points"] == 1 + 2 + 3 + 1 + 2


def test_a_redeal_that_leaves_its_player_no_card_is_going_out():
    # Two seats, one card left to deal: it goes to the other seat, the first to be dealt.
    state = build_state([["WSH"], ["B1"]], top="R5", **MODERN)
    blue_one = card_in_hand(state, 1, "B1")
    events = play(state, 0, "WSH", color="red")
    ended = of_type(events, "round_ended")[0]
    assert (ended.seat, ended.data["hands"]) == (0, [[], [blue_one]])


# -- Wild Customizable ---------------------------------------------------------------


def test_a_plain_customizable_is_a_wild():
    state = build_state([["WC", "R1"], ["B1"], ["G1"]], top="R5", **MODERN)
    events = play(state, 0, "WC", color="green")
    assert [e.type for e in events] == ["card_played"]
    assert (state.color, state.current) == (GREEN, 1)


def test_everyone_draws_one_makes_every_other_seat_draw_in_the_order_of_play():
    state = build_state(
        [["WC", "R1"], ["B1"], ["G1"], ["Y1"]],
        top="R5",
        wild_customizable="everyone_draws_one",
        **MODERN,
    )
    events = play(state, 0, "WC", color="green")
    drawn = of_type(events, "cards_drawn")
    assert [(e.seat, e.data["count"], e.data["reason"]) for e in drawn] == [
        (1, 1, "wild_customizable"),
        (2, 1, "wild_customizable"),
        (3, 1, "wild_customizable"),
    ]
    assert [len(hand) for hand in state.hands] == [1, 2, 2, 2]
    assert state.current == 1  # nobody loses a turn


def test_everyone_draws_one_takes_from_the_draw_pile_only_and_never_reshuffles():
    state = build_state(
        [["WC", "R1"], ["B1"], ["G1"]],
        top="R5",
        discard=["Y3", "Y4"],
        draw=["Y9"],
        rest="none",
        wild_customizable="everyone_draws_one",
        **MODERN,
    )
    events = play(state, 0, "WC", color="green")
    drawn = of_type(events, "cards_drawn")
    assert [(e.seat, e.data["count"]) for e in drawn] == [(1, 1), (2, 0)]
    assert len(state.discard) == 4  # Y3, Y4, R5 and the Wild Customizable stay
    assert state.shuffles == 0


def test_a_last_customizable_that_makes_everyone_draw_still_does_and_scores_it():
    state = build_state(
        [["WC"], ["B1"], ["G1"]],
        top="R5",
        wild_customizable="everyone_draws_one",
        draw=["Y9", "Y8"],
        **MODERN,
    )
    events = play(state, 0, "WC", color="green")
    assert of_type(events, "round_ended")[0].data["points"] == 1 + 9 + 1 + 8


def test_swap_hands_names_a_seat_and_a_colour_and_swaps():
    state = build_state(
        [["WC", "R1"], ["B1", "B2", "B3"], ["G1"]],
        top="R5",
        wild_customizable="swap_hands",
        **MODERN,
    )
    card = card_in_hand(state, 0, "WC")
    plays = [m for m in legal_moves(state, 0) if m.card == card]
    assert {(m.target, m.color) for m in plays} == {(t, c) for t in (1, 2) for c in range(4)}
    with pytest.raises(Exception, match="names the seat"):
        apply(state, 0, Move("play", card=card, color=RED))
    events = play(state, 0, "WC", color="blue", target=1)
    assert of_type(events, "hands_swapped")[0].data == {"with": 1}
    assert hand_codes(state, 0) == ["B1", "B2", "B3"]
    assert hand_codes(state, 1) == ["R1"]
    assert state.current == 1


def test_a_target_on_a_customizable_that_does_not_swap_is_refused():
    state = build_state([["WC", "R1"], ["B1"]], top="R5", **MODERN)
    card = card_in_hand(state, 0, "WC")
    with pytest.raises(Exception, match="only for a 7"):
        apply(state, 0, Move("play", card=card, color=RED, target=1))


def test_discard_color_sheds_every_card_of_the_colour_named_under_the_customizable():
    state = build_state(
        [["WC", "R1", "R2", "B7"], ["B1"]],
        top="G5",
        wild_customizable="discard_color",
        **MODERN,
    )
    events = play(state, 0, "WC", color="red")
    shed = of_type(events, "cards_discarded")[0]
    assert sorted(COLOR_OF[c] for c in shed.data["cards"]) == [RED, RED]
    assert hand_codes(state, 0) == ["B7"]
    assert CODE_OF[state.discard[-1]] == "WC"
    assert state.discard[-3:-1] == shed.data["cards"]
    assert state.uno_owed == 0  # one card left, UNO unsaid: catchable


def test_discarding_the_last_cards_of_a_colour_goes_out():
    state = build_state(
        [["WC", "R1", "R2"], ["B1"]], top="G5", wild_customizable="discard_color", **MODERN
    )
    events = play(state, 0, "WC", color="red")
    assert of_type(events, "round_ended")[0].seat == 0


def test_skip_everyone_skips_every_other_seat_and_its_player_plays_again():
    state = build_state(
        [["B1"], ["WC", "R1"], ["G1"], ["Y1"]],
        top="R5",
        current=1,
        wild_customizable="skip_everyone",
        **MODERN,
    )
    events = play(state, 1, "WC", color="red")
    assert [e.seat for e in of_type(events, "player_skipped")] == [2, 3, 0]
    assert state.current == 1
    assert any(m.action == "play" for m in legal_moves(state, 1))


def test_a_customizable_or_shuffle_hands_turned_up_first_is_a_plain_wild():
    for seed in range(400):
        state, events = new_game(GameConfig(3, **MODERN), seed)
        if state.discard[-1] >= SHUFFLE_HANDS:
            break
    else:
        pytest.fail("no deal turned a modern card up first")
    assert state.pending is not None
    assert state.pending.type == "choose_color"
    assert state.pending.seat == (state.dealer + 1) % 3
    assert not of_type(events, "hands_shuffled")


# -- whole games ---------------------------------------------------------------------


@given(
    seed=st.integers(0, 2**53 - 1),
    choices=st.integers(0, 2**32),
    effect=st.sampled_from(CUSTOM_EFFECTS),
    last=st.sampled_from(["redeal", "wins"]),
    partners=st.booleans(),
)
@settings(max_examples=30, deadline=None)
def test_whole_modern_games_keep_all_112_cards_and_replay_exactly(
    seed: int, choices: int, effect: str, last: str, partners: bool
) -> None:
    config = GameConfig(
        4,
        150,
        mode="partners" if partners else "classic",
        deck="modern_112",
        shuffle_hands_last_card=last,  # type: ignore[arg-type]
        wild_customizable=effect,  # type: ignore[arg-type]
    )
    state, events = new_game(config, seed)

    def holds(state: GameState) -> None:
        assert state.card_total() == 112
        if partners:
            assert state.scores[0] == state.scores[2]
            assert state.scores[1] == state.scores[3]

    events += play_to_the_end(state, random.Random(choices), after_each=holds)
    assert state.finished
    for shuffled in (e for e in events if e.type == "hands_shuffled"):
        counts = shuffled.data["counts"]
        assert max(counts) - min(counts) <= 1
    logged = [
        LoggedEvent(n, e.type, e.seat, e.round, json.loads(json.dumps(e.data)))
        for n, e in enumerate(events, start=1)
    ]
    assert replay(config, seed, logged) == state


def test_random_modern_games_play_every_new_card_and_effect():
    """Played to the end, the deck's new cards all come out: the tests above are not
    about cards that never appear."""
    seen: Counter[str] = Counter()
    for seed, effect in enumerate(CUSTOM_EFFECTS * 4):
        config = GameConfig(4, 0, deck="modern_112", wild_customizable=effect)
        state, events = new_game(config, seed)
        events += play_to_the_end(state, random.Random(seed))
        seen.update(e.type for e in events)
    for kind in ("hands_shuffled", "cards_discarded", "hands_swapped"):
        assert seen[kind] > 0, kind
