"""Session-event output: agent-loop events wait for queue space (backpressure), all other
events are queued without waiting unless the output queue is over its hard limit (a client
that stops reading cannot grow memory); after shutdown begins, events are dropped (upstream
unsubscribes the event stream first thing when it shuts down).

An event that cannot be serialised or queued is dropped with one line on stderr; it never
fails the code that emitted it (an agent run, a command)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from pi_rpc.log import logger
from pi_rpc.modes.wire.output import WriterClosed  # (loaded anyway: the server writes through it)
from pi_rpc.modes.wire.protocol.names import BLOCKING_EVENT_TYPES


class RecordSink(Protocol):
    """Where records go: the stdio ``RecordWriter`` or the in-memory transport."""

    async def send(self, record: Any) -> None: ...

    def send_nowait(self, record: Any) -> None: ...

    async def send_bounded(self, record: Any) -> None: ...


def report_dropped(record: Any, exc: BaseException) -> None:
    """One stderr line for a record that could not be written (never raises)."""
    try:
        kind = record.get("type") if isinstance(record, dict) else type(record).__name__
        logger().error(f"pi_rpc: dropped a {kind!s:.40} record that could not be written: {exc!r:.300}")
    except Exception:  # noqa: BLE001 - a broken __repr__
        pass


class EventEmitter:
    def __init__(self, sink: RecordSink) -> None:
        self._sink = sink
        self._closed = False
        # The stdio writer queues a record without a coroutine when it has room (one per
        # streamed delta); other sinks always go through ``send``.
        self._try_send: Callable[[Any], bool] | None = getattr(sink, "try_send", None)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        self._closed = True

    def try_emit(self, event: Mapping[str, object]) -> bool:
        """``emit`` without a coroutine when it cannot wait: True when the event was handled
        (queued, or dropped as ``emit`` drops it); False when the caller must ``await
        emit(event)`` (no room in the queue, a sink without ``try_send``, a non-blocking type)."""
        if self._closed:
            return True
        if self._try_send is None or event.get("type") not in BLOCKING_EVENT_TYPES:
            return False
        try:
            return self._try_send(event)
        except Exception as exc:  # noqa: BLE001 - as in emit
            if not isinstance(exc, WriterClosed):
                report_dropped(event, exc)
            return True

    async def emit(self, event: Mapping[str, object]) -> None:
        if self._closed:
            return
        try:
            if event.get("type") in BLOCKING_EVENT_TYPES:
                if self._try_send is None or not self._try_send(event):
                    await self._sink.send(event)
            else:
                await self._sink.send_bounded(event)
        except Exception as exc:  # noqa: BLE001 - writer closed: shutting down; anything else: drop it
            if not isinstance(exc, WriterClosed):
                report_dropped(event, exc)

    def emit_nowait(self, event: Mapping[str, object]) -> None:
        if self._closed:
            return
        try:
            self._sink.send_nowait(event)
        except Exception as exc:  # noqa: BLE001 - an unwritable event is dropped and reported, never raised
            if not isinstance(exc, WriterClosed):
                report_dropped(event, exc)

    def send_direct(self, record: Mapping[str, object]) -> None:
        """A record that is not part of the event stream and is written even after the stream
        stopped (extension UI requests and errors, which upstream writes straight to stdout,
        e.g. from ``session_shutdown`` handlers at exit)."""
        try:
            self._sink.send_nowait(record)
        except Exception as exc:
            if not isinstance(exc, WriterClosed):
                raise

    async def send_raw(self, record: dict[str, Any]) -> None:
        """Any other outbound record (e.g. ``extension_ui_request``), written in order."""
        await self.emit(record)
