"""The OpenAPI schema is valid, generates without a warning, and teaches: every
operation says what it does in words for client developers (never the code's own
notes), its examples are bodies the API accepts, and the answers a request can get
for its media type or its rate are documented where they can happen."""

from __future__ import annotations

import importlib
import inspect
import io
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import resolve

from games.api import common, play, streams
from games.engine.moves import ACTIONS
from games.serializers import ChallengeIn
from tests.factories import API, Persona, assert_error
from tests.openapi import openapi, operations, validator

# Modules whose functions and classes must not be named in the schema's text.
CODE_MODULES = [
    "games.api.common",
    "games.api.lobby",
    "games.api.log",
    "games.api.play",
    "games.api.profiles",
    "games.api.streams",
    "games.bots",
    "games.engine.cards",
    "games.engine.events",
    "games.engine.moves",
    "games.engine.replay",
    "games.engine.rules",
    "games.engine.state",
    "games.engine.views",
    "games.engine.vocabulary",
    "games.event_schema",
    "games.live.access",
    "games.live.channels",
    "games.live.hub",
    "games.live.sse",
    "games.models",
    "games.replay",
    "games.selectors",
    "games.serializers.common",
    "games.serializers.events",
    "games.serializers.lobby",
    "games.serializers.log",
    "games.serializers.moves",
    "games.serializers.view",
    "games.services.common",
    "games.services.lobby",
    "games.services.matching",
    "games.services.play",
    "games.services.saving",
    "games.services.seating",
    "games.services.tickets",
    "games.services.timers",
    "players.api",
    "players.auth",
    "players.push.api",
    "players.push.delivery",
    "players.push.devices",
    "players.push.notification",
    "players.push.preferences",
    "players.push.serializers",
    "players.serializers",
    "players.services",
    "unoservice.errors",
    "unoservice.fields",
    "unoservice.idempotency",
    "unoservice.parsers",
    "unoservice.schema",
    "unoservice.throttling",
]
# What reads as the code's notes rather than as the API's documentation.
INTERNAL_MARKERS = ["``", "Raises", "Rejects keys", ".py", "self.", "docs/", "TODO"]
TEXT_KEYS = {"summary", "description", "title"}


def texts(node: Any, where: str = "") -> Iterator[tuple[str, str]]:
    """(where, text) for every summary, description and title in `node`."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in TEXT_KEYS and isinstance(value, str):
                yield f"{where}.{key}", value
            else:
                yield from texts(value, f"{where}.{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from texts(item, f"{where}[{index}]")


def api_words(node: Any) -> set[str]:
    """Property, parameter and header names and enum values: the API's own words."""
    words: set[str] = set()
    if isinstance(node, dict):
        words |= set(node.get("properties", {}))
        words |= {str(value) for value in node.get("enum", [])}
        if node.get("in") in ("query", "path", "header"):
            words.add(node["name"])
        for value in node.values():
            words |= api_words(value)
    elif isinstance(node, list):
        for item in node:
            words |= api_words(item)
    return words


def code_names() -> set[str]:
    """Names of the code's functions and classes that no reader of English would write:
    with an underscore or in CamelCase."""
    names: set[str] = set()
    for module_name in CODE_MODULES:
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            defined_here = getattr(value, "__module__", None) == module_name
            if defined_here and (inspect.isfunction(value) or inspect.isclass(value)):
                names.add(name.strip("_"))
    return {n for n in names if "_" in n or re.search(r"[a-z][A-Z]", n)}


def test_the_openapi_schema_validates_without_warnings() -> None:
    out = io.StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", stdout=out, stderr=io.StringIO())
    assert "/api/v1/games/{game_id}/moves" in out.getvalue()


def test_every_operation_says_in_a_summary_and_a_description_what_it_does():
    found = operations()
    assert len(found) >= 18
    for method, path, operation in found:
        assert len(operation.get("summary", "")) >= 5, f"{method} {path} has no summary"
        assert len(operation.get("description", "")) >= 60, f"{method} {path} has no description"


def test_no_text_in_the_schema_is_a_note_about_the_code():
    schema = openapi()
    names = code_names() - api_words(schema)
    assert {"move_apply", "GameState", "parse_move", "visible_data"} <= names
    for where, text in texts(schema):
        for marker in INTERNAL_MARKERS:
            assert marker not in text, f"{where}: {text!r}"
        for name in names:
            assert not re.search(rf"\b{re.escape(name)}\b", text), f"{where} names {name}"


def request_examples(path_end: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The request schema of the POST whose path ends so, and its examples' bodies."""
    ((_, _, operation),) = [
        op for op in operations() if op[0] == "post" and op[1].endswith(path_end)
    ]
    content = operation["requestBody"]["content"]["application/json"]
    return content["schema"], [example["value"] for example in content["examples"].values()]


def examples(operation: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], Any]]:
    """(where, schema, value) for every example of a request or response body."""
    bodies = [("request", operation.get("requestBody", {}))]
    bodies += [(f"answer {code}", answer) for code, answer in operation["responses"].items()]
    for where, body in bodies:
        for media in body.get("content", {}).values():
            for name, example in media.get("examples", {}).items():
                yield f"{where} {name}", media["schema"], example["value"]


def test_every_example_fits_the_schema_of_the_body_it_shows():
    checked = 0
    for method, path, operation in operations():
        for where, schema, value in examples(operation):
            errors = [error.message for error in validator(schema).iter_errors(value)]
            assert errors == [], f"{method} {path} {where}: {errors}"
            checked += 1
    assert checked >= 12


def test_the_move_examples_show_every_action_and_the_api_parses_each_of_them():
    _, bodies = request_examples("/moves")
    assert {body["action"] for body in bodies} == ACTIONS
    plays = [body for body in bodies if body["action"] == "play"]
    assert any("color" in body and body.get("uno") for body in plays)
    assert any("target" in body for body in plays)
    for body in bodies:
        version, move = play._parse_move_body(body)
        assert version == body["version"]
        assert move.to_json() == {k: v for k, v in body.items() if k != "version"}


def test_the_challenge_examples_challenge_and_accept_and_the_api_parses_them():
    _, bodies = request_examples("/challenge")
    assert sorted(body["challenge"] for body in bodies) == [False, True]
    for body in bodies:
        assert common.validated(ChallengeIn, body) == body


def concrete(path: str) -> str:
    return path.replace("{game_id}", str(uuid.uuid4()))


@pytest.mark.django_db
def test_an_operation_answers_415_to_a_body_that_is_not_json_exactly_where_documented(
    host: Persona,
):
    for method, path, operation in operations():
        documented = "415" in operation["responses"]
        assert documented == ("requestBody" in operation), f"{method} {path}"
        if method == "post":
            response = host.client.post(concrete(path), "version=1", content_type="text/plain")
            if documented:
                assert_error(response, 415, "unsupported_media_type")
            else:
                assert response.status_code != 415, f"{method} {path}"


def test_every_rate_limited_operation_documents_429_with_retry_after():
    for method, path, operation in operations():
        if not path.startswith(API):
            assert "429" not in operation["responses"], path  # the health check
            continue
        view = resolve(concrete(path)).func.view_class
        # A stream checks its own credentials and counts itself against the limit.
        stream_views = (streams.GameStreamView, streams.LobbyStreamView)
        limited = bool(view().get_throttles()) or view in stream_views
        assert limited, f"{method} {path} is not rate limited"
        assert "Retry-After" in operation["responses"]["429"]["headers"], f"{method} {path}"
