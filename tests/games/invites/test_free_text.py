"""`free_text` on a new game (docs/api.md, "Create"): whether its players may type
free text at the table; on by default among the friends of a private game, off in a
public one and in quick match; shown in the game view, and kept by a rematch."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests.factories import assert_error, stamp_game

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, False),
        ({"visibility": "public"}, False),
        ({"visibility": "private"}, True),
        ({"visibility": "public", "free_text": True}, True),
        ({"visibility": "private", "free_text": False}, False),
    ],
)
def test_free_text_defaults_by_visibility_and_is_in_the_view(host, guest, body, expected):
    created = host.post("/games", body)
    assert created.status_code == 201, created.json()
    assert created.json()["free_text"] is expected
    assert host.get(f"/games/{created.json()['id']}").json()["free_text"] is expected
    if body.get("visibility") != "private":  # a spectator sees it too
        assert guest.get(f"/games/{created.json()['id']}").json()["free_text"] is expected


@pytest.mark.parametrize("value", [None, "true", 1, 0, [], {}])
def test_free_text_must_be_a_boolean(host, value):
    error = assert_error(host.post("/games", {"free_text": value}), 400, "invalid_request")
    assert "free_text" in error["details"]["fields"]


def test_quick_match_games_have_no_free_text(host, guest):
    assert host.post("/matchmaking", {"max_players": 3}).json()["free_text"] is False
    assert guest.post("/matchmaking", {"max_players": 3}).json()["free_text"] is False


def test_free_text_is_refused_by_quick_match(host):
    assert_error(host.post("/matchmaking", {"free_text": True}), 400, "invalid_request")


@pytest.mark.parametrize("free_text", [True, False])
def test_a_rematch_keeps_free_text(host, free_text):
    game = stamp_game(
        host=host.player,
        seats=[host.player, "greedy"],
        status="finished",
        started_at=timezone.now(),
        free_text=free_text,
    )
    assert host.post(f"/games/{game.pk}/rematch").json()["free_text"] is free_text
