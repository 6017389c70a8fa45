"""Requests at once between the same players, and requests at once against a cap:
both players' rows are locked in one order, so they are judged one after the other
and never deadlock. Real row locks, so PostgreSQL only."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from players.social import friends
from players.social.models import FriendRequest, Friendship
from tests.factories import Persona, make_persona

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def at_once(*calls: Callable[[], Any]) -> list[Any]:
    """Each call on a thread (and a database connection) of its own, released
    together: their answers."""
    barrier = threading.Barrier(len(calls))
    answers: list[Any] = [None] * len(calls)
    errors: list[BaseException] = []

    def run(n: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=30)
            answers[n] = call()
        except BaseException as error:  # reported in the test's thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(n, c)) for n, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    return answers


def ask(asker: Persona, asked: Persona) -> Callable[[], Any]:
    return lambda: asker.post("/players/me/friend-requests", {"player": str(asked.player.pk)})


def test_two_players_asking_each_other_at_once_become_friends_once():
    for _ in range(5):
        ann, bob = make_persona("Ann"), make_persona("Bob")

        answers = at_once(ask(ann, bob), ask(bob, ann))

        assert sorted(a.status_code for a in answers) == [200, 201]
        assert sorted(a.json()["status"] for a in answers) == ["friends", "requested"]
        assert Friendship.objects.filter(player__in=[ann.player, bob.player]).count() == 2
        assert not FriendRequest.objects.filter(sender__in=[ann.player, bob.player]).exists()


def test_requests_at_once_never_take_a_player_past_the_cap(monkeypatch):
    monkeypatch.setattr(friends, "MAX_FRIENDS", 2)
    popular = make_persona("Popular")
    askers = [make_persona(f"Fan{n}") for n in range(6)]
    for fan in askers:
        assert (
            fan.post("/players/me/friend-requests", {"player": str(popular.player.pk)}).status_code
            == 201
        )

    answers = at_once(
        *[
            (lambda fan=fan: popular.post(f"/players/me/friend-requests/{fan.player.pk}/accept"))
            for fan in askers
        ]
    )

    assert sorted(a.status_code for a in answers) == [200, 200, 409, 409, 409, 409]
    assert Friendship.objects.filter(player=popular.player).count() == 2
