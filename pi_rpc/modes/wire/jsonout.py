"""JSON value -> one protocol line, formatted the way upstream's ``JSON.stringify`` would.

- one line, no spaces, raw UTF-8 for non-ASCII;
- integral floats print as integers (``1`` not ``1.0``), like JS numbers;
- U+2028/U+2029 are written as ``\\u2028``/``\\u2029``. Deliberate difference: upstream
  writes them raw, which breaks naive line splitters in some languages; escaped, they decode
  to the same strings in every JSON parser.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson

# orjson prints integral floats as "1.0" or, from 1e16 up, "1e+16"; either pattern may also
# occur inside strings, which only costs a (correct) slow path.
_MAYBE_INTEGRAL_FLOAT = re.compile(rb"[0-9]\.0[,}\]]|[0-9]e\+")
# JS prints integral numbers below 1e21 as digits; orjson cannot print ints beyond 64 bits,
# so those (rare) values keep orjson's exponent form.
_JS_INT_LIMIT = 2.0**63

_LS = "\u2028".encode()
_PS = "\u2029".encode()


def _normalise(value: Any) -> Any:
    """Copy of ``value`` with integral floats replaced by ints (containers only walked)."""
    t = type(value)
    if t is float:
        if value.is_integer() and abs(value) < _JS_INT_LIMIT:
            return int(value)
        return value
    if t is dict:
        return {k: _normalise(v) for k, v in value.items()}
    if t is list or t is tuple:
        return [_normalise(v) for v in value]
    return value


def _fallback_dumps(value: Any) -> bytes:
    """For what orjson refuses (integers beyond 64 bits, non-str keys, NaN)."""

    def fix(v: Any) -> Any:
        if isinstance(v, bool) or v is None or isinstance(v, str):
            return v
        if isinstance(v, int):
            return v if -(2**63) <= v < 2**64 else float(v)
        if isinstance(v, float):
            if math.isnan(v) or math.isinf(v):
                return None  # JSON.stringify(NaN) === "null"
            return v
        if isinstance(v, dict):
            return {str(k): fix(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [fix(x) for x in v]
        return str(v)

    return orjson.dumps(_normalise(fix(value)))


def dumps_record(value: Any) -> bytes:
    """Serialise one record WITHOUT the trailing newline."""
    try:
        out = orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        out = _fallback_dumps(value)
    else:
        if _MAYBE_INTEGRAL_FLOAT.search(out):
            out = orjson.dumps(_normalise(value))
    if b"\xe2\x80" in out:
        out = out.replace(_LS, b"\\u2028").replace(_PS, b"\\u2029")
    return out


def dumps_line(value: Any) -> bytes:
    """``dumps_record(value) + b"\\n"``."""
    return dumps_record(value) + b"\n"


def loads(data: bytes | str) -> Any:
    """Counterpart used by tests and tools (accepts what ``dumps_record`` writes)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)
