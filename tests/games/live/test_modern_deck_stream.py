"""A Wild Shuffle Hands on the live stream (docs/api.md, "The 112-card deck"): each
seated reader gets their own new hand and every seat's count, a spectator only the
counts, and nobody another player's new cards."""

from __future__ import annotations

import pytest

from games.engine import GameState
from tests.factories import reload
from tests.games.live.conftest import LiveServer, auth
from tests.games.live.test_stream import Reader
from tests.games.test_modern_deck_api import HOST_SEED, modern_table, play_until_shuffled

pytestmark = pytest.mark.django_db(transaction=True)


def test_no_stream_shows_another_player_s_new_hand_after_a_shuffle_hands(
    live: LiveServer, host, guest, outsider
):
    game_id = modern_table(host, guest)
    readers = {
        seat: Reader(live.stream_url(game_id), auth(persona))
        for seat, persona in ((0, host), (1, guest), (None, outsider))
    }
    for reader in readers.values():
        reader.until_view()
    host.post(f"/games/{game_id}/start", {"client_seed": HOST_SEED})
    play_until_shuffled(game_id, {0: host, 1: guest})
    state = GameState.from_snapshot(reload(game_id).state)
    counts = [len(hand) for hand in state.hands]
    for seat, reader in readers.items():
        shuffled = None
        while shuffled is None:
            events, view = reader.until_view(timeout=15)
            shuffled = next(
                (m.json() for m in events if m.json().get("type") == "hands_shuffled"), None
            )
        reader.close()
        assert shuffled["data"]["counts"] == counts
        if seat is None:
            assert set(shuffled["data"]) == {"counts"}
            assert view["you"] is None
            continue
        assert set(shuffled["data"]) == {"hand", "counts"}
        assert [c["id"] for c in shuffled["data"]["hand"]] == state.hands[seat]
        assert [c["id"] for c in view["you"]["hand"]] == state.hands[seat]
        assert all(set(entry) >= {"card_count"} for entry in view["seats"])
