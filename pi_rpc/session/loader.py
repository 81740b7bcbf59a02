"""Reading a session file: permissive like upstream (blank and malformed lines are skipped)
but every skipped line is reported, and the damage a crash leaves at the end of the file is
classified so the manager can repair it.

Lines are split on LF only (never ``str.splitlines``: U+2028/U+2029 are legal inside JSON
strings) and parsed with ``orjson.loads`` on bytes, one call per line.
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import orjson

from pi_rpc.ai.jsjson import loads as js_loads
from pi_rpc.session._gc import gc_paused
from pi_rpc.session.errors import SessionNotAFileError

_TYPE_MARK = b'{"type":"'


@dataclass
class LoadedFile:
    """What reading a session file gave: its entries, problems found, and where a torn tail starts."""

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


def _parse_line(line: bytes) -> object:
    """As node reads a line: invalid UTF-8 becomes U+FFFD (StringDecoder), and what
    ``JSON.parse`` accepts but orjson refuses (lone surrogate escapes, which a JS client's
    strings put into session files) is parsed too. Raises ``orjson.JSONDecodeError``."""
    return js_loads(line)


def salvage_line(line: bytes) -> Any | None:
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
    return _parse_all(io.BytesIO(data))


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, as a refusal names it (``a FIFO``)."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_regular(path: str) -> BinaryIO:
    """``open(path, "rb")`` for a file that must be a regular file (a session, a file to
    import): opened without blocking (a FIFO would wait for a writer), then refused with
    ``SessionNotAFileError`` unless it is a regular file, so what is read is bounded by the
    file's size. ``OSError`` as ``open`` raises it."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise SessionNotAFileError(path, file_kind(mode))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_session_file(path: str) -> LoadedFile:
    with open_regular(path) as f:
        return _parse_all(f)


def _parse_all(f: BinaryIO) -> LoadedFile:
    out = LoadedFile()
    with gc_paused():
        out.entries.extend(iter_parsed_lines(f, out))
    return out


def iter_parsed_lines(f: BinaryIO, out: LoadedFile) -> Iterator[dict[str, object]]:
    """Parse the lines of the binary file ``f`` (split on LF only, as binary iteration does)
    and yield each entry as soon as it is parsed, so the caller can index it while it is in
    the CPU cache. ``out`` gets everything else (diagnostics, sizes, the torn tail) and is
    complete once the iterator is exhausted; its ``entries`` are left alone. Streaming keeps
    neither the whole file nor a list of its lines alive next to the parsed entries.

    The common case costs one ``orjson.loads`` per line: a line is parsed with its LF (JSON
    whitespace, so it parses with it exactly when without it); everything else is worked
    out on the rare lines that do not parse and once at the end."""
    diags = out.diagnostics
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    number = 0
    line = b""
    blank_lines = 0
    torn: bytes | None = None
    for number, line in enumerate(f, 1):
        try:
            value = loads(line)
        except decode_error:
            if line[-1:] != b"\n":
                torn = line  # the last line, without its LF, and it does not parse: see below
                break
            text = line[:-1]
            if not text.strip():
                blank_lines += 1
                continue
            try:
                value = _parse_line(text)
            except decode_error:
                salvaged = salvage_line(text)
                if salvaged is not None:
                    diags.append(
                        f"line {number}: malformed JSON ({len(text)} bytes); recovered the entry "
                        f"appended after a torn line"
                    )
                    yield salvaged
                else:
                    diags.append(f"line {number}: skipped malformed JSON ({len(text)} bytes)")
                continue
        if value.__class__ is dict:
            yield value
        else:
            diags.append(f"line {number}: skipped a JSON value that is not an object")
    out.size = f.tell()
    tail = line if line[-1:] != b"\n" else b""  # what follows the last LF
    out.valid_len = out.size - len(tail)
    out.missing_newline = bool(tail)
    if torn is None or not torn.strip():
        # Without a torn line, a last line without LF parsed (or is whitespace): only the
        # newline is missing.
        out.blank = blank_lines == number - (1 if torn is not None else 0)
        return
    out.blank = False
    try:
        value = _parse_line(torn)
    except decode_error:
        out.missing_newline = False
        out.torn_tail = torn
        diags.append(f"line {number}: torn last line ({len(torn)} bytes, no newline, not valid JSON)")
        return
    if type(value) is dict:
        yield value
    else:
        diags.append(f"line {number}: skipped a JSON value that is not an object")


def is_valid_header(entry: object) -> bool:
    return isinstance(entry, dict) and entry.get("type") == "session" and isinstance(entry.get("id"), str)


def read_header(path: str, limit: int = 1024 * 1024) -> dict[str, object] | None:
    """The header of a session file, reading only until the first parsed line (upstream's
    bounded discovery scan); None for unreadable, empty or non-session files."""
    try:
        with open_regular(path) as f:
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
    except (OSError, SessionNotAFileError):
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
