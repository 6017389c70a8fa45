"""GET /healthz: the database and the broker, a worker's ping, beat's last sweep and
each queue's last heartbeat."""

import datetime as dt
import os
import socket
import time
from typing import Any

import pytest
import time_machine
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from kombu.exceptions import OperationalError

from games import tasks
from games.models import Heartbeat
from tests.conftest import configured_redis_url
from tests.factories import assert_error
from tests.support import free_port, run_python
from unoservice import health
from unoservice.throttling import AnonymousRateThrottle, HealthRateThrottle

PONG = [{"celery@test": {"ok": "pong"}}]


class FakePing:
    """Celery's control ping: the workers' answers (empty for none, or an exception to
    raise), and the calls made."""

    def __init__(self) -> None:
        self.answer: list[dict[str, dict[str, str]]] | Exception = PONG
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **kwargs: Any) -> list[dict[str, dict[str, str]]]:
        self.calls.append(kwargs)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.fixture
def pings(monkeypatch) -> FakePing:
    fake = FakePing()
    monkeypatch.setattr(health.celery_app.control, "ping", fake)
    return fake


def swept(seconds_ago: float) -> None:
    """The sweep beat sends, run by a worker `seconds_ago`."""
    with time_machine.travel(timezone.now() - dt.timedelta(seconds=seconds_ago), tick=False):
        tasks.sweep_overdue()


def heard(queue: str, seconds_ago: float) -> None:
    """The heartbeat beat sends into `queue`, run by its worker `seconds_ago`."""
    with time_machine.travel(timezone.now() - dt.timedelta(seconds=seconds_ago), tick=False):
        tasks.heartbeat(queue)


@pytest.fixture
def queues_heard(db, settings) -> None:
    for queue in settings.SERVICE_QUEUES:
        heard(queue, seconds_ago=1)


@pytest.mark.django_db
def test_healthz_is_ok_when_the_database_and_broker_answer_a_worker_pings_back_and_beat_swept(
    client, pings, queues_heard
):
    swept(seconds_ago=1)
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    age = body.pop("last_sweep_age_seconds")
    assert body == {
        "status": "ok",
        "database": "ok",
        "broker": "ok",
        "worker": "ok",
        "beat": "ok",
        "queues": {"celery": "ok", "push": "ok"},
    }
    assert 1.0 <= age < 3.0
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_a_worker_that_does_not_answer_the_ping_leaves_the_service_degraded_but_up(client, pings):
    swept(seconds_ago=0)
    pings.answer = []
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["worker"] == "down"
    assert (body["database"], body["broker"], body["beat"]) == ("ok", "ok", "ok")


@pytest.mark.django_db
def test_a_ping_that_fails_counts_as_a_worker_down(client, pings):
    swept(seconds_ago=0)
    pings.answer = OperationalError("connection lost")
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["worker"] == "down"
    assert response.json()["status"] == "degraded"


@pytest.mark.django_db
def test_the_ping_waits_a_second_at_most_and_stops_at_the_first_answer(client, pings):
    client.get("/healthz")
    [call] = pings.calls
    assert (call["timeout"], call["limit"]) == (1.0, 1)
    assert call["connection"] is not None  # its own, not one of the pool (see below)


@pytest.mark.django_db
def test_the_workers_answer_is_kept_a_few_seconds_so_that_polling_does_not_ping_each_time(
    client, pings
):
    for _ in range(5):
        assert client.get("/healthz").json()["worker"] == "ok"
    assert len(pings.calls) == 1
    pings.answer = []
    later = time.time() + health.WORKER_ANSWER_CACHE_SECONDS + 1
    with time_machine.travel(later, tick=False):
        assert client.get("/healthz").json()["worker"] == "down"
    assert len(pings.calls) == 2


@pytest.mark.django_db
def test_beat_is_down_when_the_last_sweep_is_older_than_a_few_intervals(client, pings, settings):
    settings.TURN_SWEEP_SECONDS = 2.0
    swept(seconds_ago=60)
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["beat"] == "down"
    assert 60.0 <= body["last_sweep_age_seconds"] < 62.0
    assert body["worker"] == "ok"


@pytest.mark.django_db
def test_beat_is_ok_up_to_five_sweep_intervals_after_the_last_sweep(client, pings, settings):
    settings.TURN_SWEEP_SECONDS = 2.0
    swept(seconds_ago=8)
    assert client.get("/healthz").json()["beat"] == "ok"
    swept(seconds_ago=11)
    health.last_answer.forget()  # else the answer of a second ago, kept
    assert client.get("/healthz").json()["beat"] == "down"


@pytest.mark.django_db
def test_beat_is_down_when_no_sweep_ever_ran(client, pings):
    body = client.get("/healthz").json()
    assert body["beat"] == "down"
    assert body["last_sweep_age_seconds"] is None
    assert body["status"] == "degraded"


@pytest.mark.django_db
def test_every_sweep_records_when_it_ran(pings):
    swept(seconds_ago=30)
    first = Heartbeat.objects.get(name=Heartbeat.SWEEP).at
    tasks.sweep_overdue()
    assert Heartbeat.objects.get(name=Heartbeat.SWEEP).at - first >= dt.timedelta(seconds=30)
    assert Heartbeat.objects.count() == 1


@pytest.mark.django_db
def test_healthz_is_503_naming_the_broker_when_it_is_down_without_pinging_the_workers(
    client, monkeypatch, pings
):
    def broker_down(url=None):
        raise ConnectionRefusedError("broker down")

    monkeypatch.setattr(health, "check_broker", broker_down)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["database"] == "ok"
    assert body["broker"] == "error"
    assert body["worker"] == "unknown"
    assert body["error"]["code"] == "service_unavailable"
    assert "broker" in body["error"]["message"]
    assert body["error"]["details"] == {"database": "ok", "broker": "error"}
    assert pings.calls == []


@pytest.mark.django_db
def test_healthz_is_503_naming_the_database_when_it_is_down(client, monkeypatch, pings):
    def database_down():
        raise RuntimeError("database down")

    monkeypatch.setattr(health, "check_database", database_down)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["database"] == "error"
    assert body["broker"] == "ok"
    assert body["worker"] == "ok"  # the API cannot serve, whatever the worker does
    assert (body["beat"], body["last_sweep_age_seconds"]) == ("unknown", None)
    assert body["error"]["details"] == {"database": "error", "broker": "ok"}


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
def test_healthz_answers_head_like_get(client, pings):
    response = client.head("/healthz")
    assert response.status_code == 200
    assert response.content == b""


@pytest.mark.django_db
def test_healthz_needs_no_token_and_is_not_limited_by_the_sign_up_rate(client, pings, monkeypatch):
    monkeypatch.setattr(AnonymousRateThrottle, "rate", "1/min", raising=False)
    assert client.post("/api/v1/players", {"name": "Ann"}, "application/json").status_code == 201
    answers = [client.get("/healthz").status_code for _ in range(3)]
    assert answers == [200, 200, 200]


def test_the_openapi_schema_documents_the_health_answers():
    schema = Client().get("/api/v1/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/healthz"]["get"]
    assert "security" not in operation  # no token, as for signing up
    ok = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    down = operation["responses"]["503"]["content"]["application/json"]["schema"]["$ref"]
    components = schema["components"]["schemas"]
    for ref in (ok, down):
        fields = components[ref.rsplit("/", 1)[1]]["properties"]
        assert {"status", "database", "broker", "worker", "beat", "last_sweep_age_seconds"} <= set(
            fields
        )
    assert "error" in components[down.rsplit("/", 1)[1]]["properties"]


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


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.worker
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_and_beat_make_healthz_ok_and_a_killed_worker_leaves_it_degraded(
    client, celery_processes, settings
):
    settings.QUEUE_HEARTBEAT_SECONDS = 1.0
    procs = celery_processes(0.0, env={"QUEUE_HEARTBEAT_SECONDS": "1.0"})

    def answer() -> dict[str, object]:
        cache.clear()  # no answer kept from the poll before
        response = client.get("/healthz")
        assert response.status_code == 200, response.content
        return response.json()

    procs.wait_until(lambda: answer()["status"] == "ok", "the worker and beat to show", 60)
    # The push queue's worker stuck or gone: the other worker still answers pings.
    procs.kill_worker("push-worker")
    procs.wait_until(lambda: answer()["queues"]["push"] == "down", "the push queue down", 30)
    assert (answer()["worker"], answer()["queues"]["celery"]) == ("ok", "ok")
    procs.kill_worker()
    procs.wait_until(lambda: answer()["worker"] == "down", "the killed worker to be down", 30)
    assert answer()["status"] == "degraded"


FORK_AFTER_PING = """
import django; django.setup()
from concurrent.futures import ProcessPoolExecutor
from unoservice import health
health.worker_answers()
with ProcessPoolExecutor(2) as pool:
    print(sum(pool.map(abs, [-1, -2, -3])))
"""


@pytest.mark.redis
def test_a_process_forked_after_the_worker_ping_starts_and_ends() -> None:
    """A ping over Redis left on a pooled connection made every process forked later
    (a ladder's pool of bot players, say) hang at its start, closing that connection."""
    env = {**os.environ, "CELERY_BROKER_URL": str(configured_redis_url())}
    done = run_python("-c", FORK_AFTER_PING, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "6"


@pytest.mark.django_db
def test_a_flood_of_health_checks_costs_one_round_of_checks_a_second(client, pings, monkeypatch):
    connections = []
    monkeypatch.setattr(health, "check_broker", lambda: connections.append(1))
    for _ in range(50):
        assert client.get("/healthz").status_code == 200
    assert len(connections) == 1
    with time_machine.travel(time.time() + health.ANSWER_SECONDS + 0.5, tick=False):
        assert client.get("/healthz").status_code == 200
    assert len(connections) == 2


@pytest.mark.django_db
def test_one_address_flooding_health_checks_is_limited_and_others_are_not(
    client, pings, monkeypatch
):
    monkeypatch.setattr(HealthRateThrottle, "rate", "5/min", raising=False)
    answers = [client.get("/healthz", REMOTE_ADDR="10.1.1.1") for _ in range(7)]
    assert [answer.status_code for answer in answers] == [200] * 5 + [429] * 2
    refused = answers[-1]
    assert refused.json()["error"]["code"] == "rate_limited"
    assert int(refused["Retry-After"]) >= 1
    assert client.get("/healthz", REMOTE_ADDR="10.1.1.2").status_code == 200
