"""GET /healthz."""

import socket
import time

import pytest
from django.test import Client
from kombu.exceptions import OperationalError

from tests.factories import assert_error
from tests.support import free_port
from unoservice import health


@pytest.mark.django_db
def test_healthz_is_200_when_database_and_broker_answer(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"database": "ok", "broker": "ok"}
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_healthz_is_503_naming_the_broker_when_it_is_down(client, monkeypatch):
    def broker_down(url=None):
        raise ConnectionRefusedError("broker down")

    monkeypatch.setattr(health, "check_broker", broker_down)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["database"] == "ok"
    assert body["broker"] == "error"
    assert body["error"]["code"] == "service_unavailable"
    assert "broker" in body["error"]["message"]
    assert body["error"]["details"] == {"database": "ok", "broker": "error"}


@pytest.mark.django_db
def test_healthz_is_503_naming_the_database_when_it_is_down(client, monkeypatch):
    def database_down():
        raise RuntimeError("database down")

    monkeypatch.setattr(health, "check_database", database_down)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"] == "error"
    assert response.json()["broker"] == "ok"


def test_healthz_refuses_writes(client):
    assert client.post("/healthz").status_code == 405


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete", "options"])
def test_healthz_answers_any_other_method_than_get_or_head_with_a_405_in_the_error_shape(method):
    # As a browser would send it: the CSRF check runs, and must not answer first.
    client = Client(enforce_csrf_checks=True)
    response = getattr(client, method)("/healthz", "{}", content_type="application/json")
    assert_error(response, 405, "method_not_allowed")
    assert response["Allow"] == "GET, HEAD"


@pytest.mark.django_db
def test_healthz_answers_head_like_get(client):
    response = client.head("/healthz")
    assert response.status_code == 200
    assert response.content == b""


def test_the_broker_check_fails_fast_when_nothing_listens():
    port = free_port()
    with pytest.raises(OperationalError, match=r"(?i)refused"):
        health.check_broker(f"redis://127.0.0.1:{port}/0")


def test_the_broker_check_gives_up_on_a_server_that_never_answers():
    with socket.socket() as silent:  # accepts connections, never replies
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        started = time.monotonic()
        with pytest.raises(OperationalError, match=r"(?i)timeout"):
            health.check_broker(f"redis://127.0.0.1:{silent.getsockname()[1]}/0")
    assert time.monotonic() - started < health.BROKER_TIMEOUT_SECONDS * 3


@pytest.mark.redis
def test_the_broker_check_passes_against_a_live_redis(redis_url):
    health.check_broker(redis_url)
