"""Server-Sent Events framing shared by every HTTP provider.

Hand-written rather than httpx-sse because we need an incremental, push-style parser
(``feed(bytes) -> events``) that the provider loop drives between cancellable network reads,
plus two behaviours httpx-sse does not give us: flushing a pending event at EOF without a
trailing blank line (Ollama, Groq's trailing ``event: error``) and line splitting on ``\\r``,
``\\n`` and ``\\r\\n`` even when a CRLF pair is split across network chunks (Gemini sends CRLF).

Rules (providers.md §1): UTF-8 decoded incrementally; a line starting with ``:`` is a comment
(OpenRouter keep-alives); ``field: value`` strips one leading space; ``data`` lines of one event
are joined with ``\\n``; an empty line dispatches; ``id``/``retry`` are ignored.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass


@dataclass(slots=True)
class SSEEvent:
    """One dispatched server-sent event: its ``event`` field (None when absent) and joined data."""

    event: str | None
    data: str


class SSEParser:
    """Incremental SSE parser: feed raw bytes, get the events completed so far."""

    __slots__ = ("_decoder", "_buf", "_event", "_data", "_has_data", "_pending_cr")

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buf = ""
        self._event: str | None = None
        self._data: list[str] = []
        self._has_data = False
        # A chunk that ends in "\r" may be the first half of "\r\n".
        self._pending_cr = False

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        text = self._decoder.decode(chunk)
        if not text:
            return []
        if self._pending_cr:
            self._pending_cr = False
            if text[0] == "\n":
                text = text[1:]
        buf = self._buf + text
        out: list[SSEEvent] = []
        if "\r" in buf:
            if buf.endswith("\r"):
                self._pending_cr = True
            buf = buf.replace("\r\n", "\n").replace("\r", "\n")
        if not self._has_data and self._event is None:
            # No event half read: one blank-line-terminated event at a time. The common one, a
            # single ``data: <json>`` line, is taken whole; any other goes line by line.
            events = buf.split("\n\n")
            buf = events.pop()
            for event in events:
                if event.startswith("data: ") and "\n" not in event:
                    out.append(SSEEvent(None, event[6:]))
                else:
                    for line in event.split("\n"):
                        self._line(line, out)
                    self._dispatch(out)
            if "\n" not in buf:
                self._buf = buf  # a partial line (the usual end of a read)
                return out
            # The complete lines of an unfinished event go on below (only the last, partial
            # line waits for more), so nothing is parsed twice however long the event.
        lines = buf.split("\n")
        self._buf = lines.pop()
        # The common line, ``data: <json>``, and the blank line that ends an event are handled
        # inline (one per streamed delta each); any other line goes through ``_line``.
        data = self._data
        for line in lines:
            if not line:
                if self._has_data:
                    out.append(SSEEvent(self._event, data[0] if len(data) == 1 else "\n".join(data)))
                    data = self._data = []
                    self._has_data = False
                self._event = None
            elif line.startswith("data: "):
                data.append(line[6:])
                self._has_data = True
            else:
                self._line(line, out)
                data = self._data
        return out

    def flush(self) -> list[SSEEvent]:
        """End of stream: a partial last line and an undispatched event still count."""
        out: list[SSEEvent] = []
        rest = self._buf + self._decoder.decode(b"", final=True)
        self._buf = ""
        if rest:
            for line in rest.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
                self._line(line, out)
        self._dispatch(out)
        return out

    def _line(self, line: str, out: list[SSEEvent]) -> None:
        if not line:
            self._dispatch(out)
            return
        if line[0] == ":":
            return
        field, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
            self._has_data = True
        elif field == "event":
            self._event = value
        # id / retry / unknown fields are ignored.

    def _dispatch(self, out: list[SSEEvent]) -> None:
        if self._has_data:
            out.append(SSEEvent(self._event, "\n".join(self._data)))
        self._event = None
        self._data = []
        self._has_data = False


def parse_sse_bytes(raw: bytes) -> list[SSEEvent]:
    """Parse a complete SSE body at once (tests, tools)."""
    parser = SSEParser()
    return parser.feed(raw) + parser.flush()
