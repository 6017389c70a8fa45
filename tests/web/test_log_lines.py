"""The table's log (web/log.js) as Node.js runs it: each event told in one line,
oldest first, and an UNO said with a card told with the card alone."""

from __future__ import annotations

import json
import subprocess

import pytest

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
