"""Model fields of the games app."""

from __future__ import annotations

import json
from typing import Any

from django.db import models


class OpaqueJSONField(models.TextField[Any, Any]):
    """JSON kept as text. For data SQL never looks inside (the engine snapshot):
    PostgreSQL would parse and re-encode a jsonb value on every write and read."""

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> Any:
        return None if value is None else json.loads(value)

    def to_python(self, value: Any) -> Any:
        return json.loads(value) if isinstance(value, str) else value

    def get_prep_value(self, value: Any) -> str | None:
        return None if value is None else json.dumps(value, separators=(",", ":"))

    def value_to_string(self, obj: models.Model) -> str:
        return self.get_prep_value(self.value_from_object(obj)) or ""
