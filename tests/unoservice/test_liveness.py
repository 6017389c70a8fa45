"""GET /livez (unoservice.liveness): the balancer's check that a process is alive,
answered by the event loop without the database, the broker or a request thread,
and failing only when every request thread has been stuck for `STUCK_SECONDS`."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import pytest

from unoservice import asgi, liveness
from unoservice.wsgi_threads import ThreadedWSGI


def scope(method: str = "GET", host: bytes = b"testserver") -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": liveness.LIVENESS_PATH,
        "raw_path": liveness.LIVENESS_PATH.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", host)],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8000),
    }


def ask(method: str = "GET", host: bytes = b"testserver") -> tuple[int, dict[str, str], bytes]:
    """One request to the ASGI application: its status, headers and body."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(asgi.application(scope(method, host), receive, send))
    start, *bodies = sent
    headers = {name.decode(): value.decode() for name, value in start["headers"]}
    return start["status"], headers, b"".join(m.get("body", b"") for m in bodies)


@pytest.fixture
def stuck_api(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every thread of the API's pool busy, none finished for longer than allowed."""
    monkeypatch.setattr(asgi.api, "busy", asgi.api.threads)
    monkeypatch.setattr(asgi.api, "free_at", time.monotonic() - liveness.STUCK_SECONDS - 5)


def test_livez_says_ok_without_asking_the_database(settings):
    """No `django_db` mark: a query would raise, and the answer would be a 500."""
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    status, headers, body = ask()
    assert (status, json.loads(body)) == (200, {"status": "ok"})
    assert headers["content-type"] == "application/json"
    assert headers["cache-control"] == "no-store"
    assert headers["x-content-type-options"] == "nosniff"


def test_livez_answers_head_with_no_body():
    status, headers, body = ask("HEAD")
    assert (status, body) == (200, b"")
    assert headers["content-length"] == str(len(liveness.ALIVE))


def test_livez_answers_every_probe_of_a_flood_from_one_address():
    """Far past `/healthz`'s limit per address (600 a minute): a balancer probing
    often never trips a limit here."""
    assert {ask()[0] for _ in range(700)} == {200}


def test_livez_refuses_other_methods_with_a_405_naming_get_and_head():
    status, headers, body = ask("POST")
    assert status == 405
    assert headers["allow"] == "GET, HEAD"
    assert json.loads(body)["error"]["code"] == "method_not_allowed"


def test_livez_refuses_a_host_the_service_does_not_serve():
    status, _headers, body = ask(host=b"evil.example")
    assert status == 400
    assert json.loads(body)["error"]["code"] == "invalid_request"


def test_livez_is_a_503_with_retry_after_when_every_request_thread_is_stuck(stuck_api):
    status, headers, body = ask()
    assert status == 503
    assert headers["retry-after"] == "1"
    error = json.loads(body)["error"]
    assert error["code"] == "service_unavailable"
    assert error["details"]["busy_seconds"] >= liveness.STUCK_SECONDS


def test_livez_is_ok_while_the_threads_are_busy_for_less_than_the_limit(monkeypatch):
    monkeypatch.setattr(asgi.api, "busy", asgi.api.threads + 10)
    monkeypatch.setattr(asgi.api, "free_at", time.monotonic() - liveness.STUCK_SECONDS / 2)
    assert ask()[0] == 200


def test_livez_says_ok_when_judging_the_threads_fails(monkeypatch):
    def broken() -> float:
        raise RuntimeError("broken")

    monkeypatch.setattr(asgi.api, "stuck_for", broken)
    assert ask()[0] == 200


def test_a_pool_counts_as_stuck_from_the_moment_its_last_thread_was_taken():
    """One thread, held by a request: stuck for as long as it is held, and not at
    all once it is back."""
    release = threading.Event()

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        release.wait(10)
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"done"]

    async def run() -> list[float]:
        pool = ThreadedWSGI(app, 1)
        seen = [pool.stuck_for()]

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            pass

        request = asyncio.create_task(pool(scope(), receive, send))
        await asyncio.sleep(0.3)
        seen.append(pool.stuck_for())
        release.set()
        await request
        seen.append(pool.stuck_for())
        return seen

    idle, held, back = asyncio.run(run())
    assert idle == 0.0
    assert 0.2 <= held < 5
    assert back == 0.0
