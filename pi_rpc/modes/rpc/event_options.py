"""``set_event_options`` and ``get_events``: sequence numbers and run ids on the output stream,
and the replay ring, all off until a client asks.

With both options off nothing here runs per record: the writer's ``on_enqueue`` hook is None.
Once on, the hook sees every line in the order it enters the writer's queue, which is the
order it reaches stdout (one writer task, FIFO), and rewrites it there:

- ``runId``: an event emitted from a run's task gets ``"runId":"<id>"`` (``runtime.run_context``);
  responses never do;
- ``seq``: every line gets ``"seq":<n>``, n growing by exactly 1; events also go to the ring.

Both are spliced into the encoded line before its closing brace (after every other key): no
dict copy, no re-encoding. ``seq`` changes exactly at the response that changes it:
the response that turns it on is numbered 1 (the ring starts empty), the response that turns
it off is the first line without a number. A ``set_event_options`` that changes ``seq`` waits
until the previous such response is queued, so concurrent calls still apply in order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_rpc.modes.wire.event_ring import DEFAULT_EVENT_BUFFER, EVENT_RING_MAX_BYTES, EventRing
from pi_rpc.modes.wire.jsonout import dumps_record
from pi_rpc.runtime.run_context import current_run_id

if TYPE_CHECKING:
    import anyio

    from pi_rpc.modes.wire.output import RecordWriter

ERR_SEQ_OFF = (
    'Event replay needs sequence numbers: send {"type":"set_event_options","seq":true} first; '
    "get_events returns the events numbered since then"
)


_LARGE_LINE = 1 << 16


def splice_field(line: bytes, fields: bytes) -> bytes:
    """``line`` (one JSON object and its LF) with ``fields`` (``,"k":v...``) added before the
    closing brace."""
    if line[-3:-2] == b"{":  # an empty object takes no comma
        fields = fields[1:]
    if len(line) < _LARGE_LINE:
        return b"%b%b}\n" % (line[:-2], fields)  # fastest for the usual small line
    return b"".join((memoryview(line)[:-2], fields, b"}\n"))  # one copy of a big one


class EventOptions:
    """The per-process ``set_event_options`` state, bound to the server's record writer."""

    def __init__(
        self,
        writer: RecordWriter,
        *,
        ring_records: int = DEFAULT_EVENT_BUFFER,
        ring_bytes: int = EVENT_RING_MAX_BYTES,
    ) -> None:
        self._writer = writer
        self.seq = False
        self.run_id = False
        # Tag the "default" session's events with "handle" too (the others' always are);
        # applied where events are emitted (``session_host.HandleEvents``), not here.
        self.handle = False
        self.ring = EventRing(ring_records, ring_bytes)
        self._next_seq = 1
        # (the response data that switches seq, the value it switches to) and its "queued" event
        self._pending: tuple[dict[str, Any], bool] | None = None
        self._pending_queued: anyio.Event | None = None
        self._run_id_str: str | None = None
        self._run_id_field = b""

    @property
    def features(self) -> dict[str, bool]:
        return {"seq": self.seq, "runId": self.run_id, "handle": self.handle}

    # ------------------------------------------------------------------ changes

    async def update(
        self, *, seq: bool | None = None, run_id: bool | None = None, handle: bool | None = None
    ) -> dict[str, bool]:
        """Apply a ``set_event_options`` (None leaves a field as it is) and return the effective
        options: the data of its response, which must be that exact dict (see ``_on_enqueue``)."""
        while self._pending_queued is not None:
            await self._pending_queued.wait()
        if run_id is not None:
            self.run_id = run_id
        if handle is not None:
            self.handle = handle
        target = self.seq if seq is None else seq
        data = {"seq": target, "runId": self.run_id}
        if handle is not None or self.handle:
            # Only for a client that uses it: everyone else keeps the answer's old shape.
            data["handle"] = self.handle
        if target != self.seq:
            import anyio

            self._pending = (data, target)
            self._pending_queued = anyio.Event()
        self._sync_hook()
        return data

    def _sync_hook(self) -> None:
        active = self.seq or self.run_id or self._pending is not None
        self._writer.on_enqueue = self._on_enqueue if active else None

    def _switch_seq(self, on: bool) -> None:
        self.seq = on
        self._next_seq = 1
        self.ring.clear()
        pending_queued = self._pending_queued
        self._pending = None
        self._pending_queued = None
        if pending_queued is not None:
            pending_queued.set()
        self._sync_hook()

    # ------------------------------------------------------------------ the writer hook

    def _on_enqueue(self, line: bytes, record: Any) -> bytes:
        is_response = type(record) is dict and record.get("type") == "response"
        pending = self._pending
        if pending is not None and is_response and record.get("data") is pending[0]:
            self._switch_seq(pending[1])
        fields = b""
        if self.run_id and not is_response:
            run_id = current_run_id()
            if run_id is not None:
                if run_id is not self._run_id_str:
                    self._run_id_str = run_id
                    self._run_id_field = b',"runId":' + dumps_record(run_id)
                fields = self._run_id_field
        if self.seq:
            seq = self._next_seq
            self._next_seq = seq + 1
            line = splice_field(line, b'%b,"seq":%d' % (fields, seq))
            if not is_response:
                self.ring.append(seq, line)
        elif fields:
            line = splice_field(line, fields)
        return line
