"""The notifications' payloads: what the services send is what the hub reads back,
and anything else on the channel is ignored (games/services/notify.py)."""

from __future__ import annotations

import uuid

import pytest

from games.services import notify

GAME = uuid.UUID("6f1c2a34-0000-4000-8000-000000000001")
PLAYER = uuid.UUID("6f1c2a34-0000-4000-8000-000000000002")


def test_a_game_change_reads_back_as_its_game_and_seq():
    assert notify.parse_payload(notify.payload(GAME, 17)) == (GAME, 17)


def test_a_seat_reads_back_as_its_player_and_game():
    assert notify.parse_player_payload(notify.player_payload(PLAYER, GAME)) == (str(PLAYER), GAME)
    assert notify.parse_payload(notify.player_payload(PLAYER, GAME)) is None


@pytest.mark.parametrize(
    "payload",
    ["", "player ", f"player {PLAYER}", f"player {PLAYER} not-a-game", f"player  {GAME}", "x 1"],
)
def test_a_malformed_seat_notification_is_ignored(payload):
    assert notify.parse_player_payload(payload) is None


def test_the_update_expression_notifies_the_game_then_each_seated_player():
    calls, params = notify.expression(GAME, 5, seated=[PLAYER, "p2"])
    assert calls.count("pg_notify(%s, %s)") == 3
    assert params == [
        notify.CHANNEL,
        f"{GAME} 5",
        notify.CHANNEL,
        f"player {PLAYER} {GAME}",
        notify.CHANNEL,
        f"player p2 {GAME}",
    ]
    assert notify.expression(GAME, 5) == ("pg_notify(%s, %s)", [notify.CHANNEL, f"{GAME} 5"])
