"""Ratings and history over HTTP: a player's profile, their finished games, and the
leaderboard."""

from __future__ import annotations

import uuid

import pytest

from games.models import Game
from players import rating
from players.models import Rating, bot_key
from tests.factories import API, Persona, assert_error, make_persona, start_game
from tests.factories import finish_game as finish
from tests.openapi import component_validator

pytestmark = pytest.mark.django_db

DEFAULT = {"mu": 25.0, "sigma": 25 / 3, "ordinal": 0.0, "games": 0}


def rating_of(persona: Persona) -> dict[str, float | int]:
    row = Rating.objects.get(player=persona.player)
    return {"mu": row.mu, "sigma": row.sigma, "ordinal": row.ordinal, "games": row.games}


def play_rated(winner: Persona, loser: Persona, *, seed: int = 3, **options: object) -> Game:
    return finish(start_game(winner, loser, seed=seed, **options), winner=0, by=winner)


# -- GET /players/{id} ----------------------------------------------------------------


def test_anyone_reads_a_players_profile_with_rating_rank_and_stats(host, guest, outsider):
    play_rated(host, guest)
    body = outsider.get(f"/players/{host.player.pk}").json()
    assert set(body) == {
        "id",
        "name",
        "tag",
        "bot",
        "rating",
        "rank",
        "provisional",
        "opponents",
        "stats",
        "created_at",
    }
    assert (body["id"], body["name"], body["bot"]) == (str(host.player.pk), "Host", None)
    assert body["tag"] == host.player.tag
    assert body["rating"] == rating_of(host)
    assert body["rank"] is None  # one rated game: not on the leaderboard yet
    # Guest had played no rated game before: not an opponent the record counts yet.
    assert (body["provisional"], body["opponents"]) == (True, 0)
    assert body["stats"]["games_played"] == 1
    assert body["stats"]["games_won"] == 1
    assert body["created_at"] == host.player.created_at.isoformat()


def test_a_player_never_rated_has_the_starting_rating(host, guest):
    assert host.get(f"/players/{guest.player.pk}").json()["rating"] == DEFAULT
    assert host.get("/players/me").json()["rating"] == DEFAULT


def test_me_reads_the_callers_own_profile_and_history(host, guest):
    play_rated(host, guest)
    assert host.get("/players/me/games").json()["count"] == 1
    mine = host.get(f"/players/{host.player.pk}").json()
    assert host.get("/players/me").json()["rating"] == mine["rating"]


def test_a_bot_strategy_has_a_profile_of_its_own(host, guest):
    finish(start_game(host, guest, "greedy", "greedy", seed=3), winner=0, by=host)
    body = guest.get("/players/bot:greedy").json()
    assert (body["id"], body["name"], body["bot"], body["created_at"]) == (
        "bot:greedy",
        "greedy",
        "greedy",
        None,
    )
    assert body["rating"]["games"] == 1
    assert body["stats"] == {
        "games_played": 1,
        "games_won": 0,
        "rounds_won": 0,
        "points": 0,
        "partners_games_played": 0,
        "partners_games_won": 0,
    }
    never = guest.get("/players/bot:expert").json()
    assert never["rating"] == DEFAULT


@pytest.mark.parametrize(
    "raw", ["bot:nobody", "nonsense", str(uuid.UUID(int=7)), "bot:", "%20", "me%00"]
)
def test_an_unknown_or_malformed_player_id_is_not_found(host, raw):
    assert_error(host.get(f"/players/{raw}"), 404, "not_found")
    assert_error(host.get(f"/players/{raw}/games"), 404, "not_found")


def test_profiles_need_a_token(anonymous, host):
    assert_error(anonymous.get(f"{API}/players/{host.player.pk}"), 401, "not_authenticated")
    assert_error(anonymous.get(f"{API}/leaderboard"), 401, "not_authenticated")


# -- GET /players/{id}/games ----------------------------------------------------------


def test_a_players_history_lists_finished_games_newest_first_from_their_seat(host, guest):
    first = play_rated(host, guest)
    second = finish(start_game(guest, host, seed=4, rated=False), winner=0, by=guest)
    start_game(host, guest, seed=5)  # running: not in the history
    body = host.get(f"/players/{host.player.pk}/games").json()
    assert (body["count"], body["next"], body["previous"]) == (2, None, None)
    unrated, rated = body["results"]
    assert (unrated["game"], rated["game"]) == (str(second.pk), str(first.pk))
    assert (unrated["place"], unrated["points"]) == (2, 0)
    assert (unrated["rating"], unrated["rating_change"]) == (None, None)
    assert (unrated["rated"], unrated["unrated_reason"]) == (False, "unrated_game")
    assert (rated["rated"], rated["unrated_reason"]) == (True, None)
    assert (rated["place"], rated["points"]) == (1, 9)
    assert rated["rating"]["games"] == 1
    assert rated["rating_change"]["mu"] == pytest.approx(rated["rating"]["mu"] - 25.0)
    assert rated["rating_change"]["ordinal"] > 0
    assert rated["players"] == [
        {
            "seat": 0,
            "player": {"id": str(host.player.pk), "name": "Host", "tag": host.player.tag},
            "bot": None,
            "place": 1,
            "points": 9,
            "forfeited": False,
        },
        {
            "seat": 1,
            "player": {"id": str(guest.player.pk), "name": "Guest", "tag": guest.player.tag},
            "bot": None,
            "place": 2,
            "points": 0,
            "forfeited": False,
        },
    ]


def test_a_private_game_is_in_a_history_only_for_its_players(host, guest, outsider):
    private = play_rated(host, guest, visibility="private")
    play_rated(host, guest, seed=4)
    mine = host.get(f"/players/{host.player.pk}/games").json()
    assert str(private.pk) in [entry["game"] for entry in mine["results"]]
    theirs = outsider.get(f"/players/{host.player.pk}/games").json()
    assert theirs["count"] == 1
    assert str(private.pk) not in [entry["game"] for entry in theirs["results"]]


def test_a_page_past_the_end_or_malformed_is_not_found(host):
    assert_error(host.get("/players/me/games", page=2), 404, "not_found")
    assert_error(host.get("/players/me/games", page="x"), 404, "not_found")
    assert_error(host.get("/leaderboard", page="-1"), 404, "not_found")


# -- GET /leaderboard -------------------------------------------------------------------


def test_the_leaderboard_lists_those_with_five_rated_games_against_three_people(
    host, guest, outsider
):
    fourth, fifth = make_persona("Fourth"), make_persona("Fifth")
    strangers = [make_persona(f"Stranger{n}") for n in range(3)]
    # Outsider, Fourth and Fifth play three games each together, six each, and one
    # against a stranger: from then on each has met three people besides anyone they
    # meet next, and counts as their opponent. Then Host and Guest each win against
    # all three, five games in all.
    games = [
        *[(outsider, fourth)] * 3,
        *[(outsider, fifth)] * 3,
        *[(fourth, fifth)] * 3,
        *zip([outsider, fourth, fifth], strangers, strict=True),
        *[(host, outsider), (host, fourth), (host, fifth), (host, fifth), (host, fourth)],
        *[(guest, outsider), (guest, fourth), (guest, fifth), (guest, fifth), (guest, fifth)],
    ]
    for seed, (winner, loser) in enumerate(games):
        play_rated(winner, loser, seed=seed)
    body = outsider.get("/leaderboard").json()
    assert (body["count"], body["next"], body["previous"]) == (2, None, None)
    first, second = body["results"]
    assert (first["rank"], second["rank"]) == (1, 2)
    assert {first["player"]["id"], second["player"]["id"]} == {
        str(host.player.pk),
        str(guest.player.pk),
    }
    assert first["rating"]["ordinal"] > second["rating"]["ordinal"]
    # Fifth played twelve rated games against five people, but none had met three
    # others besides Fifth when they met: Outsider and Fourth had met each other and
    # Fifth only, Host and Guest had fewer than five rated games.
    assert Rating.objects.get(player=fifth.player).games == 12
    profile = outsider.get(f"/players/{fifth.player.pk}").json()
    assert (profile["rank"], profile["provisional"], profile["opponents"]) == (None, True, 0)
    mine = outsider.get(f"/players/{first['player']['id']}").json()
    assert (mine["rank"], mine["provisional"], mine["opponents"]) == (1, False, 3)


def test_equal_ordinals_share_a_rank_and_bots_are_listed_beside_people(host, guest):
    third = make_persona("Third")
    for persona, strategy in ((host, "greedy"), (guest, "random"), (third, "expert")):
        Rating.objects.create(
            key=str(persona.player.pk),
            player=persona.player,
            mu=30,
            sigma=5,
            ordinal=15,
            games=9,
            opponents_met=3,
        )
        Rating.objects.create(
            key=bot_key(strategy), bot=strategy, mu=20, sigma=4, ordinal=8, games=5, opponents_met=3
        )
    Rating.objects.filter(key=bot_key("expert")).update(ordinal=16)
    ranks = [(e["rank"], e["player"]["name"]) for e in host.get("/leaderboard").json()["results"]]
    assert [rank for rank, _ in ranks] == [1, 2, 2, 2, 5, 5]
    assert ranks[0] == (1, "expert")
    assert {name for _, name in ranks[1:4]} == {"Host", "Guest", "Third"}
    assert {name for _, name in ranks[4:]} == {"greedy", "random"}


def test_the_starting_rating_is_the_models_default():
    fresh = rating.Skill()
    assert (fresh.mu, fresh.sigma, fresh.ordinal) == (25.0, 25 / 3, 0.0)


def test_every_answer_matches_the_published_schema(host, guest):
    for seed in range(5):
        play_rated(host, guest, seed=seed)
    finish(start_game(host, guest, "greedy", seed=7), winner=0, by=host)
    answers = {
        "PlayerMeOut": host.get("/players/me"),
        "PlayerOut": host.get(f"/players/{guest.player.pk}"),
        "PaginatedHistoryEntryOutList": host.get("/players/me/games"),
        "PaginatedLeaderboardEntryOutList": host.get("/leaderboard"),
    }
    answers["PlayerOut "] = host.get("/players/bot:greedy")
    for component, answer in answers.items():
        assert answer.status_code == 200, answer.json()
        component_validator(component.strip()).validate(answer.json())
