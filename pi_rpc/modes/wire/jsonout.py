"""JSON value -> one protocol line, formatted the way upstream's ``JSON.stringify`` would.

- one line, no spaces, raw UTF-8 for non-ASCII;
- integral floats print as integers (``1`` not ``1.0``), like JS numbers;
- lone UTF-16 surrogates (which JS clients send, e.g. half an emoji) are written as
  ``\\udXXX`` escapes exactly as ``JSON.stringify`` writes them (``pi_rpc.ai.jsjson``);
  any value orjson refuses takes that total fallback, so encoding never raises;
- U+2028/U+2029 are written as ``\\u2028``/``\\u2029``. Deliberate difference: upstream
  writes them raw, which breaks naive line splitters in some languages; escaped, they decode
  to the same strings in every JSON parser.
"""

from __future__ import annotations

import orjson

from pi_rpc.ai.jsjson import dumps_normalized, stringify_fallback
from pi_rpc.ai.jsjson import loads as js_loads

_LS = "\u2028".encode()
_PS = "\u2029".encode()
_LEAD = 0xE2  # the first byte of both separators' UTF-8 (tested as ``int in bytes``: one memchr)
_APPEND_NEWLINE = orjson.OPT_APPEND_NEWLINE


def _escape_separators(out: bytes) -> bytes:
    # A one-byte test first (most lines have no U+2xxx).
    if _LEAD in out and out.find(b"\xe2\x80") >= 0:
        out = out.replace(_LS, b"\\u2028").replace(_PS, b"\\u2029")
    return out


def dumps_record(value: object) -> bytes:
    """Serialise one record WITHOUT the trailing newline. Never raises for JSON-like data."""
    try:
        out = dumps_normalized(value)
    except (TypeError, orjson.JSONEncodeError, RecursionError):
        # Lone surrogates, nesting beyond orjson's limit, huge ints, odd keys.
        out = stringify_fallback(value)
    return _escape_separators(out)


def dumps_line(value: object) -> bytes:
    """``dumps_record(value) + b"\\n"``, written in one piece (no copy of a large record)."""
    try:
        out = dumps_normalized(value, _APPEND_NEWLINE)
    except (TypeError, orjson.JSONEncodeError, RecursionError):
        out = stringify_fallback(value) + b"\n"
    # (the pre-check inline: one call less for every streamed line)
    if _LEAD in out:
        out = _escape_separators(out)
    return out


def loads(data: bytes | str) -> object:
    """Counterpart used by tests and tools (accepts what ``dumps_record`` writes)."""
    return js_loads(data)
