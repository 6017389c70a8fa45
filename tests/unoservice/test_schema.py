"""The OpenAPI schema is valid and generates without a warning."""

from __future__ import annotations

import io

from django.core.management import call_command


def test_the_openapi_schema_validates_without_warnings() -> None:
    out = io.StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", stdout=out, stderr=io.StringIO())
    assert "/api/v1/games/{game_id}/moves" in out.getvalue()
