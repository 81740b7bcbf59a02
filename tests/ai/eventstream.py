"""A small encoder of AWS event-stream frames (``application/vnd.amazon.eventstream``), the
binary framing Bedrock's ConverseStream answers in: a prelude (total length, headers length,
CRC32 of those eight bytes), typed headers, the payload, and a CRC32 of everything before it.
Written from the format's description so the stubs do not depend on the decoder under test;
``test_bedrock_wire`` checks it against botocore's ``EventStreamBuffer``."""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any

_STRING = 7


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    return struct.pack("!B", len(raw_name)) + raw_name + struct.pack("!BH", _STRING, len(raw_value)) + raw_value


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One message; every header a string."""
    head = b"".join(_header(k, v) for k, v in headers.items())
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack("!II", total, len(head))
    prelude += struct.pack("!I", zlib.crc32(prelude))
    body = prelude + head + payload
    return body + struct.pack("!I", zlib.crc32(body))


def event(event_type: str, payload: dict[str, Any]) -> bytes:
    """A ConverseStream event (``messageStart``, ``contentBlockDelta``, ``metadata``, …)."""
    headers = {":event-type": event_type, ":content-type": "application/json", ":message-type": "event"}
    return frame(headers, json.dumps(payload).encode())


def exception(exception_type: str, message: str) -> bytes:
    """A modeled exception frame (``throttlingException``, ``modelStreamErrorException``, …)."""
    headers = {":exception-type": exception_type, ":content-type": "application/json", ":message-type": "exception"}
    return frame(headers, json.dumps({"message": message}).encode())


def error(code: str, message: str) -> bytes:
    """An unmodeled error frame (``:message-type: error``)."""
    return frame({":error-code": code, ":error-message": message, ":message-type": "error"}, b"")
