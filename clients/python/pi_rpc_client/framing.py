"""JSONL framing for the pi RPC wire: encode one record per line, split incoming bytes on LF only.

Why not ``readline``/``splitlines`` on text: pi writes U+2028/U+2029 raw inside JSON strings, and
``str.splitlines()`` (or universal newlines) would cut records there. Only ``b"\\n"`` ends a record;
one trailing ``b"\\r"`` is tolerated like upstream does on its input side.
"""

from __future__ import annotations

import json
from typing import Any


def encode_record(obj: Any) -> bytes:
    """Serialise like JSON.stringify: compact, raw UTF-8, one LF terminator."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def decode_record(line: bytes) -> Any:
    """Parse one record (``line`` without its LF); raises ValueError on invalid JSON."""
    if line.endswith(b"\r"):
        line = line[:-1]
    return json.loads(line.decode("utf-8", errors="replace"))


class LineSplitter:
    """Incremental LF-only splitter for chunks read from a pipe."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, chunk: bytes) -> list[bytes]:
        self._buf += chunk
        out: list[bytes] = []
        start = 0
        while True:
            nl = self._buf.find(b"\n", start)
            if nl < 0:
                break
            out.append(bytes(self._buf[start:nl]))
            start = nl + 1
        if start:
            del self._buf[:start]
        return out

    def rest(self) -> bytes:
        """Unterminated bytes left at end of stream."""
        data = bytes(self._buf)
        self._buf.clear()
        return data
