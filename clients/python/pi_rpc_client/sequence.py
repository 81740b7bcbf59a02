"""Gap recovery with sequence numbers (pi_rpc's protocol beyond upstream 1.6; upstream pi has no ``seq``).

With ``set_event_options {"seq": true}`` every stdout record carries ``seq``, one more than the previous
record's, and ``get_events {sinceSeq}`` replays the events (not responses) numbered above a point from
a bounded ring on the server. A consumer that lost records (it attached late, its buffer overflowed,
the UI that showed them reloaded) fetches exactly what it missed instead of restarting the agent.

- :class:`SeqTracker` is the bookkeeping, without I/O: which events to deliver, in order, exactly once.
  Responses are numbered too; the client reports the numbers of the responses it consumed
  (``note_response``), so they are not mistaken for missed events.
- :class:`SequencedEvents` (``RpcClient.sequenced_events()``) turns ``seq`` on and delivers events in
  ``seq`` order, exactly once, with an optionally bounded buffer: when the consumer falls behind by more
  than ``max_buffer`` records, new records are dropped and later fetched with ``get_events``, so a slow
  consumer costs bounded memory and loses nothing while the server's ring still holds the events.
  ``AsyncRpcClient.sequenced_events()`` is the same on anyio (``pi_rpc_client.aio``).
- When the ring no longer holds what was missed (``truncated``), :class:`EventsLost` is raised: rebuild
  the view from ``get_state``/``get_messages``/``get_entries``, then carry on (``last_seq`` has moved on).
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from typing import TYPE_CHECKING, Any

from .errors import RpcError

if TYPE_CHECKING:
    from .client import RpcClient

Record = dict[str, Any]


class EventsLost(RpcError):
    """Events after ``since_seq`` were dropped from the server's ring before they could be replayed."""

    def __init__(self, since_seq: int, until_seq: int) -> None:
        super().__init__(
            f"events after seq {since_seq} (before {until_seq}) are no longer kept by the server "
            "(get_events: truncated); rebuild the view from get_state / get_messages"
        )
        self.since_seq = since_seq
        self.until_seq = until_seq


class SeqTracker:
    """Sans-I/O: feed it records in arrival order (``classify``), the numbers of the responses
    consumed elsewhere (``note_response``) and replays (``fill``)."""

    DELIVER = "deliver"
    OLD = "old"
    GAP = "gap"

    def __init__(self, last_seq: int = 0) -> None:
        self.last_seq = last_seq
        self._responses: set[int] = set()

    def note_response(self, seq: int) -> None:
        if seq > self.last_seq:
            self._responses.add(seq)

    def _skip_responses(self) -> None:
        while self.last_seq + 1 in self._responses:
            self._responses.discard(self.last_seq + 1)
            self.last_seq += 1

    def classify(self, event: Record) -> str:
        """``DELIVER`` (next in order; ``last_seq`` advances), ``OLD`` (already delivered or before
        the start: drop it) or ``GAP`` (events between ``last_seq`` and this one are missing).
        An event without ``seq`` (numbering off) is always delivered."""
        seq = event.get("seq")
        if type(seq) is not int:
            return self.DELIVER
        self._skip_responses()
        if seq <= self.last_seq:
            return self.OLD
        if seq == self.last_seq + 1:
            self.last_seq = seq
            return self.DELIVER
        return self.GAP

    def fill(self, replay: Record, until_seq: int | None = None) -> list[Record]:
        """The missing events from a ``get_events {sinceSeq: last_seq}`` answer, in order (those
        below ``until_seq`` when given); ``last_seq`` moves past them.

        A ``truncated`` answer raises :class:`EventsLost` after moving ``last_seq`` past the whole
        gap (to ``until_seq - 1``, or to the answer's ``lastSeq``): the caller rebuilds its view
        from the state queries, and the stream goes on with the first event after the gap."""
        since = self.last_seq
        events = [
            e
            for e in replay.get("events", [])
            if since < e.get("seq", 0) and (until_seq is None or e.get("seq", 0) < until_seq)
        ]
        if replay.get("truncated"):
            end = until_seq - 1 if until_seq is not None else int(replay.get("lastSeq", since))
            self.last_seq = max(since, end)
            self._responses = {s for s in self._responses if s > self.last_seq}
            raise EventsLost(since, self.last_seq + 1)
        if events:
            self.last_seq = events[-1]["seq"]
        if until_seq is not None:
            # Numbers between the replayed events and ``until_seq`` were responses.
            self.last_seq = max(self.last_seq, until_seq - 1)
        self._responses = {s for s in self._responses if s > self.last_seq}
        return events


_END = object()


class SequencedEvents:
    """Events in ``seq`` order, each exactly once, gaps filled from ``get_events``. Create with
    :meth:`RpcClient.sequenced_events`; iterate, or call :meth:`next`; close (or use ``with``)."""

    def __init__(
        self,
        client: "RpcClient",
        *,
        max_buffer: int | None = None,
        since: int | None = None,
        run_id: bool | None = None,
        timeout: float | None = None,
    ) -> None:
        if max_buffer is not None and max_buffer < 1:
            raise ValueError("max_buffer must be positive")
        self._client = client
        self._max = max_buffer
        self._q: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._size = 0
        self._size_lock = threading.Lock()
        self._ready: deque[Record] = deque()
        self.dropped = 0  # records the bounded buffer let go (recovered later through get_events)
        self._dropped_through = 0  # the highest seq it let go
        self.replayed = 0  # events delivered from get_events answers
        self.closed = False
        self._resume = False
        self.tracker = SeqTracker()
        # Subscribe before turning seq on, so nothing after the switch is missed.
        self._unobserve = client._observe_records(self._on_record)
        try:
            if since is None:
                command: Record = {"type": "set_event_options", "seq": True}
                if run_id is not None:
                    command["runId"] = run_id
                response = client.request(command, timeout)
                self.tracker.last_seq = int(response.get("seq", 0))
            else:
                # Resume where an earlier consumer stopped (seq must still be on): the first
                # next() replays everything after ``since``.
                self.tracker.last_seq = since
                self._resume = True
        except BaseException:
            self.close()
            raise

    # ---------------------------------------------------------------- reader thread
    def _on_record(self, rec: Record | None) -> None:
        if rec is None:
            self._q.put(_END)
            return
        seq = rec.get("seq")
        if rec.get("type") == "response":
            if type(seq) is int:
                self.tracker.note_response(seq)
            return
        with self._size_lock:
            if self._max is not None and self._size >= self._max:
                self.dropped += 1
                if type(seq) is int:
                    self._dropped_through = max(self._dropped_through, seq)
                return
            self._size += 1
        self._q.put(rec)

    # ---------------------------------------------------------------- consumer
    def _catch_up(self, timeout: float | None, until_seq: int | None = None) -> None:
        replay = self._client.request({"type": "get_events", "sinceSeq": self.tracker.last_seq}, timeout)
        missed = self.tracker.fill(replay.get("data") or {}, until_seq)
        self.replayed += len(missed)
        self._ready.extend(missed)

    def next(self, timeout: float | None = None) -> Record:
        """The next event in order. RpcTimeoutError after ``timeout`` s, RpcProcessExited when the
        process is gone, :class:`EventsLost` when missed events can no longer be replayed."""
        from .errors import RpcTimeoutError

        if self._resume:
            self._resume = False
            self._catch_up(timeout)
        while True:
            if self._ready:
                return self._ready.popleft()
            if self._dropped_through > self.tracker.last_seq and self._q.empty():
                # Everything buffered is delivered and the newest records were let go: fetch them
                # now rather than wait for a later record to reveal the gap.
                self._catch_up(timeout)
                continue
            try:
                item = self._q.get(timeout=timeout) if timeout is not None else self._q.get()
            except queue.Empty:
                raise RpcTimeoutError("next event", timeout or 0.0) from None
            if item is _END:
                self._q.put(_END)
                raise self._client._exit_error("waiting for events")
            with self._size_lock:
                self._size -= 1
            verdict = self.tracker.classify(item)
            if verdict == SeqTracker.DELIVER:
                return item
            if verdict == SeqTracker.GAP:
                try:
                    self._catch_up(timeout, until_seq=item["seq"])
                finally:  # after EventsLost too, the stream goes on with this event
                    self.tracker.last_seq = item["seq"]
                    self._ready.append(item)

    def __iter__(self) -> Any:
        from .errors import RpcProcessExited

        while True:
            try:
                yield self.next()
            except RpcProcessExited:
                return

    @property
    def last_seq(self) -> int:
        """The number of the last record accounted for: store it to resume later (``since=``)."""
        return self.tracker.last_seq

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._unobserve()

    def __enter__(self) -> "SequencedEvents":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["EventsLost", "SeqTracker", "SequencedEvents"]
