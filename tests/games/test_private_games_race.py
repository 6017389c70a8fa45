"""Two private games created at the same moment draw the same invite code: the
database's partial unique index makes one of them draw again. Real row locks, so
PostgreSQL only."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from games import services
from games.models import Game
from tests.factories import make_persona
from unoservice import codes as invite_codes

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROUNDS = 5


def test_two_creations_racing_to_the_same_code_end_with_two_different_codes(monkeypatch):
    real = invite_codes.new_code
    drawn = threading.local()

    def same_code_first() -> str:
        """Every thread's first draw is the same code; later draws are real."""
        if getattr(drawn, "once", False):
            return real()
        drawn.once = True
        return "RACE2345"

    monkeypatch.setattr(invite_codes, "new_code", same_code_first)
    for _ in range(ROUNDS):
        hosts = [make_persona("A").player, make_persona("B").player]
        barrier = threading.Barrier(len(hosts))
        errors: list[BaseException] = []

        def create(host, barrier=barrier, errors=errors) -> None:
            try:
                drawn.once = False
                barrier.wait(timeout=30)
                services.game_create(host=host, visibility="private")
            except BaseException as error:  # reported in the test's thread
                errors.append(error)
            finally:
                connection.close()

        threads = [threading.Thread(target=create, args=(host,)) for host in hosts]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert not errors, errors
        codes = list(Game.objects.filter(host__in=hosts).values_list("invite_code", flat=True))
        assert len(codes) == 2
        assert len(set(codes)) == 2
        assert "RACE2345" in codes
        Game.objects.filter(host__in=hosts).delete()
