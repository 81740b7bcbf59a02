"""Record bytes -> JSON value, with upstream-compatible parse-error texts.

The fast path is ``orjson.loads``. Only when it fails do we work out what Node's
``JSON.parse`` (V8) would have said, so a client sees the same
``Failed to parse command: <message>`` text as from upstream pi, e.g.
``Unexpected end of JSON input`` or ``Unexpected token 'o', "not json" is not valid JSON``.

Malformed UTF-8 is decoded as upstream's stdin decoder does (each invalid sequence becomes
U+FFFD) and the command is served. Inputs V8 accepts but orjson refuses (lone surrogate
escapes, integers beyond 64 bits) are parsed with the stdlib ``json`` module instead, so they
are not rejected; nesting deeper than either recursive parser takes is parsed iteratively.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import orjson

PARSE_ERROR_PREFIX = "Failed to parse command: "


@dataclass(frozen=True)
class ParseFailure:
    """A record that is not valid JSON; ``message`` is the text after the prefix."""

    message: str

    @property
    def error(self) -> str:
        return PARSE_ERROR_PREFIX + self.message


def parse_record(record: bytes) -> object:
    """Parse one record. Returns the JSON value, or a ``ParseFailure``."""
    try:
        return orjson.loads(record)
    except orjson.JSONDecodeError:
        pass
    try:
        text = record.decode("utf-8")
    except UnicodeDecodeError:
        # As upstream (node's StringDecoder on stdin): each invalid sequence becomes U+FFFD,
        # and the command is served.
        text = record.decode("utf-8", "replace")
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    message = v8_json_error(text)
    if message is None:
        # V8 would accept it; so do we (stdlib json is laxer than orjson in the same ways).
        try:
            return json.loads(text)
        except RecursionError:
            message = STACK_OVERFLOW
        except ValueError as exc:  # pragma: no cover - scanner and stdlib disagree
            return ParseFailure(str(exc))
    if message == STACK_OVERFLOW:
        # Nesting deeper than the recursive parsers take; V8's parser is iterative.
        try:
            return parse_iterative(text)
        except ValueError:
            pass
    return ParseFailure(message)


# --------------------------------------------------------------------------- deep nesting

STACK_OVERFLOW = "Maximum call stack size exceeded"
_JSON_WS = re.compile(r"[ \t\n\r]*")
_STRING_TOKEN = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_NUMBER_TOKEN = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_LITERALS = (("true", True), ("false", False), ("null", None))


def _skip_ws(text: str, i: int) -> int:
    return _run_end(_JSON_WS, text, i)


def _read_key(text: str, i: int) -> tuple[str, int]:
    """A property name and its colon at ``i``; returns the name and where its value starts."""
    match = _STRING_TOKEN.match(text, i)
    if match is None:
        raise ValueError(f"expected a property name at {i}")
    i = _skip_ws(text, match.end())
    if not text.startswith(":", i):
        raise ValueError(f"expected ':' at {i}")
    return json.loads(match.group()), _skip_ws(text, i + 1)


def _read_scalar(text: str, i: int) -> tuple[object, int]:
    ch = text[i] if i < len(text) else ""
    if ch == '"':
        match = _STRING_TOKEN.match(text, i)
    elif ch == "-" or "0" <= ch <= "9":
        match = _NUMBER_TOKEN.match(text, i)
    else:
        for word, literal in _LITERALS:
            if text.startswith(word, i):
                return literal, i + len(word)
        raise ValueError(f"unexpected character at {i}")
    if match is None:
        raise ValueError(f"bad token at {i}")
    return json.loads(match.group()), match.end()


def parse_iterative(text: str) -> object:
    """``JSON.parse`` without recursion, for records nested deeper than orjson (1024 levels)
    and the stdlib (about 1000) accept. Raises ``ValueError`` on invalid JSON."""
    n = len(text)
    # Open containers, each with the key its next value goes under (None in arrays).
    stack: list[tuple[Any, str | None]] = []
    i = _skip_ws(text, 0)
    while True:
        value: Any
        ch = text[i] if i < n else ""
        if ch == "{" or ch == "[":
            i = _skip_ws(text, i + 1)
            if text.startswith("}" if ch == "{" else "]", i):
                value, i = ({} if ch == "{" else []), i + 1
            elif ch == "{":
                first_key, i = _read_key(text, i)
                stack.append(({}, first_key))
                continue
            else:
                stack.append(([], None))
                continue
        else:
            value, i = _read_scalar(text, i)
        # Attach the value, closing every container that ends right after it.
        while True:
            i = _skip_ws(text, i)
            if not stack:
                if i != n:
                    raise ValueError(f"unexpected data after JSON at {i}")
                return value
            container, key = stack[-1]
            if key is None:
                container.append(value)
            else:
                container[key] = value
            if text.startswith(",", i):
                i = _skip_ws(text, i + 1)
                if key is not None:
                    next_key, i = _read_key(text, i)
                    stack[-1] = (container, next_key)
                break
            if not text.startswith("]" if key is None else "}", i):
                raise ValueError(f"expected ',' or a closing bracket at {i}")
            stack.pop()
            value, i = container, i + 1


# --------------------------------------------------------------------------- V8 emulation

_WS = " \t\n\r"
_MAX_CONTEXT = 10  # V8 kMaxContextCharacters
_MIN_LEN_FOR_CONTEXT = _MAX_CONTEXT * 2 + 1
_PLAIN_STRING_RUN = re.compile(r'[^"\\\x00-\x1f]*')
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_DIGITS = re.compile(r"[0-9]*")


def _run_end(pattern: re.Pattern[str], s: str, i: int) -> int:
    """End of ``pattern``'s match at ``i``; only for ``*`` patterns, which always match."""
    m = pattern.match(s, i)
    assert m is not None
    return m.end()


class _V8Error(Exception):
    def __init__(self, message: str) -> None:
        self.message = message


def _utf16_len(s: str) -> int:
    return len(s) + sum(1 for ch in s if ord(ch) > 0xFFFF)


class _Scanner:
    """A JSON validator that fails exactly where, and with the message that, V8 does."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.n = len(text)

    # -- error helpers ---------------------------------------------------------------

    def _position(self, i: int) -> tuple[int, int, int]:
        prefix = self.s[:i]
        pos = _utf16_len(prefix)
        line = 1
        last_break = 0
        j = 0
        while j < i:
            ch = prefix[j]
            if ch == "\r" and j < i - 1 and prefix[j + 1] == "\n":
                j += 1
                ch = "\n"
            if ch in "\r\n":
                line += 1
                last_break = j + 1
            j += 1
        col = 1 + _utf16_len(prefix[last_break:i])
        return pos, line, col

    def fail_at(self, template: str, i: int) -> _V8Error:
        pos, line, col = self._position(i)
        return _V8Error(f"{template} in JSON at position {pos} (line {line} column {col})")

    def unexpected(self, i: int) -> _V8Error:
        """V8 ReportUnexpectedToken for the token starting at ``i``."""
        if i >= self.n:
            return _V8Error("Unexpected end of JSON input")
        ch = self.s[i]
        if ch == '"':
            return self.fail_at("Unexpected string", i)
        if ch == "-" or ch.isdigit() and ch.isascii():
            return self.fail_at("Unexpected number", i)
        if self.s in ("NaN", "Infinity", "undefined", "[object Object]"):
            return _V8Error(f'"{self.s}" is not valid JSON')
        src = self.s
        length = self.n
        if length <= _MIN_LEN_FOR_CONTEXT:
            return _V8Error(f"Unexpected token '{ch}', \"{src}\" is not valid JSON")
        if i < _MAX_CONTEXT:
            return _V8Error(f"Unexpected token '{ch}', \"{src[: i + _MAX_CONTEXT]}\"... is not valid JSON")
        if i < length - _MAX_CONTEXT:
            snippet = src[i - _MAX_CONTEXT : i + _MAX_CONTEXT]
            return _V8Error(f"Unexpected token '{ch}', ...\"{snippet}\"... is not valid JSON")
        return _V8Error(f"Unexpected token '{ch}', ...\"{src[i - _MAX_CONTEXT :]}\" is not valid JSON")

    # -- grammar ---------------------------------------------------------------------

    def ws(self, i: int) -> int:
        s, n = self.s, self.n
        while i < n and s[i] in _WS:
            i += 1
        return i

    def run(self) -> None:
        i = self.value(self.ws(0))
        i = self.ws(i)
        if i < self.n:
            pos, line, col = self._position(i)
            raise _V8Error(
                f"Unexpected non-whitespace character after JSON at position {pos} (line {line} column {col})"
            )

    def value(self, i: int) -> int:
        if i >= self.n:
            raise self.unexpected(i)
        ch = self.s[i]
        if ch == "{":
            return self.obj(i)
        if ch == "[":
            return self.arr(i)
        if ch == '"':
            return self.string(i)
        if ch == "-" or "0" <= ch <= "9":
            return self.number(i)
        for word in ("true", "false", "null"):
            if ch == word[0]:
                for k, expected in enumerate(word):
                    if i + k >= self.n:
                        raise _V8Error("Unexpected end of JSON input")
                    if self.s[i + k] != expected:
                        raise self.unexpected(i + k)
                return i + len(word)
        raise self.unexpected(i)

    def obj(self, i: int) -> int:
        i = self.ws(i + 1)
        if i < self.n and self.s[i] == "}":
            return i + 1
        if i >= self.n:
            raise self.unexpected(i)
        if self.s[i] != '"':
            raise self.fail_at("Expected property name or '}'", i)
        while True:
            i = self.string(i)
            i = self.ws(i)
            if i >= self.n:
                raise self.unexpected(i)
            if self.s[i] != ":":
                raise self.fail_at("Expected ':' after property name", i)
            i = self.value(self.ws(i + 1))
            i = self.ws(i)
            if i >= self.n:
                raise self.unexpected(i)
            if self.s[i] == "}":
                return i + 1
            if self.s[i] != ",":
                raise self.fail_at("Expected ',' or '}' after property value", i)
            i = self.ws(i + 1)
            if i >= self.n:
                raise self.unexpected(i)
            if self.s[i] != '"':
                raise self.fail_at("Expected double-quoted property name", i)

    def arr(self, i: int) -> int:
        i = self.ws(i + 1)
        if i < self.n and self.s[i] == "]":
            return i + 1
        while True:
            i = self.value(self.ws(i))
            i = self.ws(i)
            if i >= self.n:
                raise self.unexpected(i)
            if self.s[i] == "]":
                return i + 1
            if self.s[i] != ",":
                raise self.fail_at("Expected ',' or ']' after array element", i)
            i += 1

    def string(self, i: int) -> int:
        s, n = self.s, self.n
        i += 1
        while True:
            i = _run_end(_PLAIN_STRING_RUN, s, i)
            if i >= n:
                raise self.fail_at("Unterminated string", i)
            ch = s[i]
            if ch == '"':
                return i + 1
            if ch == "\\":
                if i + 1 >= n:
                    raise self.fail_at("Bad escaped character", i + 1)
                esc = s[i + 1]
                if esc == "u":
                    if not _HEX4.match(s, i + 2):
                        # V8 points at the first bad hex digit (or the end).
                        j = i + 2
                        while j < min(i + 6, n) and s[j] in "0123456789abcdefABCDEF":
                            j += 1
                        raise self.fail_at("Bad Unicode escape", j)
                    i += 6
                elif esc in '"\\/bfnrt':
                    i += 2
                else:
                    raise self.fail_at("Bad escaped character", i + 1)
            else:
                raise self.fail_at("Bad control character in string literal", i)

    def number(self, i: int) -> int:
        s, n = self.s, self.n
        if s[i] == "-":
            i += 1
            if i >= n or not ("0" <= s[i] <= "9"):
                raise self.fail_at("No number after minus sign", i)
        if s[i] == "0":
            i += 1
            if i < n and "0" <= s[i] <= "9":
                raise self.fail_at("Unexpected number", i)
        else:
            i = _run_end(_DIGITS, s, i)
        if i < n and s[i] == ".":
            i += 1
            if i >= n or not ("0" <= s[i] <= "9"):
                raise self.fail_at("Unterminated fractional number", i)
            i = _run_end(_DIGITS, s, i)
        if i < n and s[i] in "eE":
            i += 1
            if i < n and s[i] in "+-":
                i += 1
            if i >= n or not ("0" <= s[i] <= "9"):
                raise self.fail_at("Exponent part is missing a number", i)
            i = _run_end(_DIGITS, s, i)
        return i


def v8_json_error(text: str) -> str | None:
    """The message V8's ``JSON.parse(text)`` throws, or None if it would parse."""
    try:
        _Scanner(text).run()
    except _V8Error as err:
        return err.message
    except RecursionError:
        return STACK_OVERFLOW
    return None
