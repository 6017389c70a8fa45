"""The staff's page of closed groups: players whose rated games are mostly among
themselves are listed, and hiding them or annulling their games among themselves is
done from it, through the same services as the other actions on ratings."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from games.models import RatedPair, RatingAnnulment, Result
from games.ratings import groups
from players.models import LeaderboardHiding, Rating
from tests.factories import Persona, make_persona, start_game
from tests.factories import finish_game as finish

pytestmark = pytest.mark.django_db

PAGE = reverse("admin:players_rating_closed_groups")


@pytest.fixture
def ring() -> list[Persona]:
    """Five accounts that play only each other: two rated games per pair."""
    people = [make_persona(f"Ring{n}") for n in range(5)]
    seed = 0
    for i, first in enumerate(people):
        for second in people[i + 1 :]:
            for _ in range(2):
                seed += 1
                finish(start_game(first, second, seed=seed), winner=0, by=first)
    return people


@pytest.fixture
def others(ring: list[Persona]) -> list[Persona]:
    """Four people who play around: each pair once, and once each against a stranger."""
    people = [make_persona(f"Open{n}") for n in range(4)]
    for n, person in enumerate(people):
        finish(start_game(person, people[(n + 1) % 4], seed=100 + n), winner=0, by=person)
        finish(start_game(person, make_persona(f"Stranger{n}"), seed=200 + n), winner=0, by=person)
    return people


def staff(client: Any) -> Any:
    user = get_user_model().objects.create_superuser("ops", "ops@example.com", "pw")
    client.force_login(user)
    return user


def test_a_ring_that_plays_only_itself_is_listed_and_people_who_play_around_are_not(
    client, ring, others
):
    staff(client)
    found = groups.closed_groups()
    assert [sorted(p.name for p in g.members) for g in found] == [[f"Ring{n}" for n in range(5)]]
    assert (len(found[0].games_among), found[0].games_in_all, found[0].share) == (20, 20, 1.0)
    page = client.get(PAGE).content.decode()
    assert all(f"Ring{n}" in page for n in range(5))
    assert "Open0" not in page
    assert "20 of 20 rated games among themselves" in page
    assert PAGE in client.get(reverse("admin:players_rating_changelist")).content.decode()


def test_hiding_a_ring_from_its_page_hides_every_member_with_the_reason(client, ring):
    user = staff(client)
    members = [str(p.player.pk) for p in ring]
    done = client.post(PAGE, {"member": members, "act": "hide", "reason": "a ring of alts"})
    assert done.status_code == 302
    hidings = LeaderboardHiding.objects.filter(hidden=True)
    assert sorted(str(h.player_id) for h in hidings) == sorted(members)
    assert {(h.by, h.reason) for h in hidings} == {(user, "a ring of alts")}


def test_annulling_a_ring_from_its_page_annuls_its_games_among_themselves(client, ring):
    staff(client)
    members = [str(p.player.pk) for p in ring]
    # Without a reason nothing happens.
    client.post(PAGE, {"member": members, "act": "annul", "reason": ""})
    assert not RatingAnnulment.objects.exists()
    done = client.post(PAGE, {"member": members, "act": "annul", "reason": "a ring of alts"})
    assert done.status_code == 302
    assert RatingAnnulment.objects.count() == 20
    assert not Result.objects.filter(rated=True).exists()
    assert not RatedPair.objects.exists()
    assert set(Rating.objects.values_list("games", "opponents_met")) == {(0, 0)}
    assert "No closed group." in client.get(PAGE).content.decode()


def test_a_staff_member_without_the_change_permission_cannot_act(client, ring):
    user = get_user_model().objects.create_user("viewer", is_staff=True)
    client.force_login(user)
    members = [str(p.player.pk) for p in ring]
    answer = client.post(PAGE, {"member": members, "act": "hide", "reason": "x"})
    assert answer.status_code == 403
    assert not LeaderboardHiding.objects.exists()
