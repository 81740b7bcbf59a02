"""Input framing: split a byte stream into records on LF only.

Rules (protocol reference §1.2, plus our frame cap):
- only ``b"\\n"`` ends a record; U+2028/U+2029, VT, FF, lone CR are content;
- one trailing ``b"\\r"`` per record is stripped (CRLF accepted);
- UTF-8 is decoded per *complete* record, so a character split across reads is reassembled
  (0x0A never occurs inside a multi-byte UTF-8 sequence);
- an unterminated last record is delivered at EOF;
- a record longer than ``max_frame_bytes`` yields ONE ``FrameTooLarge`` as soon as the cap is
  crossed; its remaining bytes up to the next LF are dropped without being buffered, so memory
  stays bounded by the cap plus one read chunk.

``LineFramer`` is sans-IO (feed bytes, get records); ``read_frames`` drives it from a file
descriptor under anyio.
"""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncGenerator
from dataclasses import dataclass

DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024
READ_CHUNK = 256 * 1024


@dataclass(frozen=True)
class FrameTooLarge:
    """Marker for a record that exceeded the cap (its bytes were discarded)."""

    limit: int


Frame = bytes | FrameTooLarge


class LineFramer:
    """Incremental LF splitter with a per-record byte cap. Not thread-safe."""

    __slots__ = ("max_frame_bytes", "_parts", "_size", "_discarding")

    def __init__(self, max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None:
        if max_frame_bytes <= 0:
            raise ValueError("max_frame_bytes must be positive")
        self.max_frame_bytes = max_frame_bytes
        self._parts: list[bytes] = []
        self._size = 0
        self._discarding = False

    @property
    def buffered(self) -> int:
        """Bytes held for the current, unterminated record."""
        return self._size

    def feed(self, data: bytes) -> list[Frame]:
        out: list[Frame] = []
        if not data:
            return out
        limit = self.max_frame_bytes
        start = 0
        if self._discarding:
            nl = data.find(b"\n")
            if nl < 0:
                return out
            self._discarding = False
            start = nl + 1
        last_nl = data.rfind(b"\n", start)
        if last_nl >= 0:
            # C-speed split of all complete records in this chunk.
            pieces = data[start:last_nl].split(b"\n")
            if self._parts:
                self._parts.append(pieces[0])
                pieces[0] = b"".join(self._parts)
                self._parts = []
                self._size = 0
            for rec in pieces:
                if len(rec) > limit:
                    # Only reachable when a whole oversized record arrived in one chunk (or
                    # its buffered head plus this chunk's tail crossed the cap at once).
                    out.append(FrameTooLarge(limit))
                    continue
                if rec[-1:] == b"\r":
                    rec = rec[:-1]
                out.append(rec)
            start = last_nl + 1
        if start < len(data):
            tail = data[start:] if start else data
            size = self._size + len(tail)
            if size > limit:
                out.append(FrameTooLarge(limit))
                self._parts = []
                self._size = 0
                self._discarding = True
            else:
                self._parts.append(tail)
                self._size = size
        return out

    def feed_eof(self) -> list[Frame]:
        """Flush an unterminated last record (empty remainder -> nothing)."""
        if self._discarding:
            self._discarding = False
            return []
        if not self._parts:
            return []
        rec = b"".join(self._parts)
        self._parts = []
        self._size = 0
        if rec[-1:] == b"\r":
            rec = rec[:-1]
        return [rec]


def _pollable(fd: int) -> bool:
    """epoll refuses regular files (and /dev/null); those never block, so read them directly."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode) and os.isatty(fd)


@dataclass
class ReadSoFar:
    """Input already read from the descriptor before ``read_frames`` took over: the framer
    (with any partial record), the complete records not handled yet, and whether EOF was seen."""

    framer: LineFramer
    frames: list[Frame]
    eof: bool = False


async def read_frames(
    fd: int = 0,
    *,
    max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
    chunk_size: int = READ_CHUNK,
    so_far: ReadSoFar | None = None,
) -> AsyncGenerator[Frame, None]:
    """Yield frames from ``fd`` until EOF (including the unterminated last record).

    Pipes, sockets and TTYs are awaited with ``anyio.wait_readable`` and read without
    blocking the loop; the descriptor's blocking flag is left alone (it may be shared with
    the parent). Regular files are read directly, yielding to the loop between chunks.
    With ``so_far``, its frames come first and reading goes on with its framer.
    """
    import anyio

    if so_far is not None:
        for frame in so_far.frames:
            yield frame
        if so_far.eof:
            return
        framer = so_far.framer
    else:
        framer = LineFramer(max_frame_bytes)
    pollable = _pollable(fd)
    while True:
        if pollable:
            try:
                await anyio.wait_readable(fd)
            except (OSError, ValueError, NotImplementedError):
                pollable = False
        else:
            await anyio.sleep(0)
        try:
            data = os.read(fd, chunk_size)
        except BlockingIOError:
            continue
        except InterruptedError:
            continue
        except OSError:
            data = b""
        if not data:
            for frame in framer.feed_eof():
                yield frame
            return
        for frame in framer.feed(data):
            yield frame
