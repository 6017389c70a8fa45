"""Partners (docs/rules.md, "Partners"): four seats, 0 and 2 against 1 and 3; a round
ends when either partner goes out, and the team scores what both opponents hold;
partners share one total, and the team that reaches the target wins. With
`partners_see_hands`, each sees the other's hand, and nobody else's."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    DECK_SIZE,
    GameConfig,
    GameState,
    InvalidConfig,
    Move,
    apply,
    hand_points,
    new_game,
    player_view,
    seat_view,
)
from games.engine.position import build_state, card_in_hand
from games.engine.replay import LoggedEvent, replay
from tests.random_games import play_to_the_end


def play(state: GameState, seat: int, code: str) -> list:  # type: ignore[type-arg]
    return apply(
        state, seat, Move.from_json({"action": "play", "card": card_in_hand(state, seat, code)})
    )


@pytest.mark.parametrize(
    ("players", "mode", "see"),
    [(3, "partners", False), (6, "partners", False), (4, "classic", True), (4, "teams", False)],
)
def test_a_partners_table_is_four_seats_and_its_option_needs_it(players, mode, see):
    with pytest.raises(InvalidConfig):
        GameConfig(players, 500, mode=mode, partners_see_hands=see)


def test_the_partners_are_the_seats_across_the_table():
    config = GameConfig(4, mode="partners")
    assert [config.partner_of(seat) for seat in range(4)] == [2, 3, 0, 1]
    assert [config.team_of(seat) for seat in range(4)] == [0, 1, 0, 1]
    assert GameConfig(4).partner_of(0) is None


def test_going_out_scores_both_opponents_hands_for_the_team_and_not_the_partners():
    hands = [["R1", "B9"], ["G5", "Y+2"], ["R7"], ["W", "B3"]]
    state = build_state(hands, top="R5", current=2, mode="partners")
    opponents = hand_points(state.hands[1]) + hand_points(state.hands[3])
    events = play(state, 2, "R7")
    ended = next(e for e in events if e.type == "round_ended")
    assert ended.data["points"] == opponents == 5 + 20 + 50 + 3
    assert ended.data["team"] == 0
    assert ended.data["scores"] == [opponents, 0, opponents, 0]
    assert state.scores == [opponents, 0, opponents, 0]


def test_the_team_that_reaches_the_target_wins_the_game():
    hands = [["R1"], ["G5", "Y9"], ["B2", "B4"], ["W"]]
    state = build_state(
        hands, top="R5", current=0, mode="partners", target_score=100, scores=[40, 60, 40, 60]
    )
    events = play(state, 0, "R1")
    over = next(e for e in events if e.type == "game_ended")
    assert over.data["team"] == 0
    assert over.data["winner"] == 0
    assert over.data["scores"] == [40 + 64, 60, 40 + 64, 60]


def test_partners_see_each_other_s_hand_only_when_the_option_is_on():
    hands = [["R1", "B9"], ["G5"], ["R7", "Y3"], ["W", "B3"]]
    shown = build_state(hands, top="R5", mode="partners", partners_see_hands=True)
    view = seat_view(shown, 0)
    assert [c["code"] for c in view["you"]["partner_hand"]] == ["R7", "Y3"]
    assert [seat["team"] for seat in view["seats"]] == [0, 1, 0, 1]
    assert player_view(shown, 1).partner_hand == tuple(shown.hands[3])
    assert set(shown.hands[2]).isdisjoint(player_view(shown, 0).unseen())
    hidden = build_state(hands, top="R5", mode="partners")
    assert "partner_hand" not in seat_view(hidden, 0)["you"]
    assert player_view(hidden, 0).partner_hand == ()
    assert "partner_hand" not in json.dumps(seat_view(shown, None))


def test_a_partners_snapshot_keeps_the_mode_and_a_classic_one_is_as_before():
    state, _ = new_game(GameConfig(4, 500, mode="partners", partners_see_hands=True), 3)
    snapshot = json.loads(json.dumps(state.to_snapshot()))
    assert (snapshot["mode"], snapshot["partners_see_hands"]) == ("partners", True)
    assert GameState.from_snapshot(snapshot) == state
    classic, _ = new_game(GameConfig(4), 3)
    assert "mode" not in classic.to_snapshot()


@given(seed=st.integers(0, 2**53 - 1), choices=st.integers(0, 2**32), see=st.booleans())
@settings(max_examples=25, deadline=None)
def test_whole_partners_games_keep_every_card_share_team_totals_and_replay(
    seed: int, choices: int, see: bool
) -> None:
    config = GameConfig(4, 200, mode="partners", partners_see_hands=see)
    state, events = new_game(config, seed)

    def holds(state: GameState) -> None:
        assert state.card_total() == DECK_SIZE
        assert state.scores[0] == state.scores[2]
        assert state.scores[1] == state.scores[3]

    events += play_to_the_end(state, random.Random(choices), after_each=holds)
    assert state.finished
    assert state.scores[state.winner] >= 200
    logged = [
        LoggedEvent(n, e.type, e.seat, e.round, json.loads(json.dumps(e.data)))
        for n, e in enumerate(events, start=1)
    ]
    assert replay(config, seed, logged) == state
