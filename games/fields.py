"""Model fields of the games app."""

from __future__ import annotations

from typing import Any

import orjson
from django.db import models


class OpaqueJSONField(models.TextField[Any, Any]):
    """JSON kept as text. For data SQL never looks inside (the engine snapshot):
    PostgreSQL would parse and re-encode a jsonb value on every write and read. Read
    and written by orjson (`unoservice.parsers`): every move writes it and every
    view read reads it."""

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> Any:
        return None if value is None else orjson.loads(value)

    def to_python(self, value: Any) -> Any:
        return orjson.loads(value) if isinstance(value, str) else value

    def get_prep_value(self, value: Any) -> str | None:
        return None if value is None else orjson.dumps(value).decode()

    def value_to_string(self, obj: models.Model) -> str:
        return self.get_prep_value(self.value_from_object(obj)) or ""
