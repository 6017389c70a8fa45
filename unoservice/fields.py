"""Strict JSON serializer fields: a JSON API should not turn ``"5"`` into 5 or
``"yes"`` into true. A wrong type is a 400, as docs/api.md says."""

from __future__ import annotations

import uuid
from typing import Any

from rest_framework import serializers

# The largest integer a double holds exactly, and so the largest the API sends or
# takes: JavaScript, and many JSON parsers elsewhere, read every number as a double.
MAX_EXACT_INTEGER = 2**53 - 1


class StrictIntegerField(serializers.IntegerField):
    def to_internal_value(self, data: Any) -> int:
        if type(data) is not int:
            self.fail("invalid")
        return int(super().to_internal_value(data))


# Far more digits than any count, seq or number of seconds the API takes can have
# (a larger number is simply out of range: a seq past the end, say), and far fewer
# than Python's limit on converting digits to an int, 4,300.
MAX_QUERY_INTEGER_DIGITS = 100


def is_query_integer(data: Any) -> bool:
    """A non-negative integer as a query string writes it: ASCII digits only, at most
    `MAX_QUERY_INTEGER_DIGITS` of them."""
    return (
        isinstance(data, str)
        and 0 < len(data) <= MAX_QUERY_INTEGER_DIGITS
        and data.isascii()
        and data.isdigit()
    )


class QueryIntegerField(serializers.IntegerField):
    """An integer in a query string: ASCII digits only (Python's int() would also
    take Arabic-Indic digits, " 7" or "1_000")."""

    def to_internal_value(self, data: Any) -> int:
        if not is_query_integer(data):
            self.fail("invalid")
        return int(super().to_internal_value(data))


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data: Any) -> bool:
        if type(data) is not bool:
            self.fail("invalid", input=data)
        return data


class StrictCharField(serializers.CharField):
    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class StrictUUIDField(serializers.UUIDField):
    """A UUID as a JSON string (DRF would also take an integer)."""

    def to_internal_value(self, data: Any) -> uuid.UUID:
        if not isinstance(data, str):
            self.fail("invalid", value=data)
        value: uuid.UUID = super().to_internal_value(data)
        return value


class StrictSerializer(serializers.Serializer[Any]):
    """Rejects keys it does not know: a misspelt field must not be silently ignored."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            raise serializers.ValidationError({"non_field_errors": ["expected a JSON object"]})
        unknown = sorted(set(data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError({key: ["unknown field"] for key in unknown})
        return super().to_internal_value(data)
