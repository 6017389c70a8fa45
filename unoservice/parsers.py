"""Request parsing, answer rendering and content negotiation for a JSON-only API.

Bodies are read and answers written with orjson, a compiled codec: on a move and a
view read the standard library's encoder was the largest single cost of the
service's own code (docs/benchmarks.md, "HTTP load"). What orjson would read or
write differently from DRF's codec is left to DRF's, so that nothing a client
sees changes: a body orjson refuses or reads otherwise (a number of 19 digits or
more, NaN, a lone surrogate, nesting past 1,024) is parsed by DRF's parser, with
its own errors; datetimes and anything orjson does not know are encoded by DRF's
encoder; an answer orjson cannot write is rendered by DRF's renderer, as is one a
client asked to have indented.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from django.conf import settings
from rest_framework import parsers, renderers
from rest_framework.exceptions import ParseError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.utils.encoders import JSONEncoder

# What DRF's encoder writes in its own way, or orjson writes where it would not.
_OPTIONS = (
    orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_NON_STR_KEYS
)
# orjson reads an integer past 64 bits as a float, where the standard library keeps it
# whole (a huge version is stale, not malformed): bodies with such digits are DRF's.
_LONG_NUMBER = re.compile(rb"[0-9]{19}")
# U+2028 and U+2029 as UTF-8, and as the escapes DRF writes for them.
_LINE_SEPARATORS = ((b"\xe2\x80\xa8", b"\\u2028"), (b"\xe2\x80\xa9", b"\\u2029"))


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        raw = stream.read() if stream is not None else b""
        encoding = (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET
        if encoding.lower().replace("-", "") == "utf8" and not _LONG_NUMBER.search(raw):
            try:
                return orjson.loads(raw)
            except orjson.JSONDecodeError:
                pass  # DRF's parser decides, with its own error
        try:
            return super().parse(io.BytesIO(raw), media_type, parser_context)
        except RecursionError:
            # Pathologically nested arrays or objects exhaust the decoder's stack.
            raise ParseError("JSON parse error - nested too deeply") from None


class JSONRenderer(renderers.JSONRenderer):
    """DRF's JSON answers, the same bytes, written by orjson."""

    _encoder = JSONEncoder()

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        if data is None or self.get_indent(accepted_media_type or "", renderer_context or {}):
            return bytes(super().render(data, accepted_media_type, renderer_context))
        try:
            rendered = orjson.dumps(data, default=self._encoder.default, option=_OPTIONS)
        except (orjson.JSONEncodeError, TypeError, ValueError):
            return bytes(super().render(data, accepted_media_type, renderer_context))
        # As DRF: the two line separators that JavaScript source may not hold, escaped.
        for raw, escaped in _LINE_SEPARATORS:
            rendered = rendered.replace(raw, escaped)
        return rendered


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
