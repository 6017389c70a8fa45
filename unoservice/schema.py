"""OpenAPI helpers: every endpoint documents the error answers it can give, the bearer
token, the strict request bodies and the headers that come and go with them."""

from __future__ import annotations

import functools
import json
import re
from typing import Any, TypedDict

from drf_spectacular import openapi
from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiSerializerExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, inline_serializer
from rest_framework import serializers

# -- errors --------------------------------------------------------------------------

# The `error.code` values each status carries (docs/api.md, Errors).
ERROR_CODES: dict[int, tuple[str, ...]] = {
    400: ("invalid_request",),
    401: ("not_authenticated", "player_disabled"),
    403: ("forbidden", "credentials_refused", "not_friends", "free_text_off", "talk_muted"),
    404: ("not_found", "provider_off"),
    405: ("method_not_allowed",),
    409: (
        "stale_version",
        "not_your_turn",
        "wrong_phase",
        "game_full",
        "idempotency_key_in_use",
        "too_many_games",
        "too_many_bots",
        "seat_taken_over",
        "too_many_devices",
        "identity_taken",
        "too_many_identities",
        "no_email_linked",
        "too_many_friends",
        "too_many_friend_requests",
        "too_many_blocks",
        "too_many_mutes",
        "already_seated",
        "too_many_invites",
    ),
    415: ("unsupported_media_type",),
    422: ("illegal_move", "idempotency_key_reused", "settings_conflict"),
    429: ("rate_limited", "too_many_streams"),
    500: ("log_corrupt",),
    503: ("service_unavailable",),
}

_DESCRIPTIONS = {
    400: "invalid_request: malformed body or parameters",
    401: "not_authenticated: missing or bad token; player_disabled: an operator disabled "
    "the player",
    403: "forbidden: not seated, not the host, or staff-only; credentials_refused, "
    "not_friends, free_text_off or talk_muted where the operation says",
    404: "not_found: no such game",
    405: "method_not_allowed: the path does not take this method",
    409: "stale_version, not_your_turn, wrong_phase, game_full, idempotency_key_in_use, "
    "too_many_games, too_many_bots, seat_taken_over, too_many_devices, or a cap or "
    "conflict the operation names",
    415: "unsupported_media_type: the body is not application/json",
    422: "illegal_move, idempotency_key_reused or settings_conflict",
    429: "rate_limited: too many requests; wait as many seconds as Retry-After says",
    500: "log_corrupt: the stored log cannot be replayed (the message names the seq)",
    503: "service_unavailable: the database is down; retry after Retry-After seconds",
}


@functools.cache
def error_object(status: int) -> serializers.Serializer[Any]:
    """The `error` member of an answer with this status: its code, message, details."""
    return inline_serializer(
        name=f"ErrorBody{status}",
        fields={
            "code": serializers.ChoiceField(choices=ERROR_CODES[status]),
            "message": serializers.CharField(),
            "details": serializers.DictField(
                help_text="more about the error, e.g. `version` with stale_version, "
                "`seat` and `resume` with seat_taken_over, or `fields` with invalid_request"
            ),
        },
    )


@functools.cache
def _error_serializer(status: int) -> serializers.Serializer[Any]:
    return inline_serializer(name=f"Error{status}", fields={"error": error_object(status)})


def error_responses(*statuses: int, descriptions: dict[int, str] | None = None) -> dict[int, Any]:
    """The documented error answers; 503 applies to every endpoint that uses the database."""
    descriptions = {**_DESCRIPTIONS, **(descriptions or {})}
    return {
        code: OpenApiResponse(response=_error_serializer(code), description=descriptions[code])
        for code in (*statuses, 503)
    }


# -- headers -------------------------------------------------------------------------

RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    {"type": "integer", "minimum": 1},
    OpenApiParameter.HEADER,
    required=True,
    description="seconds to wait before trying again",
    response=[429],
)
RETRY_AFTER_UNAVAILABLE = OpenApiParameter(
    "Retry-After",
    {"type": "integer", "minimum": 1},
    OpenApiParameter.HEADER,
    description="seconds to wait before trying again",
    response=[503],
)
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    {"type": "string", "minLength": 1, "maxLength": 255},
    OpenApiParameter.HEADER,
    description="the same key with the same body gets the first answer again for 24 hours, "
    "without acting twice",
)
IDEMPOTENT_REPLAYED = OpenApiParameter(
    "Idempotent-Replayed",
    {"type": "string", "enum": ["true"]},
    OpenApiParameter.HEADER,
    description="set when the answer is the stored one of an earlier request with this "
    "Idempotency-Key",
    response=True,
)

# Every endpoint: the rate limit and a database that may be down.
COMMON_HEADERS = [RETRY_AFTER, RETRY_AFTER_UNAVAILABLE]
# Every POST: Idempotency-Key in, Idempotent-Replayed out.
IDEMPOTENT_HEADERS = [*COMMON_HEADERS, IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED]

# -- text ----------------------------------------------------------------------------


def _char_class(predicate: Any, *, negate: bool = False, exclude: str = "") -> str:
    """A regex class of the code points below U+10000 for which `predicate` holds, as
    ``\\uXXXX`` escapes (read alike by ECMA-262, Python and Rust regexes)."""
    parts: list[str] = []
    start: int | None = None
    for code in range(0x10001):
        inside = code <= 0xFFFF and predicate(chr(code)) and chr(code) not in exclude
        if inside and start is None:
            start = code
        elif not inside and start is not None:
            end = code - 1
            parts.append(f"\\u{start:04X}" + ("" if start == end else f"-\\u{end:04X}"))
            start = None
    return ("[^" if negate else "[") + "".join(parts) + "]"


@functools.cache
def trimmed_text_pattern(max_length: int) -> str:
    """A pattern for text that is 1-`max_length` characters once the whitespace around
    it (``str.isspace``, all of it below U+10000) is trimmed, with no whitespace but
    plain spaces inside. That the characters are printable (``str.isprintable``) is
    left to the `printable` format: a pattern for it lists hundreds of ranges."""
    space = _char_class(str.isspace)
    edge = _char_class(str.isspace, negate=True)
    inner = _char_class(str.isspace, negate=True, exclude=" ")
    return f"^{space}*{edge}(?:{inner}{{0,{max_length - 2}}}{edge})?{space}*$"


def optional_trimmed_text_pattern(max_length: int) -> str:
    """`trimmed_text_pattern`, or only whitespace (which trims to nothing)."""
    return f"^{_char_class(str.isspace)}*$|{trimmed_text_pattern(max_length)}"


# -- extensions ----------------------------------------------------------------------


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "players.auth.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        scheme = build_bearer_security_scheme_object("Authorization", "Bearer")
        scheme["description"] = "the token of POST /players, as 'Authorization: Bearer <token>'"
        return scheme


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's, but for a view whose DELETE takes a body (`delete_takes_body`:
    deleting an account takes a fresh proof of it): the body is in the schema, as the
    view reads it; and a request serializer whose fields are each optional but whose
    body is not (`body_required`: one of several forms) says it is required."""

    def _get_request_body(self, direction: str = "request") -> Any:
        make: Any = super()._get_request_body
        if self.method != "DELETE" or not getattr(self.view, "delete_takes_body", False):
            body = make(direction)
        else:
            # drf-spectacular documents bodies of PUT, PATCH and POST only.
            self.method = "POST"
            try:
                body = make(direction)
            finally:
                self.method = "DELETE"
        if body and getattr(self.get_request_serializer(), "body_required", False):
            body["required"] = True
        return body


class StrictSerializerScheme(OpenApiSerializerExtension):
    """A strict request body rejects keys it does not know: `additionalProperties: false`."""

    target_class = "unoservice.fields.StrictSerializer"
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        if direction == "request":
            schema["additionalProperties"] = False
        return dict(schema)


# -- postprocessing hooks --------------------------------------------------------------

EXAMPLE_ORIGIN = "https://uno.example.com"
# Path parameters in examples: a real-looking value of each.
EXAMPLE_PATH_VALUES = {
    "player_id": "6f1c2b7e-0d3a-4c59-9b1e-2a7d5c3e8f10",
    "game_id": "c4e2a9d1-7b35-4f08-a6c3-91d0e5b27f44",
}


def _refs(node: Any) -> set[str]:
    """The names of the components `node` refers to directly."""
    if isinstance(node, list):
        return set().union(*(_refs(item) for item in node))
    if not isinstance(node, dict):
        return set()
    if "$ref" in node:
        return {node["$ref"].rsplit("/", 1)[-1]}
    return set().union(*(_refs(value) for value in node.values()))


def defaults_described(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """A postprocessing hook: in request bodies, a field's default is said in its
    description instead of as `default`, which some generators (openapi-typescript)
    read as "always present" and so make the field required to send."""
    schemas = result.get("components", {}).get("schemas", {})
    pending = set()
    for methods in result.get("paths", {}).values():
        for operation in methods.values():
            pending |= _refs(operation.get("requestBody", {}))
    done: set[str] = set()
    while pending:
        name = pending.pop()
        done.add(name)
        schema = schemas.get(name, {})
        for field in schema.get("properties", {}).values():
            if "default" in field:
                default = json.dumps(field.pop("default"))
                said = field.get("description", "")
                field["description"] = f"{said}\n\nDefault: {default}.".lstrip()
        pending |= _refs(schema) - done
    return result


def chosen_bodies_required(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """A postprocessing hook: a request body that is one of several shapes (chosen by
    a discriminator) is required, as a body of one shape with required fields is
    said to be; drf-spectacular says it only of the latter."""
    schemas = result.get("components", {}).get("schemas", {})
    for methods in result.get("paths", {}).values():
        for operation in methods.values():
            body = operation.get("requestBody")
            if not isinstance(body, dict):
                continue
            for media in body.get("content", {}).values():
                names = _refs(media.get("schema", {}))
                if any("discriminator" in schemas.get(name, {}) for name in names):
                    body["required"] = True
    return result


def page_examples(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """A postprocessing hook: the `next` and `previous` links of each list's page read
    that list's own URL (DRF's defaults read `api.example.org/accounts`), in the page's
    schema and in the examples of whole pages."""
    schemas = result.get("components", {}).get("schemas", {})
    for path, methods in result.get("paths", {}).items():
        answer = methods.get("get", {}).get("responses", {}).get("200", {})
        names = _refs(answer.get("content", {}))
        url = EXAMPLE_ORIGIN + re.sub(
            r"{(\w+)}", lambda match: EXAMPLE_PATH_VALUES.get(match[1], match[1]), path
        )
        for name in names:
            links = schemas.get(name, {}).get("properties", {})
            if "next" in links and "previous" in links:
                links["next"]["example"] = f"{url}?page=3"
                links["previous"]["example"] = f"{url}?page=1"
        for media in answer.get("content", {}).values():
            for example in media.get("examples", {}).values():
                page = example.get("value")
                if isinstance(page, dict) and {"next", "previous"} <= page.keys():
                    page["next"], page["previous"] = f"{url}?page=4", f"{url}?page=2"
    return result


# -- words ---------------------------------------------------------------------------


class Described(TypedDict):
    """What an operation says to client developers, kept apart from the view's code
    and given to `extend_schema` as keywords."""

    summary: str
    description: str
