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
  string into bytes (files, command lines, process environments).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson

# JS prints integral doubles below 1e21 as ints; orjson can only write ints that fit in 64
# bits, so integral floats beyond 2**63 keep orjson's exponent form.
_JS_INT_LIMIT = 2.0**63
_INT_MIN = -(2**63)
_INT_MAX = 2**64

# orjson refuses nesting deeper than 254 levels; subtrees this tall are written on their own
# and spliced in as fragments, which orjson does not count.
_FRAGMENT_HEIGHT = 128

_SURROGATE = re.compile("[\ud800-\udfff]")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


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


def _string_value(text: str) -> Any:
    if not has_surrogates(text):
        return text
    joined = join_surrogate_pairs(text)
    if _SURROGATE.search(joined) is None:
        return joined
    return orjson.Fragment(string_literal(joined))


# --------------------------------------------------------------------------- stringify


def stringify(value: Any, *, newline: bool = False) -> bytes:
    """``JSON.stringify(value)`` as UTF-8 bytes (plus LF with ``newline``); never raises
    for JSON-like data (see the module docstring)."""
    try:
        return orjson.dumps(js_normalize(value), option=orjson.OPT_APPEND_NEWLINE if newline else None)
    except (TypeError, orjson.JSONEncodeError, RecursionError):
        out = stringify_fallback(value)
        return out + b"\n" if newline else out


def _scalar(value: Any) -> Any:
    """The orjson-encodable form of a non-container value, as ``JSON.stringify`` writes it."""
    if value is None or value is True or value is False:
        return value
    if isinstance(value, str):
        return _string_value(value)
    if isinstance(value, int):
        value = int(value)
        # A JS number: integers beyond what orjson writes become doubles.
        return value if _INT_MIN <= value < _INT_MAX else float(value)
    if isinstance(value, float):
        value = float(value)
        if math.isnan(value) or math.isinf(value):
            return None  # JSON.stringify(NaN) === "null"
        if value.is_integer() and abs(value) < _JS_INT_LIMIT:
            return int(value)
        return value
    if isinstance(value, orjson.Fragment):
        return value
    return _string_value(str(value))


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return "null" if key is None else ("true" if key else "false")
    return str(key)


class _Frame:
    """One container being converted: its remaining items and the converted output."""

    __slots__ = ("source", "items", "is_dict", "out", "keys", "height", "manual", "key")

    def __init__(self, source: Any) -> None:
        self.source = source
        self.is_dict = isinstance(source, dict)
        self.items = iter(source.items()) if self.is_dict else iter(source)
        self.out: list[Any] = []
        self.keys: list[str] = []
        self.height = 1
        self.manual = False  # a key needs escapes orjson cannot write
        self.key = ""

    def add(self, value: Any, height: int) -> None:
        if self.is_dict:
            self.keys.append(self.key)
        self.out.append(value)
        if height + 1 > self.height:
            self.height = height + 1

    def finish(self) -> Any:
        if not self.is_dict:
            return self.out
        if not self.manual:
            return dict(zip(self.keys, self.out))
        pieces = [
            string_literal(key) + b":" + orjson.dumps(value) for key, value in zip(self.keys, self.out)
        ]
        return orjson.Fragment(b"{" + b",".join(pieces) + b"}")


def _is_container(value: Any) -> bool:
    return isinstance(value, (dict, list, tuple))


def _encodable(root: Any) -> Any:
    """``root`` rebuilt so orjson can write it with ``JSON.stringify``'s result. Iterative,
    so nesting depth is bounded by memory, not by the Python stack."""
    if not _is_container(root):
        return _scalar(root)
    active = {id(root)}
    stack = [_Frame(root)]
    while True:
        frame = stack[-1]
        try:
            item = next(frame.items)
        except StopIteration:
            stack.pop()
            active.discard(id(frame.source))
            converted = frame.finish()
            height = frame.height
            if height >= _FRAGMENT_HEIGHT and not isinstance(converted, orjson.Fragment):
                converted = orjson.Fragment(orjson.dumps(converted))
                height = 0
            if not stack:
                return converted
            stack[-1].add(converted, 0 if isinstance(converted, orjson.Fragment) else height)
            continue
        if frame.is_dict:
            raw_key, child = item
            key = _key(raw_key)
            if has_surrogates(key):
                frame.manual = True
            frame.key = key
        else:
            child = item
        if _is_container(child):
            if id(child) in active:
                raise ValueError("Converting circular structure to JSON")
            active.add(id(child))
            stack.append(_Frame(child))
        else:
            frame.add(_scalar(child), 0)


def stringify_fallback(value: Any) -> bytes:
    """The slow, total path of ``stringify`` (see the module docstring)."""
    return orjson.dumps(_encodable(value))


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
