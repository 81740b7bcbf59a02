"""The bounded replay buffer behind ``get_events``: the last event lines written while ``seq``
numbering is on, kept as the exact bytes that went to stdout.

Keeping bytes rather than dicts means a replayed event is byte-identical to the original
(``orjson.Fragment`` splices it into the answer unchanged), costs no re-encoding, and shares
the line object the writer queued, so the ring adds no copy while the line is in flight.
It is bounded twice: by a record count (``--event-buffer``, default 10,000) and by the total
size of the lines it holds (32 MiB); the oldest lines go first. A line larger than the byte
cap is never kept. ``dropped_through`` remembers the newest sequence number that was dropped,
which is how ``get_events`` knows its answer is ``truncated``.
"""

from __future__ import annotations

from collections import deque

from pi_rpc.config.cli_args import DEFAULT_EVENT_BUFFER

EVENT_RING_MAX_BYTES = 32 * 1024 * 1024


__all__ = ["DEFAULT_EVENT_BUFFER", "EVENT_RING_MAX_BYTES", "EventRing"]


class EventRing:
    __slots__ = ("max_records", "max_bytes", "_seqs", "_lines", "_bytes", "dropped_through")

    def __init__(self, max_records: int = DEFAULT_EVENT_BUFFER, max_bytes: int = EVENT_RING_MAX_BYTES) -> None:
        if max_records < 0 or max_bytes < 0:
            raise ValueError("event ring limits must not be negative")
        self.max_records = max_records
        self.max_bytes = max_bytes
        self._seqs: deque[int] = deque()
        self._lines: deque[bytes] = deque()
        self._bytes = 0
        self.dropped_through = 0

    def __len__(self) -> int:
        return len(self._seqs)

    @property
    def size_bytes(self) -> int:
        return self._bytes

    def append(self, seq: int, line: bytes) -> None:
        """Keep ``line`` (one written record, with its LF) under sequence number ``seq``;
        numbers must grow."""
        size = len(line)
        if size > self.max_bytes or self.max_records == 0:
            self.dropped_through = seq
            return
        self._seqs.append(seq)
        self._lines.append(line)
        self._bytes += size
        while len(self._seqs) > self.max_records or self._bytes > self.max_bytes:
            self.dropped_through = self._seqs.popleft()
            self._bytes -= len(self._lines.popleft())

    def since(self, since_seq: int) -> tuple[list[tuple[int, bytes]], bool]:
        """The kept ``(seq, line)`` pairs with ``seq > since_seq``, oldest first, and whether
        some line numbered above ``since_seq`` was already dropped."""
        found: list[tuple[int, bytes]] = []
        for seq, line in zip(reversed(self._seqs), reversed(self._lines)):
            if seq <= since_seq:
                break
            found.append((seq, line))
        found.reverse()
        return found, self.dropped_through > since_seq

    def clear(self) -> None:
        self._seqs.clear()
        self._lines.clear()
        self._bytes = 0
        self.dropped_through = 0
