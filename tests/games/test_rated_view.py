"""A game's view and its lobby row say whether it counts for ratings, and why not
(`rated`, `unrated_reason`): as far as can be told while it runs, and once it is
finished what its players' histories say, the repeat limit and an annulment
included."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games.models import Game
from games.ratings import annulment
from tests.factories import Persona, make_persona, start_game
from tests.factories import finish_game as finish
from tests.openapi import component_validator, openapi

pytestmark = pytest.mark.django_db


def said(persona: Persona, game_id: Any) -> dict[str, tuple[bool, str | None]]:
    """What the view, the lobby row and the caller's history say of the game."""
    view = persona.get(f"/games/{game_id}").json()
    component_validator("GameViewOut").validate(view)
    row = next(
        g for g in persona.get("/games", mine="true").json()["results"] if g["id"] == str(game_id)
    )
    history = [
        e for e in persona.get("/players/me/games").json()["results"] if e["game"] == str(game_id)
    ]
    found = {
        "view": (view["rated"], view["unrated_reason"]),
        "row": (row["rated"], row["unrated_reason"]),
    }
    if history:
        found["history"] = (history[0]["rated"], history[0]["unrated_reason"])
    return found


def test_a_game_left_unrated_by_the_repeat_limit_says_so_once_finished(host, guest):
    for seed in range(3):
        finish(start_game(host, guest, seed=seed), winner=0, by=host)
    fourth = start_game(host, guest, seed=9)
    # Until it ends, nothing says it will not count.
    assert set(said(host, fourth.pk).values()) == {(True, None)}
    finish(fourth, winner=0, by=host)
    assert said(host, fourth.pk) == {
        "view": (False, "repeat_opponents"),
        "row": (False, "repeat_opponents"),
        "history": (False, "repeat_opponents"),
    }


def test_a_rated_game_says_rated_and_an_annulled_one_says_annulled(host, guest):
    game = finish(start_game(host, guest, seed=3), winner=0, by=host)
    assert set(said(guest, game.pk).values()) == {(True, None)}
    staff = get_user_model().objects.create_user("ops", is_staff=True)
    annulment.game_rating_annul(game_id=game.pk, by=staff, reason="one person, two accounts")
    assert set(said(guest, game.pk).values()) == {(False, "annulled")}


def test_players_who_joined_from_one_network_see_the_game_unrated_from_the_join(host, guest):
    third = make_persona("Third")
    # Host and Guest in one IPv6 /64, Third elsewhere.
    for persona, address in (
        (host, "2001:db8:1:2::10"),
        (guest, "2001:db8:1:2:ffff::7"),
        (third, "2001:db8:9::1"),
    ):
        persona.client.defaults["REMOTE_ADDR"] = address
    game_id = host.post("/games", {"max_players": 3}).json()["id"]
    assert said(host, game_id)["view"] == (True, None)
    guest.post(f"/games/{game_id}/join")
    assert set(said(host, game_id).values()) == {(False, "same_network")}
    third.post(f"/games/{game_id}/join")
    assert host.post(f"/games/{game_id}/start").status_code == 200
    finish(Game.objects.get(pk=game_id), winner=2, by=third)
    assert set(said(third, game_id).values()) == {(False, "same_network")}
    # Nothing of the addresses is kept, but a keyed digest per player.
    kept = Game.objects.get(pk=game_id).networks
    assert len(set(kept.values())) == 2
    assert "2001:db8" not in str(kept)


def test_the_schema_documents_why_a_game_is_unrated_in_the_view_and_the_lobby():
    schema = openapi()
    for name in ("GameViewOut", "GameSummaryOut"):
        field = schema["components"]["schemas"][name]["properties"]["unrated_reason"]
        assert {"$ref": "#/components/schemas/GameUnratedReason"} in field["oneOf"]
    reasons = schema["components"]["schemas"]["GameUnratedReason"]["enum"]
    assert set(reasons) == {
        "unrated_game",
        "too_few_humans",
        "same_network",
        "repeat_opponents",
        "annulled",
        "abandoned",
    }
    assert "unrated_reason" in schema["paths"]["/api/v1/games/{game_id}"]["get"]["description"]
    assert "unrated_reason" in schema["paths"]["/api/v1/games"]["get"]["description"]
