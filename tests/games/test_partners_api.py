"""Partners over HTTP (docs/api.md, "Partners"): a table of four, 0 and 2 against 1
and 3, created with `mode: "partners"`; it starts with every seat taken; the view
names each seat's team and, with `partners_see_hands`, shows a player their
partner's hand and nobody else's; the round's and the game's ends name the winning
team; the game is rated by team, both partners moved together; a rematch keeps it."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Game, Result
from players.models import Rating
from tests.factories import Persona, assert_error, footprint, play_out, reload
from unoclient import verify

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rate_limits_off")]


def partners_table(host: Persona, guest: Persona, **settings: Any) -> str:
    """Host (seat 0) and guest (seat 2) against a greedy bot (1) and a random one (3)."""
    body = {"max_players": 4, "mode": "partners", "target_score": 100, **settings}
    created = host.post("/games", body)
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]
    assert host.post(f"/games/{game_id}/bots", {"strategy": "greedy"}).status_code == 201
    assert guest.post(f"/games/{game_id}/join").status_code == 200
    assert host.post(f"/games/{game_id}/bots", {"strategy": "random"}).status_code == 201
    return str(game_id)


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"max_players": 3, "mode": "partners"}, 422, "settings_conflict"),
        ({"max_players": 4, "partners_see_hands": True}, 422, "settings_conflict"),
        ({"max_players": 4, "mode": "teams"}, 400, "invalid_request"),
    ],
)
def test_a_partners_table_that_is_not_one_is_refused(host, body, status, code):
    assert_error(host.post("/games", body), status, code)
    assert Game.objects.count() == 0


def test_a_partners_game_starts_only_with_all_four_seats(host, guest):
    game_id = host.post("/games", {"max_players": 4, "mode": "partners"}).json()["id"]
    guest.post(f"/games/{game_id}/join")
    assert_error(host.post(f"/games/{game_id}/start"), 409, "wrong_phase")


def test_the_view_names_the_teams_and_shows_the_partner_s_hand_when_agreed(host, guest, outsider):
    game_id = partners_table(host, guest, partners_see_hands=True)
    view = host.post(f"/games/{game_id}/start").json()
    assert (view["mode"], view["partners_see_hands"]) == ("partners", True)
    assert [seat["team"] for seat in view["seats"]] == [0, 1, 0, 1]
    game = reload(game_id)
    hands = game.state["hands"]
    assert [c["id"] for c in view["you"]["partner_hand"]] == hands[2]
    theirs = guest.get(f"/games/{game_id}").json()
    assert [c["id"] for c in theirs["you"]["partner_hand"]] == hands[0]
    assert outsider.get(f"/games/{game_id}").json()["you"] is None
    hidden_id = partners_table(host, guest)
    hidden = host.post(f"/games/{hidden_id}/start").json()
    assert hidden["you"]["partner_hand"] is None


def test_a_partners_game_ends_with_a_team_winning_and_is_rated_by_team(host, guest):
    game_id = partners_table(host, guest)
    host.post(f"/games/{game_id}/start")
    game = play_out(reload(game_id), {0: host, 2: guest})
    assert game.status == "finished"
    log = host.get(f"/games/{game_id}/log").json()
    ended = next(e for e in log["events"] if e["type"] == "game_ended")
    team = ended["data"]["team"]
    assert team == ended["seat"] % 2
    scores = ended["data"]["scores"]
    assert (scores[0], scores[1]) == (scores[2], scores[3])
    assert scores[team] >= 100
    for event in log["events"]:
        if event["type"] == "round_ended":
            assert event["data"]["team"] == event["seat"] % 2
    results = {r.seat: r for r in Result.objects.filter(game_id=game_id)}
    assert [results[s].team for s in range(4)] == [0, 1, 0, 1]
    assert [results[s].place for s in range(4)] == [1 if s % 2 == team else 2 for s in range(4)]
    assert all(r.rated for r in results.values())
    moved = [results[s].mu_after - results[s].mu_before for s in (0, 2)]
    # Host and guest are partners: one team result moves both, the same way.
    assert all(change > 0 for change in moved) if team == 0 else all(c < 0 for c in moved)
    for persona in (host, guest):
        assert Rating.objects.get(player=persona.player).games == 1
    # The fair-deal verifier redoes a partners game as the rules scored it.
    said: list[str] = []
    verify.check(log, said.append)
    assert any("final scores" in line for line in said)


def test_a_rematch_of_a_partners_game_is_a_partners_game(host, guest):
    game_id = partners_table(host, guest, partners_see_hands=True)
    host.post(f"/games/{game_id}/start")
    play_out(reload(game_id), {0: host, 2: guest})
    rematch = host.post(f"/games/{game_id}/rematch").json()
    assert (rematch["mode"], rematch["partners_see_hands"]) == ("partners", True)


def test_a_rematch_keeps_the_teams_whatever_order_the_partners_sit_down_in(host, guest):
    game_id = partners_table(host, guest)  # the host at 0, the guest across at 2
    host.post(f"/games/{game_id}/start")
    play_out(reload(game_id), {0: host, 2: guest})
    rematch_id = host.post(f"/games/{game_id}/rematch").json()["id"]
    # The host's rematch seats them and both bots first: the guest comes last, at 3.
    assert guest.post(f"/games/{game_id}/rematch").json()["you"]["seat"] == 3
    started = host.post(f"/games/{rematch_id}/start").json()
    assert started["you"]["seat"] == 0
    assert guest.get(f"/games/{rematch_id}").json()["you"]["seat"] == 2
    types = [e["type"] for e in host.get(f"/games/{rematch_id}/events").json()["events"]]
    assert types.index("seats_arranged") < types.index("game_started")


def test_partners_games_are_counted_apart_in_the_profile_and_won_by_both(host, guest):
    game_id = partners_table(host, guest)
    host.post(f"/games/{game_id}/start")
    game = play_out(reload(game_id), {0: host, 2: guest})
    won = game.winner is not None and game.winner % 2 == 0
    for persona in (host, guest):
        stats = host.get(f"/players/{persona.player.pk}").json()["stats"]
        assert (stats["games_played"], stats["games_won"]) == (0, 0)
        assert stats["partners_games_played"] == 1
        assert stats["partners_games_won"] == int(won)
    greedy = host.get("/players/bot:greedy").json()["stats"]
    assert greedy["partners_games_played"] == 1
    assert greedy["partners_games_won"] == int(not won)


# -- the host seats the teams --------------------------------------------------------


def test_the_host_seats_the_players_in_teams_before_the_start(host, guest, outsider):
    game_id = host.post("/games", {"max_players": 4, "mode": "partners"}).json()["id"]
    guest.post(f"/games/{game_id}/join")
    outsider.post(f"/games/{game_id}/join")
    host.post(f"/games/{game_id}/bots", {"strategy": "greedy"})
    # The order they have changes nothing.
    view = host.post(f"/games/{game_id}/seating", {"order": [0, 1, 2, 3]}).json()
    assert [s["player"]["name"] if s["player"] else s["bot"] for s in view["seats"]] == [
        host.player.name,
        guest.player.name,
        outsider.player.name,
        "greedy",
    ]
    version = view["version"]
    # The guest across from the host, as partners; the outsider with the bot.
    view = host.post(f"/games/{game_id}/seating", {"order": [0, 2, 1, 3]}).json()
    assert view["version"] == version + 1
    names = [s["player"]["name"] if s["player"] else s["bot"] for s in view["seats"]]
    assert names == [host.player.name, outsider.player.name, guest.player.name, "greedy"]
    log = host.get(f"/games/{game_id}/events").json()["events"]
    assert log[-1]["type"] == "seats_arranged"
    assert log[-1]["data"] == {"order": [0, 2, 1, 3]}
    started = host.post(f"/games/{game_id}/start").json()
    assert started["you"]["seat"] == 0
    assert guest.get(f"/games/{game_id}").json()["you"]["seat"] == 2  # the host's partner
    assert outsider.get(f"/games/{game_id}").json()["you"]["seat"] == 1
    state = reload(game_id).state
    assert len(state["hands"][2]) == 7


@pytest.mark.parametrize(
    ("who", "order", "status", "code"),
    [
        ("guest", [1, 0], 403, "forbidden"),
        ("host", [0, 0], 422, "settings_conflict"),
        ("host", [0, 1, 2], 422, "settings_conflict"),
        ("host", [1], 422, "settings_conflict"),
        ("host", "01", 400, "invalid_request"),
    ],
)
def test_only_the_host_arranges_every_seat_taken_once(host, guest, who, order, status, code):
    game_id = host.post("/games", {"max_players": 4}).json()["id"]
    guest.post(f"/games/{game_id}/join")
    before = footprint(game_id)
    persona = {"host": host, "guest": guest}[who]
    assert_error(persona.post(f"/games/{game_id}/seating", {"order": order}), status, code)
    assert footprint(game_id) == before


def test_seats_are_not_arranged_once_the_game_runs(host, guest):
    game_id = host.post("/games", {"max_players": 2}).json()["id"]
    guest.post(f"/games/{game_id}/join")
    host.post(f"/games/{game_id}/start")
    answer = host.post(f"/games/{game_id}/seating", {"order": [1, 0]})
    assert_error(answer, 409, "wrong_phase")
