"""The JSON body parser, hardened: no input may turn into a 500."""

from __future__ import annotations

from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            # Pathologically nested arrays or objects exhaust the decoder's stack.
            raise ParseError("JSON parse error - nested too deeply") from None
