"""The service's OpenAPI schema as the tests read it: generated once, as the schema
endpoint serves it, and its schemas checked with jsonschema (OpenAPI 3.0 marks a
nullable value with `nullable`, JSON Schema with the null type)."""

from __future__ import annotations

import functools
import json
from typing import Any

from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from jsonschema import Draft202012Validator


@functools.cache
def _served() -> str:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return OpenApiJsonRenderer().render(schema).decode()


def openapi() -> dict[str, Any]:
    """The whole schema, a fresh copy for each caller."""
    return json.loads(_served())  # type: ignore[no-any-return]


def operations() -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path, operation) for every operation of the schema."""
    return [
        (method, path, operation)
        for path, methods in openapi()["paths"].items()
        for method, operation in methods.items()
    ]


def _as_json_schema(node: Any) -> Any:
    """OpenAPI 3.0's `nullable` as JSON Schema says it (jsonschema ignores it)."""
    if isinstance(node, list):
        return [_as_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _as_json_schema(value) for key, value in node.items() if key != "nullable"}
    if node.get("nullable") is True:
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


@functools.cache
def _components() -> dict[str, Any]:
    return _as_json_schema(openapi()["components"]["schemas"])  # type: ignore[no-any-return]


def _inlined(node: Any) -> Any:
    """`node` with every reference replaced by what it refers to (the API's schemas
    do not refer to themselves), which validates much faster than references."""
    if isinstance(node, list):
        return [_inlined(item) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        name = node["$ref"].removeprefix("#/components/schemas/")
        return _inlined(_components()[name])
    return {key: _inlined(value) for key, value in node.items()}


def validator(schema: dict[str, Any]) -> Draft202012Validator:
    """A validator of `schema`, a fragment of the OpenAPI schema whose references
    point into its components."""
    return Draft202012Validator(_inlined(_as_json_schema(schema)))


def component_validator(name: str) -> Draft202012Validator:
    return validator({"$ref": f"#/components/schemas/{name}"})
