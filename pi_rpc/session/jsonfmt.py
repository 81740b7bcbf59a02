"""JSON serialisation that matches JavaScript's ``JSON.stringify`` for session files.

orjson already keeps key order, emits non-ASCII and U+2028/U+2029 raw and writes NaN as
null; numbers are normalised as JS prints them (``0`` not ``0.0``), and whatever orjson
refuses (lone UTF-16 surrogates, very deep nesting, huge ints) is written by the total
fallback of ``pi_rpc.ai.jsjson`` (lone surrogates as ``\\udXXX`` escapes, as node writes
them), so writing an entry never raises for JSON-like data.
"""

from __future__ import annotations

from pi_rpc.ai.jsjson import js_normalize, stringify

__all__ = ["dumps_js", "dumps_line", "js_len", "js_normalize"]


def dumps_js(value: object) -> bytes:
    """``JSON.stringify(value)`` as UTF-8 bytes (no trailing newline)."""
    return stringify(value)


def dumps_line(value: object) -> bytes:
    """One JSONL line: ``JSON.stringify(value) + "\\n"``."""
    return stringify(value, newline=True)


def js_len(text: str) -> int:
    """``text.length`` in JavaScript: UTF-16 code units (astral characters count twice)."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)
