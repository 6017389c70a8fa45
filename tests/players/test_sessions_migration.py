"""Upgrading keeps every player signed in: each player's one token becomes their first
session, and works as before."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from rest_framework.test import APIClient

from players.models import PlayerSession, hash_token

BEFORE = [("players", "0006_rating_met")]


def migrate_to(targets: list[tuple[str, str]] | None) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets or executor.loader.graph.leaf_nodes())
    return executor


@pytest.mark.django_db(transaction=True)
def test_every_existing_token_keeps_working_as_the_first_session_of_its_player() -> None:
    executor = migrate_to(BEFORE)
    old_player = executor.loader.project_state(BEFORE).apps.get_model("players", "Player")
    ann = old_player.objects.create(name="Ann", token_hash=hash_token("ann-token"))
    old_player.objects.create(name="Bob", token_hash=hash_token("bob-token"))

    migrate_to(None)

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer ann-token")
    answer = client.get("/api/v1/players/me")
    assert answer.status_code == 200, answer.json()
    assert answer.json()["id"] == str(ann.pk)
    assert PlayerSession.objects.count() == 2
    assert PlayerSession.objects.get(token_hash=hash_token("bob-token")).player.name == "Bob"
