"""Tool-call arguments that arrive as JSON text in pieces.

``ToolCallArgumentsStream`` mirrors upstream's class of the same name: ``append(delta)`` returns
the arguments parsed so far (an object, ``{}`` until one is visible), ``finish()`` does one strict
parse of the whole text and reports malformed arguments as ``argumentsError`` (upstream 1.6
``parseToolCallArguments``). Partial parsing uses ``pydantic_core.from_json(allow_partial=
"trailing-strings")`` so an unterminated string value shows the characters read so far.

Re-parsing the whole text on every delta would be quadratic for large arguments (a ``write`` of a
big file), so a new snapshot is only taken once the unparsed tail is a fair share of the text;
small documents (the common case) are re-parsed on every delta.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from pi_rpc.ai.jsjson import loads as js_loads

_VALID_ESCAPES = set('"\\/bfnrt')
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")


def repair_json(text: str) -> str:
    """Escape raw control characters inside strings and double invalid backslash escapes."""
    out: list[str] = []
    in_string = False
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if not in_string:
            out.append(ch)
            if ch == '"':
                in_string = True
            i += 1
            continue
        if ch == '"':
            out.append(ch)
            in_string = False
        elif ch == "\\":
            nxt = text[i + 1] if i + 1 < n else None
            if nxt is None:
                out.append("\\\\")
            elif nxt == "u" and _HEX4.fullmatch(text[i + 2 : i + 6] or ""):
                out.append(text[i : i + 6])
                i += 6
                continue
            elif nxt in _VALID_ESCAPES:
                out.append("\\" + nxt)
                i += 2
                continue
            else:
                out.append("\\\\")
        elif ord(ch) < 0x20:
            out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch, f"\\u{ord(ch):04x}"))
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _loads_with_repair(text: str) -> Any:
    try:
        return js_loads(text)
    except orjson.JSONDecodeError:
        repaired = repair_json(text)
        if repaired != text:
            return js_loads(repaired)
        raise


def parse_tool_call_arguments(text: str) -> dict[str, Any]:
    """``{"arguments": {...}}`` or ``{"arguments": {}, "argumentsError": "..."}`` (upstream shape)."""
    if not text or not text.strip():
        return {"arguments": {}}
    try:
        parsed = _loads_with_repair(text)
        if not isinstance(parsed, dict):
            raise ValueError("Tool arguments must be a JSON object")
        return {"arguments": parsed}
    except (ValueError, orjson.JSONDecodeError) as exc:
        return {"arguments": {}, "argumentsError": f"{exc}\n\nReceived arguments:\n{text}"}


def parse_partial_json(text: str) -> Any:
    """Best-effort value of incomplete JSON text; ``None`` when nothing is visible yet."""
    if not text or not text.strip():
        return None
    try:
        import pydantic_core

        return pydantic_core.from_json(text, allow_partial="trailing-strings")
    except ValueError:
        try:
            return pydantic_core.from_json(repair_json(text), allow_partial="trailing-strings")
        except ValueError:
            return None


class ToolCallArgumentsStream:
    __slots__ = ("_parts", "_len", "_unparsed", "_arguments")

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._len = 0
        self._unparsed = 0
        self._arguments: dict[str, Any] = {}

    @property
    def text(self) -> str:
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    def append(self, delta: str) -> dict[str, Any]:
        """Add a piece; returns the partial arguments (a new dict whenever they changed)."""
        if not delta:
            return self._arguments
        self._parts.append(delta)
        self._len += len(delta)
        self._unparsed += len(delta)
        # Amortised linear: re-parse when the new text is at least 1/16 of the whole (+ slack).
        if self._unparsed * 16 + 2048 >= self._len:
            self._unparsed = 0
            value = parse_partial_json(self.text)
            if isinstance(value, dict) and value != self._arguments:
                self._arguments = value
        return self._arguments

    def replace(self, text: str) -> tuple[str | None, dict[str, Any]]:
        """Take the provider's complete text. Returns (missing delta or None if restarted, arguments)."""
        current = self.text
        if text.startswith(current):
            delta = text[len(current) :]
            return delta, self.append(delta) if delta else self._arguments
        self._parts, self._len, self._unparsed, self._arguments = [], 0, 0, {}
        return None, self.append(text)

    def finish(self) -> dict[str, Any]:
        return parse_tool_call_arguments(self.text)
