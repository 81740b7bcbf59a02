"""Strict JSON-schema tools, as pi-ai 1.6's ``api/constrained-sampling.js`` decides and builds
them for APIs whose models support strict mode (Azure's Responses API by default).

A tool asks for strict sampling with ``constrainedSampling: {"type": "json_schema", "strict":
"prefer" | "require"}`` (the built-in tools say ``prefer``). When the API supports strict mode
and the schema fits OpenAI's strict subset, the tool goes out ``strict: true`` with the schema
made strict: every object lists all its properties as ``required`` (an optional one becomes
``anyOf: [<schema>, {"type": "null"}]``) and gets ``additionalProperties: false``. A schema
outside the subset falls back to non-strict under ``prefer`` and is an error under ``require``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

_UNSUPPORTED_KEYS = (
    "$ref",
    "$defs",
    "definitions",
    "allOf",
    "oneOf",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "prefixItems",
    "not",
    "if",
    "then",
    "else",
)


class UnsupportedStrictSchemaError(ValueError):
    """The schema is outside the strict subset (the reason is upstream's text)."""


def _types(schema: Mapping[str, object]) -> list[object]:
    kind = schema.get("type")
    return [kind] if isinstance(kind, str) else list(kind) if isinstance(kind, list) else []


def _is_structured(schema: object) -> bool:
    if not isinstance(schema, dict):
        return False
    types = _types(schema)
    return "object" in types or "array" in types or "properties" in schema or "items" in schema


def _allows_null(schema: object) -> bool:
    if not isinstance(schema, dict):
        return False
    if "null" in _types(schema):
        return True
    if "const" in schema and schema["const"] is None:
        return True
    if isinstance(schema.get("enum"), list) and None in schema["enum"]:
        return True
    variants = schema.get("anyOf")
    return isinstance(variants, list) and any(_allows_null(v) for v in variants)


def _make_strict(schema: object) -> None:
    if not isinstance(schema, dict):
        raise UnsupportedStrictSchemaError("boolean schemas are unsupported")
    for key in _UNSUPPORTED_KEYS:
        if key in schema:
            raise UnsupportedStrictSchemaError(f"{key} schemas are unsupported")
    # OpenAI strict mode rejects nodes without a type; a bare enum counts as typed, a bare const does not.
    if "type" not in schema and "anyOf" not in schema and "enum" not in schema:
        raise UnsupportedStrictSchemaError("schemas without a type are unsupported")
    if "anyOf" in schema:
        variants = schema["anyOf"]
        if not isinstance(variants, list) or not variants:
            raise UnsupportedStrictSchemaError("anyOf must contain at least one schema")
        for variant in variants:
            if _is_structured(variant):
                raise UnsupportedStrictSchemaError("object and array unions are unsupported")
            _make_strict(variant)
    if "items" in schema:
        if isinstance(schema["items"], list):
            raise UnsupportedStrictSchemaError("tuple schemas are unsupported")
        _make_strict(schema["items"])
    is_object = schema.get("type") == "object"
    if "properties" in schema and not is_object:
        raise UnsupportedStrictSchemaError("properties require type object")
    if not is_object:
        return
    if "additionalProperties" in schema and schema["additionalProperties"] is not False:
        raise UnsupportedStrictSchemaError("schema-valued or true additionalProperties is unsupported")
    if "properties" in schema and not isinstance(schema["properties"], dict):
        raise UnsupportedStrictSchemaError("object properties must be a schema map")
    required_list = schema.get("required")
    if "required" in schema and (
        not isinstance(required_list, list) or any(not isinstance(k, str) for k in required_list)
    ):
        raise UnsupportedStrictSchemaError("object required must be a string array")
    properties: dict[str, object] = schema.get("properties") or {}
    required = set(required_list) if isinstance(required_list, list) else set()
    if any(key not in properties for key in required):
        raise UnsupportedStrictSchemaError("required contains an unknown property")
    for key, prop in list(properties.items()):
        _make_strict(prop)
        if key not in required and not _allows_null(prop):
            properties[key] = {"anyOf": [prop, {"type": "null"}]}
    schema["required"] = list(properties)
    schema["additionalProperties"] = False


def make_strict_json_schema(schema: object) -> dict[str, object]:
    """A strict copy of ``schema`` (``makeStrictJsonSchema``); raises UnsupportedStrictSchemaError."""
    cloned = copy.deepcopy(schema)
    if not isinstance(cloned, dict):
        raise UnsupportedStrictSchemaError("root schema must have type object")
    _make_strict(cloned)
    if cloned.get("type") != "object":
        raise UnsupportedStrictSchemaError("root schema must have type object")
    return cloned


def resolve_strict_sampling(tool: Mapping[str, object], supports_strict_mode: bool) -> bool | None:
    """``resolveJsonSchemaStrictSampling``: True to send the tool strict, None to leave it to the
    API's default; a ``require`` tool that cannot be strict raises ValueError."""
    config = tool.get("constrainedSampling")
    if not isinstance(config, dict) or config.get("type") != "json_schema":
        return None
    if supports_strict_mode:
        try:
            make_strict_json_schema(tool.get("parameters"))
            return True
        except UnsupportedStrictSchemaError as exc:
            if config.get("strict") != "require":
                return None
            raise ValueError(
                f'Tool "{tool.get("name")}" requires JSON-schema constrained sampling, but {exc}.'
            ) from exc
    if config.get("strict") == "require":
        raise ValueError(
            f'Tool "{tool.get("name")}" requires JSON-schema constrained sampling, but strict tools are unsupported.'
        )
    return None
