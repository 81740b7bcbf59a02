"""Identifiers and timestamps used in session files: UUIDv7 session ids, 8-hex entry ids,
ISO-8601 entry timestamps (ms, ``Z``) and their Unix-ms values."""

from __future__ import annotations

import os
import re
import threading
import time
import uuid
from collections.abc import Container
from datetime import datetime, timezone
from typing import Any


class OpaqueList(list[object]):
    """An id read from a file as a JSON array (``"id": ["a"]``): kept, serialised as the
    array, but equal only to itself and hashable by identity, as an array is as a key of a
    JavaScript ``Map`` (upstream's ``byId``): no other entry's ``parentId`` names it."""

    __slots__ = ()
    __hash__ = object.__hash__  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other


class OpaqueDict(dict[str, object]):
    """``OpaqueList`` for an id read as a JSON object."""

    __slots__ = ()
    __hash__ = object.__hash__  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other


def opaque_id(value: Any) -> Any:
    """``value`` usable as a key: an array or object read from a file becomes an
    ``OpaqueList``/``OpaqueDict`` (equal only to itself); anything else is returned as is."""
    cls = value.__class__
    if cls is list:
        return OpaqueList(value)
    if cls is dict:
        return OpaqueDict(value)
    return value


_uuid7_lock = threading.Lock()
_uuid7_last_ms = -1
_uuid7_last_rand = 0
_RAND_BITS = 74  # 12 bits rand_a + 62 bits rand_b
_RAND_MASK = (1 << _RAND_BITS) - 1


def uuid7(now_ms: int | None = None) -> str:
    """A RFC 9562 UUIDv7 string. Monotonic within the process: ids made in the same
    millisecond (or after a clock step back) increment the random field, so they sort
    in creation order like upstream's ``uuidv7()``."""
    global _uuid7_last_ms, _uuid7_last_rand
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    with _uuid7_lock:
        if ms <= _uuid7_last_ms:
            ms = _uuid7_last_ms
            rand = (_uuid7_last_rand + 1 + int.from_bytes(os.urandom(2), "big")) & _RAND_MASK
            if rand <= _uuid7_last_rand:  # counter overflow: borrow the next millisecond
                ms += 1
                rand = int.from_bytes(os.urandom(10), "big") & _RAND_MASK
        else:
            rand = int.from_bytes(os.urandom(10), "big") & _RAND_MASK
        _uuid7_last_ms, _uuid7_last_rand = ms, rand
    rand_a = rand >> 62
    rand_b = rand & ((1 << 62) - 1)
    value = (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | rand_a << 64 | 0b10 << 62 | rand_b
    return str(uuid.UUID(int=value))


def new_entry_id(existing: Container[str]) -> str:
    """8 hex chars from a random UUIDv4, re-drawn on collision; a full UUID after 100 tries."""
    for _ in range(100):
        candidate = str(uuid.uuid4())[:8]
        if candidate not in existing:
            return candidate
    return str(uuid.uuid4())


def iso_from_ms(ms: int) -> str:
    """``new Date(ms).toISOString()``."""
    dt = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def now_iso() -> str:
    """``new Date().toISOString()``: e.g. ``2026-11-29T19:34:22.716Z``."""
    return iso_from_ms(now_ms())


_ISO_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?$")


def iso_to_ms(value: object) -> int | None:
    """``new Date(value).getTime()`` for the ISO forms pi writes; None where JS gives NaN."""
    if not isinstance(value, str):
        return None
    m = _ISO_RE.match(value)
    if not m:
        return None
    year, month, day, hh, mm, ss, frac, tz = m.groups()
    try:
        dt = datetime(
            int(year),
            int(month),
            int(day),
            int(hh or 0),
            int(mm or 0),
            int(ss or 0),
            tzinfo=timezone.utc,
        )
    except ValueError:
        return None
    ms = int(dt.timestamp()) * 1000 + (int((frac or "0")[:3].ljust(3, "0")))
    if tz and tz != "Z":
        sign = 1 if tz[0] == "+" else -1
        ms -= sign * (int(tz[1:3]) * 60 + int(tz[4:6])) * 60_000
    # Date-only and zone-less forms are local time in JS; pi never writes them.
    return ms


def file_timestamp(iso: str) -> str:
    """The file-name form of an ISO timestamp: ``:`` and ``.`` become ``-``."""
    return iso.replace(":", "-").replace(".", "-")


SESSION_ID_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")
SESSION_ID_ERROR = (
    "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', "
    "and start and end with an alphanumeric character"
)


# The longest session id: ``<timestamp>_<id>.jsonl.lock`` must fit a file name (255 bytes).
MAX_SESSION_ID_LENGTH = 200


def assert_valid_session_id(session_id: str) -> None:
    """``--session-id`` validation; raises ValueError with upstream's text (and, for an id
    no file name can hold, which upstream accepts and then fails to write, our own)."""
    if not isinstance(session_id, str) or not SESSION_ID_RE.match(session_id):
        raise ValueError(SESSION_ID_ERROR)
    if len(session_id) > MAX_SESSION_ID_LENGTH:
        raise ValueError(f"Session id is too long ({len(session_id)} characters, at most {MAX_SESSION_ID_LENGTH})")
