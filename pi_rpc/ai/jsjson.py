"""JSON and UTF-8 the way JavaScript writes and reads them, for every layer that writes
strings which came from outside (clients, models, tools, files, the environment).

- ``stringify(value)``: ``JSON.stringify(value)`` as UTF-8 bytes. orjson is the fast path;
  only what orjson refuses takes ``stringify_fallback``:
  lone UTF-16 surrogates (a JS client slicing an emoji in half sends ``"\\ud800"``; Python
  keeps it as a lone surrogate code point, which orjson cannot encode) are written as
  ``\\udXXX`` escapes exactly as ``JSON.stringify`` does, and a high/low pair held as two
  code points is written as the character it forms; nesting deeper than orjson's limit;
  integers beyond 64 bits; NaN/Infinity (``null``); non-string keys; unknown objects.
- ``js_normalize(value)``: integral floats as ints, as JS prints them.
- ``loads(data)``: ``JSON.parse``-compatible reading (orjson first; the stdlib accepts the
  lone surrogate escapes and huge integers orjson refuses).
- ``well_formed(text)`` / ``to_utf8(text)``: ``String.prototype.toWellFormed`` and
  ``Buffer.from(text)``: lone surrogates become U+FFFD, as node does whenever it turns a
  string into bytes (files, command lines, process environments); ``fs_path(path)`` does
  the same for a path, keeping what Python's own file-system decoding produced.
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any

import orjson

# JS prints integral doubles below 1e21 as ints; orjson can only write ints that fit in 64
# bits, so integral floats beyond 2**63 keep orjson's exponent form.
_JS_INT_LIMIT = 2.0**63
_INT_MIN = -(2**63)
_INT_MAX = 2**64

_SURROGATE = re.compile("[\ud800-\udfff]")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def js_normalize(value: object) -> object:
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


# --------------------------------------------------------------------------- strings


def has_surrogates(text: str) -> bool:
    """True when ``text`` holds a UTF-16 surrogate code point (it cannot be UTF-8 encoded)."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def _join_pair(match: re.Match[str]) -> str:
    return match.group().encode("utf-16-le", "surrogatepass").decode("utf-16-le")


def join_surrogate_pairs(text: str) -> str:
    """A high/low surrogate pair held as two code points becomes the character it encodes
    (in JS the two halves of a concatenation form that character)."""
    return _PAIR.sub(_join_pair, text)


def well_formed(text: str) -> str:
    """``text.toWellFormed()``: pairs joined, every lone surrogate replaced by U+FFFD."""
    if not has_surrogates(text):
        return text
    return _SURROGATE.sub("\ufffd", join_surrogate_pairs(text))


def to_utf8(text: str) -> bytes:
    """``Buffer.from(text, "utf8")``: UTF-8 bytes, lone surrogates written as U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return well_formed(text).encode("utf-8")


_NOT_FS_ENCODABLE = re.compile("[\ud800-\udc7f\udd00-\udfff]")


def fs_path(path: str) -> str:
    """A path as node would hand it to the file system: a lone surrogate from a client (which
    no file name can hold) becomes U+FFFD. The surrogates Python itself uses for undecodable
    bytes of real file names (U+DC80..U+DCFF, ``surrogateescape``) are kept, so such names
    still resolve."""
    try:
        os.fsencode(path)
        return path
    except UnicodeEncodeError:
        return _NOT_FS_ENCODABLE.sub("\ufffd", join_surrogate_pairs(path))


def string_literal(text: str) -> bytes:
    """``JSON.stringify(text)`` for any string, lone surrogates included (``\\udXXX``)."""
    text = join_surrogate_pairs(text)
    parts = [b'"']
    pos = 0
    for match in _SURROGATE.finditer(text):
        if match.start() > pos:
            parts.append(orjson.dumps(text[pos : match.start()])[1:-1])
        parts.append(b"\\u%04x" % ord(match.group()))
        pos = match.end()
    if pos < len(text):
        parts.append(orjson.dumps(text[pos:])[1:-1])
    parts.append(b'"')
    return b"".join(parts)


# --------------------------------------------------------------------------- stringify


def stringify(value: object, *, newline: bool = False) -> bytes:
    """``JSON.stringify(value)`` as UTF-8 bytes (plus LF with ``newline``); never raises
    for JSON-like data (see the module docstring)."""
    try:
        return dumps_normalized(value, orjson.OPT_APPEND_NEWLINE if newline else None)
    except (TypeError, orjson.JSONEncodeError, RecursionError):
        out = stringify_fallback(value)
        return out + b"\n" if newline else out


# orjson prints integral floats as "1.0" or, from 1e16 up, "1e+16" (JS prints digits); the
# pattern may also match inside strings, which only costs a normalising second pass.
_MAYBE_INTEGRAL_FLOAT = re.compile(rb"[0-9]\.0(?:[,}\]\n]|$)|[0-9]e\+")
# The pre-checks test single bytes by value: ``int in bytes`` is one memchr with no argument
# parsing (``bytes.find`` parses its arguments, a bytes needle for ``in`` first fails as an int
# and formats a TypeError); 29 ns against 144 ns per test on a streamed line.
_DOT = ord(".")
_PLUS = ord("+")


def dumps_normalized(value: object, option: int | None = None) -> bytes:
    """orjson's bytes for ``value`` with integral floats printed as JS prints them (the
    common float-free value is written once, never walked in Python). Raises what orjson
    raises (lone surrogates, nesting beyond 254 levels, huge ints)."""
    out = orjson.dumps(value, option=option)
    # One-byte pre-checks keep the regex off the common float-free line.
    if (_DOT in out or _PLUS in out) and _MAYBE_INTEGRAL_FLOAT.search(out):
        out = orjson.dumps(js_normalize(value), option=option)
    return out


def _scalar_bytes(value: object) -> bytes:
    """``JSON.stringify`` of a non-container value."""
    if value is None:
        return b"null"
    if value is True:
        return b"true"
    if value is False:
        return b"false"
    if isinstance(value, str):
        return string_literal(value) if has_surrogates(value) else orjson.dumps(value)
    if isinstance(value, int):
        value = int(value)
        if _INT_MIN <= value < _INT_MAX:
            return str(value).encode()
        return orjson.dumps(float(value))  # a JS number: beyond 64 bits it is a double
    if isinstance(value, float):
        value = float(value)
        if math.isnan(value) or math.isinf(value):
            return b"null"  # JSON.stringify(NaN) === "null"
        if value.is_integer() and abs(value) < _JS_INT_LIMIT:
            return str(int(value)).encode()
        return orjson.dumps(value)
    if isinstance(value, orjson.Fragment):
        return orjson.dumps(value)  # a fragment's own bytes
    text = str(value)
    return string_literal(text) if has_surrogates(text) else orjson.dumps(text)


def _key_bytes(key: object) -> bytes:
    if not isinstance(key, str):
        key = "null" if key is None else ("true" if key is True else "false" if key is False else str(key))
    return string_literal(key) if has_surrogates(key) else orjson.dumps(key)


def _is_container(value: object) -> bool:
    return isinstance(value, (dict, list, tuple))


def stringify_fallback(value: object) -> bytes:
    """The slow, total path of ``stringify`` (see the module docstring).

    An iterative writer, so nesting depth is bounded by memory rather than by a stack:
    subtrees orjson can write are written by orjson (C speed); only the containers on the
    way to what it refuses are written here. (orjson ``Fragment`` is deliberately not used
    to splice bytes in: orjson 3.13 writes past its buffer when a fragment is followed by
    deep closing brackets.)
    """
    if not _is_container(value):
        return _scalar_bytes(value)
    out: list[bytes] = []
    # Open containers: [items iterator, is_dict, no item written yet, the container].
    stack: list[list[Any]] = []
    active: set[int] = set()

    def open_container(container: Any) -> None:
        if id(container) in active:
            raise ValueError("Converting circular structure to JSON")
        active.add(id(container))
        is_dict = isinstance(container, dict)
        out.append(b"{" if is_dict else b"[")
        stack.append([iter(container.items()) if is_dict else iter(container), is_dict, True, container])

    open_container(value)
    while stack:
        top = stack[-1]
        try:
            item = next(top[0])
        except StopIteration:
            out.append(b"}" if top[1] else b"]")
            active.discard(id(top[3]))
            stack.pop()
            continue
        if top[2]:
            top[2] = False
        else:
            out.append(b",")
        if top[1]:
            key, child = item
            out.append(_key_bytes(key))
            out.append(b":")
        else:
            child = item
        if not _is_container(child):
            out.append(_scalar_bytes(child))
            continue
        try:
            out.append(dumps_normalized(child))
        except (TypeError, orjson.JSONEncodeError, RecursionError):
            open_container(child)
    return b"".join(out)


# --------------------------------------------------------------------------- parse


def loads(data: bytes | str) -> Any:
    """``JSON.parse``-compatible: orjson, then the stdlib for what orjson refuses but JS
    accepts (lone surrogate escapes, integers beyond 64 bits). Invalid UTF-8 in bytes is
    replaced by U+FFFD as node's decoder does. Raises ``orjson.JSONDecodeError``."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        error = exc
    text = bytes(data).decode("utf-8", "replace") if not isinstance(data, str) else data
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise error from None
