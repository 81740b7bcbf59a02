"""JSON serialisation that matches JavaScript's ``JSON.stringify`` for session files.

orjson already keeps key order, emits non-ASCII and U+2028/U+2029 raw and writes NaN as
null; the one visible difference is numbers: JS prints integral doubles without a fraction
(``0`` not ``0.0``, ``-0`` as ``0``), so those are turned into ints before dumping.
"""

from __future__ import annotations

from typing import Any

import orjson

# JS prints integral doubles below 1e21 as ints; orjson can only write ints that fit in 64
# bits, so integral floats beyond 2**63 (never seen in pi files) keep orjson's exponent form.
_JS_INT_LIMIT = 2.0**63


def js_normalize(value: Any) -> Any:
    """Return ``value`` with every integral float (|x| < 2**63) replaced by an int.

    Containers are rebuilt only when something inside them changed, so the common
    float-free message is returned as the very same object.
    """
    if isinstance(value, float):
        if value.is_integer() and abs(value) < _JS_INT_LIMIT:
            return int(value)
        return value
    if isinstance(value, dict):
        changed = None
        for key, item in value.items():
            new = js_normalize(item)
            if new is not item:
                if changed is None:
                    changed = dict(value)
                changed[key] = new
        return value if changed is None else changed
    if isinstance(value, (list, tuple)):
        out = None
        for index, item in enumerate(value):
            new = js_normalize(item)
            if new is not item:
                if out is None:
                    out = list(value)
                out[index] = new
        if out is not None:
            return out
        return value
    return value


def dumps_js(value: Any) -> bytes:
    """``JSON.stringify(value)`` as UTF-8 bytes (no trailing newline)."""
    return orjson.dumps(js_normalize(value))


def dumps_line(value: Any) -> bytes:
    """One JSONL line: ``JSON.stringify(value) + "\\n"``."""
    return orjson.dumps(js_normalize(value), option=orjson.OPT_APPEND_NEWLINE)


def js_len(text: str) -> int:
    """``text.length`` in JavaScript: UTF-16 code units (astral characters count twice)."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)
