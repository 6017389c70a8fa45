"""Request parsing and content negotiation for a JSON-only API."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            # Pathologically nested arrays or objects exhaust the decoder's stack.
            raise ParseError("JSON parse error - nested too deeply") from None


class JSONOnlyNegotiation(DefaultContentNegotiation):
    """Every answer is JSON: skip weighing Accept headers on each request."""

    def select_renderer(
        self,
        request: Request,
        renderers: Iterable[BaseRenderer],
        format_suffix: str | None = None,
    ) -> tuple[BaseRenderer, str]:
        choices = list(renderers)
        if format_suffix or len(choices) > 1:  # e.g. the schema, as YAML or JSON
            chosen: tuple[BaseRenderer, str] = super().select_renderer(
                request, choices, format_suffix
            )
            return chosen
        renderer = choices[0]
        return renderer, renderer.media_type
