"""Reading a child process's stdout as the protocol frames it: LF-terminated lines, split on
``b"\\n"`` only (U+2028 inside a string is content). Shared by the test clients
(``tests/conftest.py``, ``tests/runtime/rt_client.py``, ``tests/reliability/harness.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO


def stream_lines(stream: IO[bytes]) -> Iterator[tuple[bytes, bool]]:
    """``(line, True)`` for each LF-terminated line until EOF, then ``(rest, False)`` when the
    stream ended inside a line. Pending bytes are kept as a list of pieces, so a line of many
    megabytes costs one join, not a copy per read."""
    pending: list[bytes] = []
    read = getattr(stream, "read1", None) or stream.read
    while True:
        chunk = read(1 << 16)
        if not chunk:
            break
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                if start < len(chunk):
                    pending.append(chunk[start:])
                break
            piece = chunk[start:end]
            if pending:
                pending.append(piece)
                piece = b"".join(pending)
                pending = []
            yield piece, True
            start = end + 1
    if pending:
        yield b"".join(pending), False
