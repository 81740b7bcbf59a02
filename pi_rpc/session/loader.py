"""Reading a session file: permissive like upstream (blank and malformed lines are skipped)
but every skipped line is reported, and the damage a crash leaves at the end of the file is
classified so the manager can repair it.

Lines are split on LF only (never ``str.splitlines``: U+2028/U+2029 are legal inside JSON
strings) and parsed with ``orjson.loads`` on bytes, one call per line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from pi_rpc.ai.jsjson import loads as js_loads
from pi_rpc.session._gc import gc_paused

_TYPE_MARK = b'{"type":"'


@dataclass
class LoadedFile:
    entries: list[dict[str, Any]] = field(default_factory=list)  # header first when valid
    diagnostics: list[str] = field(default_factory=list)
    size: int = 0
    # Byte length of the prefix that ends with the last LF (everything before a torn tail).
    valid_len: int = 0
    # Final bytes after the last LF that do not parse: a crash mid-append.
    torn_tail: bytes | None = None
    # The last line parses but has no LF after it.
    missing_newline: bool = False
    # True when the file holds nothing but whitespace.
    blank: bool = True


def _parse_line(line: bytes) -> Any:
    """As node reads a line: invalid UTF-8 becomes U+FFFD (StringDecoder), and what
    ``JSON.parse`` accepts but orjson refuses (lone surrogate escapes, which a JS client's
    strings put into session files) is parsed too. Raises ``orjson.JSONDecodeError``."""
    return js_loads(line)


def _salvage(line: bytes) -> Any | None:
    """A line where an entry was appended right after a torn line (upstream <= 1.0 did not
    repair torn tails): recover the last complete entry glued to its end."""
    pos = line.rfind(_TYPE_MARK)
    while pos > 0:
        try:
            value = js_loads(line[pos:])
        except orjson.JSONDecodeError:
            value = None
        if isinstance(value, dict) and isinstance(value.get("type"), str):
            return value
        pos = line.rfind(_TYPE_MARK, 0, pos)
    return None


def parse_session_bytes(data: bytes) -> LoadedFile:
    """Parse the bytes of a session file (no header validation here)."""
    with gc_paused():
        return _parse_session_bytes(data)


def _parse_session_bytes(data: bytes) -> LoadedFile:
    out = LoadedFile(size=len(data))
    entries = out.entries
    diags = out.diagnostics
    last_lf = data.rfind(b"\n")
    body_end = last_lf + 1
    out.valid_len = body_end
    out.blank = not data.strip()
    body = data[:body_end]
    tail = data[body_end:]
    lines = body.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    loads = orjson.loads
    for number, line in enumerate(lines, start=1):
        try:
            value = loads(line)
        except orjson.JSONDecodeError:
            if not line.strip():
                continue
            try:
                value = _parse_line(line)
            except orjson.JSONDecodeError:
                salvaged = _salvage(line)
                if salvaged is not None:
                    diags.append(
                        f"line {number}: malformed JSON ({len(line)} bytes); recovered the entry "
                        f"appended after a torn line"
                    )
                    entries.append(salvaged)
                else:
                    diags.append(f"line {number}: skipped malformed JSON ({len(line)} bytes)")
                continue
        if type(value) is not dict:
            diags.append(f"line {number}: skipped a JSON value that is not an object")
            continue
        entries.append(value)
    if tail.strip():
        number = len(lines) + 1
        try:
            value = _parse_line(tail)
        except orjson.JSONDecodeError:
            out.torn_tail = tail
            diags.append(f"line {number}: torn last line ({len(tail)} bytes, no newline, not valid JSON)")
        else:
            out.missing_newline = True
            if type(value) is dict:
                entries.append(value)
            else:
                diags.append(f"line {number}: skipped a JSON value that is not an object")
    elif tail:
        # Trailing whitespace without LF: harmless, treat like a missing newline.
        out.missing_newline = True
    return out


def is_valid_header(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("type") == "session" and isinstance(entry.get("id"), str)


def read_session_file(path: str) -> LoadedFile:
    with open(path, "rb") as f:
        data = f.read()
    return parse_session_bytes(data)


def read_header(path: str, limit: int = 1024 * 1024) -> dict[str, Any] | None:
    """The header of a session file, reading only until the first parsed line (upstream's
    bounded discovery scan); None for unreadable, empty or non-session files."""
    try:
        with open(path, "rb") as f:
            buf = b""
            while len(buf) <= limit:
                chunk = f.read(4096)
                if not chunk:
                    lines = buf.split(b"\n")
                    break
                buf += chunk
                if b"\n" in chunk:
                    lines = buf.split(b"\n")
                    # Keep reading if every complete line so far is blank/malformed.
                    for line in lines[:-1]:
                        value = _try(line)
                        if value is not _SKIP:
                            return value if is_valid_header(value) else None
                    continue
            else:
                return None
    except OSError:
        return None
    for line in lines:
        value = _try(line)
        if value is not _SKIP:
            return value if is_valid_header(value) else None
    return None


_SKIP = object()


def _try(line: bytes) -> Any:
    if not line.strip():
        return _SKIP
    try:
        return _parse_line(line)
    except orjson.JSONDecodeError:
        return _SKIP
