"""The error hierarchy (`unoservice.errors`) is plain exceptions: services, tasks and
commands raise them without pulling in the web layer or the games."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from unoservice import errors

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_error_hierarchy_loads_no_web_layer_and_no_game() -> None:
    code = "import json, sys, unoservice.errors; print(json.dumps(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    loaded = json.loads(result.stdout)
    forbidden = ("rest_framework", "django.http", "django.views", "games", "players")
    assert [name for name in loaded if name.startswith(forbidden)] == []


def test_every_service_error_has_a_status_and_a_distinct_code() -> None:
    classes = [errors.ServiceError, *errors.ServiceError.__subclasses__()]
    codes = [cls.code for cls in classes if cls is not errors.ServiceError]
    assert len(codes) == len(set(codes))
    assert all(400 <= cls.status < 600 for cls in classes)


def test_an_error_is_answered_with_its_status_the_one_body_shape_and_its_headers() -> None:
    limited = errors.answer(errors.RateLimited("too many", details={"retry_after": 3}))
    assert limited.status == 429
    assert limited.body == {
        "error": {"code": "rate_limited", "message": "too many", "details": {"retry_after": 3}}
    }
    assert limited.headers == {"Retry-After": "3"}
    refused = errors.answer(errors.NotAuthenticated("no token"))
    assert (refused.status, refused.headers) == (401, {"WWW-Authenticate": 'Bearer realm="api"'})
    busy = errors.answer(errors.ServiceUnavailable("busy", retry_after=1))
    assert (busy.status, busy.body["error"]["details"], busy.headers) == (
        503,
        {},
        {"Retry-After": "1"},
    )
    assert errors.answer(errors.NotFound("no such game")).headers == {}


def test_an_answer_makes_text_that_echoes_client_input_encodable() -> None:
    echoed = errors.answer(errors.InvalidRequest("bad \ud800 and \x00", details={"k": "\x00"}))
    message = echoed.body["error"]["message"]
    assert message == "bad ? and \ufffd"
    message.encode("utf-8")
    assert echoed.body["error"]["details"] == {"k": "\ufffd"}
