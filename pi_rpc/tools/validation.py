"""Tool-argument preparation, coercion and validation with upstream's error text.

``validate_tool_arguments(tool, args)`` runs the tool's ``prepare_arguments`` hook (if any),
drops ``null`` values of optional properties, converts loose values the way upstream's
TypeBox ``Value.Convert`` does (``"5"`` -> 5, ``"true"`` -> True, 5 -> ``"5"`` ...), validates
against the tool's JSON schema and returns the converted copy. On failure it raises
``ToolArgumentsError`` whose message is upstream's exact text::

    Validation failed for tool "bash":
      - command: missing

    Received arguments:
    {
      "wrong": 1
    }
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any

from pi_rpc.tools._js import js_number, js_stringify


class ToolArgumentsError(Exception):
    """Arguments failed validation; ``str(exc)`` is the tool-result text."""


_NUMERIC_TYPES = (int, float)


def _schema_types(schema: Mapping[str, object]) -> list[str]:
    t = schema.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list):
        return [x for x in t if isinstance(x, str)]
    return []


def _matches(value: object, type_name: str) -> bool:
    if type_name == "string":
        return isinstance(value, str)
    if type_name == "number":
        return isinstance(value, _NUMERIC_TYPES) and not isinstance(value, bool)
    if type_name == "integer":
        return (
            isinstance(value, _NUMERIC_TYPES)
            and not isinstance(value, bool)
            and math.isfinite(value)
            and float(value).is_integer()
        )
    if type_name == "boolean":
        return isinstance(value, bool)
    if type_name == "null":
        return value is None
    if type_name == "array":
        return isinstance(value, list)
    if type_name == "object":
        return isinstance(value, dict)
    return False


def _parse_number(text: str) -> float | int | None:
    stripped = text.strip()
    if not stripped:
        return None
    try:
        num = float(stripped)
    except ValueError:
        return None
    if not math.isfinite(num):
        return None
    return int(num) if num.is_integer() and "e" not in stripped.lower() and "." not in stripped else num


def _convert_primitive(value: object, type_name: str) -> object:
    if type_name in ("number", "integer"):
        if isinstance(value, str):
            num = _parse_number(value)
            if num is not None and (type_name == "number" or float(num).is_integer()):
                return int(num) if type_name == "integer" else num
        elif isinstance(value, bool):
            return 1 if value else 0
        return value
    if type_name == "boolean":
        if isinstance(value, str):
            if value in ("true", "1"):
                return True
            if value in ("false", "0"):
                return False
        elif isinstance(value, _NUMERIC_TYPES) and not isinstance(value, bool):
            if value == 1:
                return True
            if value == 0:
                return False
        return value
    if type_name == "string":
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, _NUMERIC_TYPES):
            return js_number(value)
        return value
    if type_name == "null":
        if value in ("", "null"):
            return None
        return value
    return value


def _validator(schema: Mapping[str, Any]) -> Any:
    """A Draft 7 validator; jsonschema is imported on the first tool call (startup cost)."""
    from jsonschema import Draft7Validator

    return Draft7Validator(schema)


def convert_value(value: Any, schema: Mapping[str, Any]) -> Any:
    """Best-effort conversion of ``value`` towards ``schema`` (never raises)."""
    if not isinstance(schema, Mapping):
        return value
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list):
            for option in options:
                candidate = convert_value(copy.deepcopy(value), option)
                if not list(_validator(option).iter_errors(candidate)):
                    return candidate
    types = _schema_types(schema)
    if types and not any(_matches(value, t) for t in types):
        for t in types:
            converted = _convert_primitive(value, t)
            if converted is not value and _matches(converted, t):
                value = converted
                break
    if isinstance(value, dict) and "object" in types:
        props = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        for key in list(value.keys()):
            sub = props.get(key)
            if sub is None:
                continue
            # Models often send null for an optional field they mean to omit.
            if value[key] is None and key not in required and not _accepts_null(sub):
                del value[key]
                continue
            value[key] = convert_value(value[key], sub)
    if isinstance(value, list) and "array" in types:
        items = schema.get("items")
        if isinstance(items, Mapping):
            for i, item in enumerate(value):
                value[i] = convert_value(item, items)
    return value


def _accepts_null(schema: Mapping[str, object]) -> bool:
    return not list(_validator(schema).iter_errors(None))


def _error_path(error: Any) -> str:
    return ".".join(str(p) for p in error.absolute_path)


def _type_name(validator_value: object) -> str:
    if isinstance(validator_value, list):
        return " | ".join(str(v) for v in validator_value)
    return str(validator_value)


def _format_errors(error: Any) -> list[str]:
    base = _error_path(error)
    kind = error.validator
    path = base or "root"
    value = error.validator_value
    messages = {
        "type": f"must be {_type_name(value)}",
        "enum": "must be equal to one of the allowed values",
        "const": "must be equal to constant",
        "minimum": f"must be >= {js_number(value) if isinstance(value, _NUMERIC_TYPES) else value}",
        "maximum": f"must be <= {js_number(value) if isinstance(value, _NUMERIC_TYPES) else value}",
        "exclusiveMinimum": f"must be > {value}",
        "exclusiveMaximum": f"must be < {value}",
        "minLength": f"must not have fewer than {value} characters",
        "maxLength": f"must not have more than {value} characters",
        "minItems": f"must not have fewer than {value} items",
        "maxItems": f"must not have more than {value} items",
        "pattern": f'must match pattern "{value}"',
        "additionalProperties": "must not have additional properties",
        "anyOf": "must match a schema in anyOf",
        "oneOf": "must match exactly one schema in oneOf",
    }
    return [f"  - {path}: {messages.get(str(kind), error.message)}"]


def check_arguments(schema: Mapping[str, object], args: object) -> list[str]:
    """Formatted error lines (empty when ``args`` satisfies ``schema``)."""
    validator = _validator(schema)
    errors = sorted(validator.iter_errors(args), key=lambda e: (e.validator != "required", list(e.absolute_path)))
    lines: list[str] = []
    for err in errors:
        if err.validator == "required":
            # One line per missing property, like the observed "command: missing".
            base = _error_path(err)
            for name in err.validator_value:
                if isinstance(err.instance, dict) and name not in err.instance:
                    line = f"  - {base + '.' if base else ''}{name}: missing"
                    if line not in lines:
                        lines.append(line)
        else:
            lines.extend(_format_errors(err))
    return lines


def validate_tool_arguments(tool: Any, args: Any) -> dict[str, Any]:
    """Prepare, convert and validate ``args`` for ``tool``; returns the arguments to execute with."""
    prepare = getattr(tool, "prepare_arguments", None)
    prepared = prepare(copy.deepcopy(args)) if callable(prepare) else args
    schema = tool.parameters
    converted = convert_value(copy.deepcopy(prepared), schema)
    lines = check_arguments(schema, converted)
    if not lines:
        return converted
    errors = "\n".join(lines) or "Unknown validation error"
    raise ToolArgumentsError(
        f'Validation failed for tool "{tool.name}":\n{errors}\n\nReceived arguments:\n{js_stringify(prepared, indent=2)}'
    )
