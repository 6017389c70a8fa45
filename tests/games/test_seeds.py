"""Who may fix a game's deal (docs/api.md, ``POST /games``): a chosen seed tells its
chooser every hand, so outside development only staff may choose one."""

from __future__ import annotations

import os
from typing import Any

import pytest

from games import services
from games.models import Game
from tests.factories import Persona, assert_error, play_out
from tests.support import settings_with


@pytest.fixture
def production_seeds(settings: Any) -> None:
    settings.CLIENT_SEEDS = False


def round_one_hands(persona: Persona, game_id: str) -> list[list[int]]:
    log = persona.get(f"/games/{game_id}/log").json()
    assert log["complete"] is True
    (dealt,) = [e for e in log["events"] if e["type"] == "round_started"]
    return [
        [card["id"] for card in dealt["data"]["hands"][seat]]
        for seat in sorted(dealt["data"]["hands"])
    ]


def test_a_host_cannot_copy_a_victims_deal_into_a_game_of_their_own(production_seeds, host, guest):
    # The attack: deal game G from seed S against a victim, deal game H from the
    # same S against a bot, abandon H and read every hand of G from H's log.
    attack = {"max_players": 2, "target_score": 0, "seed": 424242}
    refused = host.post("/games", attack)
    assert_error(refused, 403, "forbidden")
    assert "seed" in refused.json()["error"]["message"]
    assert Game.objects.count() == 0

    # Without a chosen seed the two games share nothing the host could read.
    victim_game = host.post("/games", {"max_players": 2, "target_score": 0}).json()["id"]
    guest.post(f"/games/{victim_game}/join")
    host.post(f"/games/{victim_game}/start")
    copy = host.post("/games", {"max_players": 2, "target_score": 0}).json()["id"]
    host.post(f"/games/{copy}/bots", {"strategy": "random"})
    host.post(f"/games/{copy}/start")
    host.post(f"/games/{copy}/leave")  # the only human leaves: abandoned, log complete
    copied_hands = round_one_hands(host, copy)
    victim_hand = [card["id"] for card in guest.get(f"/games/{victim_game}").json()["you"]["hand"]]
    assert victim_hand not in copied_hands
    seeds = set(Game.objects.values_list("seed", flat=True))
    assert len(seeds) == 2


def test_a_seed_is_refused_when_joining_the_attack_from_a_second_account(
    production_seeds, outsider
):
    assert_error(outsider.post("/games", {"seed": 1}), 403, "forbidden")


def test_staff_may_choose_a_seed_to_reproduce_a_deal(production_seeds, staff):
    created = staff.post("/games", {"max_players": 2, "seed": 77})
    assert created.status_code == 201, created.json()
    assert Game.objects.get(pk=created.json()["id"]).seed == 77


def test_any_player_may_choose_a_seed_where_client_seeds_are_on(settings, host):
    settings.CLIENT_SEEDS = True
    created = host.post("/games", {"max_players": 2, "seed": 77})
    assert created.status_code == 201, created.json()
    assert Game.objects.get(pk=created.json()["id"]).seed == 77


def test_bots_draw_their_choices_from_the_games_own_seed(host):
    def bots_play(seed: int) -> list[tuple[Any, ...]]:
        game = services.bot_match_start(
            host=host.player, strategies=["random", "random"], target_score=0, seed=seed
        ).game
        game = play_out(game, {})
        return list(game.events.order_by("seq").values_list("type", "seat", "data"))

    assert bots_play(5) == bots_play(5)
    assert bots_play(5) != bots_play(6)


def client_seeds_when(**env: str) -> bool:
    environment = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "CLIENT_SEEDS")}
    environment.update({"SECRET_KEY": "s" * 50, **env})
    return settings_with(environment, "s.CLIENT_SEEDS")  # type: ignore[no-any-return]


def test_client_seeds_are_off_in_production_and_on_in_development_by_default():
    assert client_seeds_when(DEBUG="false") is False
    assert client_seeds_when(DEBUG="true") is True
    assert client_seeds_when(DEBUG="false", CLIENT_SEEDS="true") is True
