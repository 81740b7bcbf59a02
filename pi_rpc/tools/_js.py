"""JavaScript-compatible formatting used in tool texts: numbers and ``JSON.stringify``.

Upstream builds its messages with template strings and ``JSON.stringify``, so integral floats
print without ``.0`` and indented JSON uses two spaces.
"""

from __future__ import annotations

import json
import math


def js_number(value: float | int) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


def _jsify(value: object) -> object:
    if isinstance(value, float) and not isinstance(value, bool):
        if math.isfinite(value) and value.is_integer() and abs(value) < 1e21:
            return int(value)
        if not math.isfinite(value):
            return None
        return value
    if isinstance(value, dict):
        return {str(k): _jsify(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsify(v) for v in value]
    return value


def js_stringify(value: object, indent: int | str | None = None) -> str:
    """``JSON.stringify(value, null, indent)`` for JSON-like Python values (``indent``: a
    number of spaces or the indentation string itself)."""
    if indent:
        return json.dumps(_jsify(value), ensure_ascii=False, indent=indent)
    return json.dumps(_jsify(value), ensure_ascii=False, separators=(",", ":"))


def js_string(value: object) -> str:
    """``String(value)`` for the primitive types tool arguments carry."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    return str(value)
