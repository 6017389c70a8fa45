"""The table's log (web/log.js) as Node.js runs it: each event told in one line,
oldest first, and an UNO said with a card told with the card alone; and what a card
left in a hand is worth at a round's end (web/ends.js), as the engine scores it."""

from __future__ import annotations

import json
import subprocess

import pytest

from games.engine import CARDS
from games.engine.scoring import hand_points
from tests.support import ROOT

pytestmark = pytest.mark.node

# Runs `lines` of web/log.js on the events given as JSON, printing what it tells.
TELL = """
import { lines } from "./web/log.js";
const events = JSON.parse(process.argv[1]);
const name = (seat) => ["Ann", "Bot 2"][seat];
console.log(JSON.stringify(lines(events, name).map((l) => l.said)));
"""


def told(events: list[dict[str, object]]) -> list[str]:
    done = subprocess.run(
        ["node", "--input-type=module", "-e", TELL, json.dumps(events)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return list(json.loads(done.stdout))


RED_5 = {"id": 5, "code": "R5", "color": "red", "kind": "number", "number": 5}


def event(seq: int, kind: str, seat: int | None, **data: object) -> dict[str, object]:
    return {"seq": seq, "round": 1, "type": kind, "seat": seat, "data": data}


def test_an_uno_said_with_a_card_is_one_line_and_one_said_alone_is_its_own():
    lines = told(
        [
            event(1, "card_played", 1, card=RED_5, color="red", uno=True),
            event(2, "uno_called", 1),
            event(3, "uno_called", 0),
            event(4, "turn_passed", 0),
        ]
    )
    assert lines == [
        "Bot 2 played Red 5, saying UNO.",
        "Ann said UNO!",
        "Ann passed.",
    ]


def test_the_lines_keep_the_order_of_the_events_and_leave_out_what_tells_nothing():
    lines = told(
        [
            event(1, "cards_drawn", 0, count=2, reason="draw_two"),
            event(2, "game_rated", None, ratings=[]),
            event(3, "player_skipped", 0),
        ]
    )
    assert lines == ["Ann drew 2 cards.", "Ann was skipped."]


WILD_SHUFFLE_HANDS = {
    "id": 108,
    "code": "WSH",
    "color": None,
    "kind": "wild_shuffle_hands",
    "number": None,
}
WILD_CUSTOMIZABLE = {
    "id": 109,
    "code": "WC",
    "color": None,
    "kind": "wild_customizable",
    "number": None,
}
RED_7 = {"id": 8, "code": "R7", "color": "red", "kind": "number", "number": 7}


def test_the_112_card_deck_s_wilds_are_told_with_every_count_and_only_the_reader_s_own_hand():
    lines = told(
        [
            event(1, "card_played", 1, card=WILD_SHUFFLE_HANDS, color="red"),
            event(2, "hands_shuffled", 1, counts=[4, 3], hand=[RED_5, WILD_CUSTOMIZABLE]),
            event(3, "card_played", 0, card=WILD_CUSTOMIZABLE, color="red"),
            event(4, "cards_discarded", 0, cards=[RED_5, RED_7]),
            event(5, "cards_drawn", 1, count=1, reason="wild_customizable"),
            event(6, "hands_shuffled", 0, counts=[2, 3]),  # a spectator's: no hand
        ]
    )
    assert lines == [
        "Bot 2 played Wild Shuffle Hands, colour Red.",
        "Bot 2 shuffled every hand together and dealt them out: Ann 4 cards, Bot 2 3 cards. "
        "Your new hand: Red 5, Wild Customizable.",
        "Ann played Wild Customizable, colour Red.",
        "Ann discarded Red 5, Red 7.",
        "Bot 2 drew 1 card for the Wild Customizable.",
        "Ann shuffled every hand together and dealt them out: Ann 2 cards, Bot 2 3 cards.",
    ]


# Runs `worth` of web/ends.js on every card given as JSON, printing the values.
WORTH = """
import { worth } from "./web/ends.js";
console.log(JSON.stringify(JSON.parse(process.argv[1]).map(worth)));
"""


def test_every_card_of_both_decks_is_worth_at_a_round_s_end_what_the_engine_scores():
    cards = [card.to_json() for card in CARDS]
    done = subprocess.run(
        ["node", "--input-type=module", "-e", WORTH, json.dumps(cards)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert json.loads(done.stdout) == [hand_points([card.id]) for card in CARDS]
