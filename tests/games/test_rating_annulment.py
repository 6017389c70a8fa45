"""An operator annuls a game's rating: the game stops counting, and the ratings it
moved are computed again from it on, exactly as a recompute of every game from
scratch computes them; through the service and through the games' admin action."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import Event, Game, RatingAnnulment, Result, Seat
from games.ratings import annulment
from games.ratings import writes as results
from players.models import Rating
from tests.factories import Persona, make_persona, start_game
from tests.factories import finish_game as finish
from unoservice.errors import InvalidRequest, WrongPhaseError

pytestmark = pytest.mark.django_db

GAMES = "/admin/games/game/"


def snapshot() -> tuple[dict[str, Any], dict[Any, Any]]:
    """Every rating, and every result's rating columns: what a recomputation writes."""
    ratings = {
        r.key: (r.mu, r.sigma, r.ordinal, r.games, r.opponents, r.opponents_met)
        for r in Rating.objects.all()
    }
    rows = {
        r.pk: (r.rated, r.unrated_reason, r.mu_before, r.sigma_before, r.mu_after, r.games_after)
        for r in Result.objects.all()
    }
    return ratings, rows


@pytest.fixture
def staff_user(db: None) -> Any:
    return get_user_model().objects.create_superuser("ops", "ops@example.com", "pw")


@pytest.fixture
def four(host: Persona, guest: Persona, outsider: Persona) -> list[Persona]:
    return [host, guest, outsider, make_persona("Fourth")]


def play(people: list[Persona], seats: list[int], winner: int, seed: int) -> Game:
    """A rated one-round game of `people[i]` for i in `seats`, won at seat `winner`."""
    table = [people[i] for i in seats]
    game = start_game(table[0], *table[1:], seed=seed)
    return finish(game, winner=winner, by=table[winner])


# -- the service --------------------------------------------------------------------------


def test_annulling_a_game_recomputes_every_later_rating_as_from_scratch(four, staff_user):
    a = four[0]
    first = play(four, [0, 1], 1, seed=1)  # B beats A
    play(four, [1, 2], 0, seed=2)  # B beats C
    play(four, [2, 3], 0, seed=3)  # C beats D: reached through C
    play(four, [0, 3], 0, seed=4)  # A beats D
    done = annulment.game_rating_annul(game_id=first.pk, by=staff_user, reason="B is A's alt")
    assert (done.games_rerated, done.ratings_changed) == (3, 4)
    annulled = snapshot()
    results.recompute()
    assert snapshot() == annulled
    seats = list(Result.objects.filter(game=first))
    assert {(r.rated, r.unrated_reason, r.mu_after) for r in seats} == {(False, "annulled", None)}
    assert Rating.objects.get(player=a.player).games == 1
    record = RatingAnnulment.objects.get(game=first)
    assert (record.by, record.by_username, record.reason) == (staff_user, "ops", "B is A's alt")
    # The log keeps what happened, and the history says what counts now.
    assert Event.objects.filter(game=first, type="game_rated").exists()
    entry = a.get(f"/players/{a.player.pk}/games").json()["results"][-1]
    assert (entry["game"], entry["rated"], entry["unrated_reason"], entry["rating"]) == (
        str(first.pk),
        False,
        "annulled",
        None,
    )


def establish(people: list[Persona]) -> None:
    """Everyone of `people` plays everyone else three rated games, and one against a
    stranger: each has `3 * (len(people) - 1) + 1` rated games after, against
    `len(people)` different humans, enough to count as an opponent for anyone."""
    for i, first in enumerate(people):
        for second in people[i + 1 :]:
            for seed in range(3):
                finish(start_game(first, second, seed=seed), winner=0, by=first)
        stranger = make_persona(f"Stranger{i}")
        finish(start_game(first, stranger, seed=7), winner=0, by=first)


def test_annulling_the_game_that_brought_an_opponent_takes_it_off_the_record(four, staff_user):
    a = four[0]
    establish(four[1:])
    games = [play(four, [0, other], 0, seed=other * 10 + n) for other in (1, 2, 3) for n in (0, 1)]
    assert Rating.objects.get(player=a.player).opponents_met == 3
    annulment.game_rating_annul(game_id=games[4].pk, by=staff_user, reason="bought")
    assert Rating.objects.get(player=a.player).opponents_met == 3  # D was met twice
    annulment.game_rating_annul(game_id=games[5].pk, by=staff_user, reason="bought")
    row = Rating.objects.get(player=a.player)
    assert (row.games, row.opponents_met) == (4, 2)
    assert a.get("/players/me").json()["provisional"] is True


def test_a_game_that_is_not_finished_or_not_rated_or_annulled_already_is_refused(
    host, guest, staff_user
):
    running = start_game(host, guest, seed=1)
    with pytest.raises(WrongPhaseError):
        annulment.game_rating_annul(game_id=running.pk, by=staff_user, reason="x")
    unrated = finish(start_game(host, guest, seed=2, rated=False), winner=0, by=host)
    with pytest.raises(WrongPhaseError):
        annulment.game_rating_annul(game_id=unrated.pk, by=staff_user, reason="x")
    rated = finish(start_game(host, guest, seed=3), winner=0, by=host)
    annulment.game_rating_annul(game_id=rated.pk, by=staff_user, reason="x")
    kept = snapshot()
    with pytest.raises(WrongPhaseError):
        annulment.game_rating_annul(game_id=rated.pk, by=staff_user, reason="again")
    assert snapshot() == kept


def test_an_annulment_needs_a_reason(host, guest, staff_user):
    game = finish(start_game(host, guest, seed=3), winner=0, by=host)
    for blank in ("", "   ", "\x00", "x" * 201):
        with pytest.raises(InvalidRequest):
            annulment.game_rating_annul(game_id=game.pk, by=staff_user, reason=blank)
    assert not RatingAnnulment.objects.exists()
    assert Result.objects.filter(game=game, rated=True).count() == 2


def test_annulling_a_game_that_made_an_opponent_established_takes_them_off_the_record(
    four, staff_user
):
    a, b = four[0], four[1]
    # B's fifth rated game, against a third human, then A meets B, who had five.
    earlier = [play(four, [1, other], 0, seed=other * 10 + n) for other in (2, 3) for n in (0, 1)]
    earlier.append(play([b, make_persona("Fifth")], [0, 1], 0, seed=99))
    play(four, [0, 1], 0, seed=5)
    assert Rating.objects.get(player=a.player).opponents == str(b.player.pk)
    annulment.game_rating_annul(game_id=earlier[0].pk, by=staff_user, reason="bought")
    # B had four rated games before meeting A now: not established yet.
    assert (
        Rating.objects.get(player=a.player).opponents_met,
        a.get("/players/me").json()["opponents"],
    ) == (0, 0)
    annulled = snapshot()
    results.recompute()
    assert snapshot() == annulled


# Games among four players: who sits (two or three of them), who wins.
tables = st.lists(
    st.tuples(
        st.lists(st.integers(0, 3), min_size=2, max_size=3, unique=True),
        st.integers(0, 2),
    ),
    min_size=2,
    max_size=10,
)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(tables, st.data())
def test_any_annulment_leaves_what_a_recompute_from_scratch_leaves(four, staff_user, found, data):
    for model in (RatingAnnulment, Result, Event, Seat, Game, Rating):
        model.objects.all().delete()
    played = [
        play(four, seats, winner % len(seats), seed=n) for n, (seats, winner) in enumerate(found)
    ]
    rated = [g for g in played if Result.objects.filter(game=g, rated=True).exists()]
    chosen = data.draw(st.sampled_from(rated))
    annulment.game_rating_annul(game_id=chosen.pk, by=staff_user, reason="checked")
    annulled = snapshot()
    results.recompute()
    assert snapshot() == annulled


# -- the admin ------------------------------------------------------------------------------


def test_the_games_admin_annuls_a_rating_after_asking_why(client, host, guest, staff_user):
    client.force_login(staff_user)
    game = finish(start_game(host, guest, seed=3), winner=0, by=host)
    chosen = {"action": "annul_ratings", "_selected_action": [str(game.pk)]}
    asked = client.post(GAMES, chosen)
    assert asked.status_code == 200
    page = asked.content.decode()
    assert "Annul these games&#x27; ratings?" in page or "Annul these games' ratings?" in page
    assert 'name="reason"' in page
    assert not RatingAnnulment.objects.exists()
    # Without a reason, the question again; nothing changes.
    again = client.post(GAMES, {**chosen, "apply": "Annul", "reason": ""})
    assert again.status_code == 200
    assert "This field is required." in again.content.decode()
    assert not RatingAnnulment.objects.exists()
    done = client.post(GAMES, {**chosen, "apply": "Annul", "reason": "one account, two players"})
    assert done.status_code == 302
    record = RatingAnnulment.objects.get(game=game)
    assert (record.by, record.reason) == (staff_user, "one account, two players")
    assert not Result.objects.filter(game=game, rated=True).exists()
    assert Rating.objects.get(player=host.player).games == 0
    page = client.get(f"{GAMES}{game.pk}/change/").content.decode()
    assert "annulled by ops" in page
    assert "one account, two players" in page


def test_the_admin_reports_a_game_it_could_not_annul(client, host, guest, staff_user):
    client.force_login(staff_user)
    running = start_game(host, guest, seed=3)
    chosen = {"action": "annul_ratings", "_selected_action": [str(running.pk)]}
    answer = client.post(GAMES, {**chosen, "apply": "Annul", "reason": "r"}, follow=True)
    assert "Refused" in answer.content.decode()
    assert not RatingAnnulment.objects.exists()


def test_a_staff_member_without_the_change_permission_cannot_annul(client, host, guest, db):
    viewer = get_user_model().objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_game"))
    client.force_login(viewer)
    game = finish(start_game(host, guest, seed=3), winner=0, by=host)
    chosen = {"action": "annul_ratings", "_selected_action": [str(game.pk)]}
    client.post(GAMES, {**chosen, "apply": "Annul", "reason": "r"})
    assert not RatingAnnulment.objects.exists()
