"""OpenAPI helpers: every endpoint documents the error answers it can give."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

ErrorOut = inline_serializer(
    name="Error",
    fields={
        "error": inline_serializer(
            name="ErrorBody",
            fields={
                "code": serializers.CharField(),
                "message": serializers.CharField(),
                "details": serializers.DictField(),
            },
        )
    },
)

_DESCRIPTIONS = {
    400: "invalid_request: malformed body or parameters",
    401: "not_authenticated: missing or bad token",
    403: "forbidden: not seated, not the host, or staff-only",
    404: "not_found: no such game",
    409: "stale_version, not_your_turn, wrong_phase, game_full or idempotency_key_in_use",
    422: "illegal_move or idempotency_key_reused",
    429: "rate_limited (see Retry-After)",
    503: "service_unavailable: the database is down",
}


def error_responses(*statuses: int) -> dict[int, Any]:
    """The documented error answers; 503 applies to every endpoint that uses the database."""
    return {
        code: OpenApiResponse(response=ErrorOut, description=_DESCRIPTIONS[code])
        for code in (*statuses, 503)
    }
