"""Asking for a new token with one token many times at once (a double click, a
retry that overtook its request): exactly one request replaces it, and the token it
answers works. Real row locks, so PostgreSQL only."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from tests.factories import make_persona

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

API = "/api/v1"
AT_ONCE = 10


def bearer(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def new_tokens_at_once(token: str) -> list[tuple[int, dict[str, Any]]]:
    """`AT_ONCE` requests for a new token with `token`, each on a thread (and a
    database connection) of its own, released together: their statuses and bodies."""
    barrier = threading.Barrier(AT_ONCE)
    answers: list[tuple[int, dict[str, Any]]] = []
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            client = bearer(token)
            barrier.wait(timeout=30)
            answer = client.post(f"{API}/players/me/token")
            answers.append((answer.status_code, json.loads(answer.content)))
        except BaseException as error:  # reported in the test's thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=ask) for _ in range(AT_ONCE)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    return answers


def test_ten_new_tokens_asked_at_once_with_one_token_give_one_that_works():
    host = make_persona("Host")
    answers = new_tokens_at_once(host.token)
    assert len(answers) == AT_ONCE
    granted = [body for status, body in answers if status == 200]
    assert len(granted) == 1
    refused = [body for status, body in answers if status != 200]
    assert {status for status, _ in answers if status != 200} == {401}
    assert {body["error"]["code"] for body in refused} == {"not_authenticated"}
    me = bearer(granted[0]["token"]).get(f"{API}/players/me")
    assert me.status_code == 200
    assert me.json()["id"] == str(host.player.pk)
    assert bearer(host.token).get(f"{API}/players/me").status_code == 401
