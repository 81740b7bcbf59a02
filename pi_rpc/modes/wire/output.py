"""Stdout ownership and the serialised protocol writer.

``take_over_stdout()`` runs first thing in rpc/json/print modes: fd 1 is duplicated to a
private descriptor reserved for protocol records, then fd 2 is copied onto fd 1. From then
on, anything else that writes to "stdout" (``print``, ``sys.stdout``, C extensions, child
processes that inherit fd 1) lands on stderr and cannot corrupt the stream.

``RecordWriter`` owns that private descriptor. One task writes; records are encoded by the
caller (``dumps_line``) and queued in order:
- ``await writer.send(obj)`` waits while the queue is full (backpressure: a slow reader
  slows the agent loop, as upstream);
- ``writer.send_nowait(obj)`` never waits (session-level events, like upstream's
  non-blocking queue); the record still keeps its place in the order;
- ``await writer.send_bounded(obj)`` is ``send_nowait`` until the queue is over its hard
  limit (``HARD_LIMIT_FACTOR`` times the record bound, or ``max_queue_bytes``), then waits
  like ``send``: session events stay non-blocking for a reading client, and a client that
  stops reading cannot grow memory without bound (e.g. a ``bash`` command's output).
The queue is bounded in records and in bytes (one record larger than the byte bound still
goes through on its own).
A write error other than EAGAIN (EPIPE: the reader went away) calls ``on_fatal`` once; the
RPC server then exits with code 1, no traceback.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import sys
from collections import deque
from collections.abc import Callable
from typing import Any

from pi_rpc.modes.heap import release_free_memory
from pi_rpc.modes.wire.jsonout import dumps_line

_TRIM_AFTER_BYTES = 1 << 20  # after writing this much at once, give freed heap back
DEFAULT_QUEUE_RECORDS = 256
DEFAULT_QUEUE_BYTES = 4 << 20
HARD_LIMIT_FACTOR = 4
_MAX_BATCH_BYTES = 1 << 20


class StdoutTakeover:
    """Result of ``take_over_stdout``: the private protocol fd and how to undo it."""

    def __init__(self, protocol_fd: int, saved_stdout_fd: int) -> None:
        self.protocol_fd = protocol_fd
        self._saved = saved_stdout_fd
        self.restored = False

    def restore(self) -> None:
        """Put the original stdout back on fd 1 (used by tests and on orderly exit)."""
        if self.restored:
            return
        self.restored = True
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        try:
            os.dup2(self._saved, 1)
        except OSError:
            pass
        try:
            os.close(self._saved)
        except OSError:
            pass


def take_over_stdout() -> StdoutTakeover:
    """Reserve the real stdout for protocol records and point fd 1 at stderr."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    protocol_fd = os.dup(1)  # non-inheritable: children never see the protocol stream
    saved = os.dup(1)
    os.dup2(2, 1)
    return StdoutTakeover(protocol_fd, saved)


class WriterClosed(Exception):
    """The writer was closed (shutdown or fatal write error); the record was dropped."""


class RecordWriter:
    """Serialises protocol records onto one file descriptor. See the module docstring."""

    def __init__(
        self,
        fd: int,
        *,
        max_queue: int = DEFAULT_QUEUE_RECORDS,
        max_queue_bytes: int = DEFAULT_QUEUE_BYTES,
        on_fatal: Callable[[BaseException], None] | None = None,
        encode: Callable[[object], bytes] = dumps_line,
    ) -> None:
        import anyio

        self.fd = fd
        self.max_queue = max_queue
        self.max_queue_bytes = max_queue_bytes
        self._queued_bytes = 0
        self._encode = encode
        self._on_fatal = on_fatal
        self._queue: deque[bytes] = deque()
        self._wakeup = anyio.Event()
        self._space = anyio.Event()
        self._idle = anyio.Event()
        self._idle.set()
        # Plain mirrors of "_idle is set" and "the writer task waits on _wakeup": a record is
        # queued per streamed delta, and these spare it two Event calls each.
        self._idle_now = True
        self._asleep = False
        self._closed = False
        self._failed: BaseException | None = None
        self.records_written = 0
        # set_event_options (modes.rpc.event_options): sees each line as it is queued, in
        # write order, with the record it encodes, and may rewrite it. None: not called.
        self.on_enqueue: Callable[[bytes, object], bytes] | None = None
        self._nonblocking_set = False
        self._pollable = self._prepare_fd()

    # -------------------------------------------------------------- fd setup

    def _prepare_fd(self) -> bool:
        """Pipes and sockets are written non-blocking + wait_writable (no thread per write);
        TTYs and regular files use blocking writes in a worker thread."""
        try:
            mode = os.fstat(self.fd).st_mode
        except OSError:
            return False
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            try:
                flags = fcntl.fcntl(self.fd, fcntl.F_GETFL)
                if not flags & os.O_NONBLOCK:
                    fcntl.fcntl(self.fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)
                    self._nonblocking_set = True
                return True
            except OSError:
                return False
        return False

    def _restore_fd_flags(self) -> None:
        # The file description may be shared with the parent (shell pipelines): leave it
        # blocking, as we found it.
        if self._nonblocking_set:
            self._nonblocking_set = False
            try:
                flags = fcntl.fcntl(self.fd, fcntl.F_GETFL)
                fcntl.fcntl(self.fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
            except OSError:
                pass

    # -------------------------------------------------------------- producers

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def failed(self) -> BaseException | None:
        return self._failed

    @property
    def queued_bytes(self) -> int:
        return self._queued_bytes

    def _full(self) -> bool:
        """At the normal bound (``send`` waits here); an empty queue always takes a record."""
        return bool(self._queue) and (len(self._queue) >= self.max_queue or self._queued_bytes >= self.max_queue_bytes)

    def _over_hard_limit(self) -> bool:
        """At the hard bound (``send_bounded`` waits here)."""
        return bool(self._queue) and (
            len(self._queue) >= self.max_queue * HARD_LIMIT_FACTOR
            or self._queued_bytes >= self.max_queue_bytes * HARD_LIMIT_FACTOR
        )

    async def _wait_for_space(self, full: Callable[[], bool]) -> None:
        while full():
            if self._space.is_set():
                self._space = _new_event()
            await self._space.wait()
            if self._closed:
                raise WriterClosed()

    def _push(self, line: bytes, record: object = None) -> None:
        if self.on_enqueue is not None:
            line = self.on_enqueue(line, record)
        self._queue.append(line)
        self._queued_bytes += len(line)
        if self._idle_now:
            self._idle_now = False
            self._idle = _new_event()
        if self._asleep:
            self._asleep = False
            self._wakeup.set()

    async def send(self, obj: object) -> None:
        """Queue one record, waiting while the queue is full."""
        if self._closed:
            raise WriterClosed()
        line = self._encode(obj)
        if self._queue and self._full():
            await self._wait_for_space(self._full)
        self._push(line, obj)

    def try_send(self, obj: object) -> bool:
        """``send`` without a coroutine when it would not wait: queue ``obj`` and return True
        if the writer is open and the queue has room; otherwise queue nothing and return
        False (the caller then awaits ``send``, which waits or raises as usual)."""
        queue = self._queue
        if self._closed or (
            queue and (len(queue) >= self.max_queue or self._queued_bytes >= self.max_queue_bytes)
        ):  # (``_full()`` inline: every streamed delta)
            return False
        self._push(self._encode(obj), obj)
        return True

    async def send_bounded(self, obj: object) -> None:
        """Queue one record without waiting, unless the queue is over its hard limit."""
        if self._closed:
            raise WriterClosed()
        line = self._encode(obj)
        if self._over_hard_limit():
            await self._wait_for_space(self._over_hard_limit)
        self._push(line, obj)

    def send_nowait(self, obj: object) -> None:
        """Queue one record without waiting (the queue may exceed ``max_queue``)."""
        if self._closed:
            raise WriterClosed()
        self._push(self._encode(obj), obj)

    async def send_bytes(self, line: bytes) -> None:
        """Queue one pre-encoded line (must end with ``\\n``)."""
        if self._closed:
            raise WriterClosed()
        await self._wait_for_space(self._full)
        self._push(line)

    async def drain(self) -> None:
        """Wait until every queued record has been written (or the writer failed/closed)."""
        while (self._queue or not self._idle_now) and self._failed is None:
            await self._idle.wait()

    def close(self) -> None:
        """Stop accepting records; queued records are discarded; wake everybody."""
        self._closed = True
        self._queue.clear()
        self._queued_bytes = 0
        self._wakeup.set()
        self._space.set()
        self._set_idle()

    # -------------------------------------------------------------- the writer task

    async def run(self) -> None:
        """Write queued records until ``close()``. Never raises for write errors."""
        import anyio

        try:
            while not self._closed:
                if not self._queue:
                    self._set_idle()
                    self._wakeup = _new_event()
                    self._asleep = True
                    await self._wakeup.wait()
                    continue
                if self._queued_bytes <= _MAX_BATCH_BYTES:
                    # Everything queued fits in one write (the usual case: the queue is bounded
                    # by records): take it whole, not record by record (one per streamed delta).
                    batch = list(self._queue)
                    self._queue.clear()
                    size = self._queued_bytes
                else:
                    batch = [self._queue.popleft()]
                    size = len(batch[0])
                    while self._queue and size < _MAX_BATCH_BYTES:
                        nxt = self._queue.popleft()
                        batch.append(nxt)
                        size += len(nxt)
                self._queued_bytes -= size
                if not self._full():
                    self._space.set()
                data = batch[0] if len(batch) == 1 else b"".join(batch)
                try:
                    await self._write_all(data, anyio)
                except OSError as exc:
                    self._fail(exc)
                    return
                self.records_written += len(batch)
                if size >= _TRIM_AFTER_BYTES:
                    release_free_memory()
                if not self._queue:
                    self._set_idle()
        finally:
            self._restore_fd_flags()

    def _set_idle(self) -> None:
        self._idle.set()
        self._idle_now = True

    def _fail(self, exc: BaseException) -> None:
        self._failed = exc
        self.close()
        if self._on_fatal is not None:
            self._on_fatal(exc)

    async def _write_all(self, data: bytes, anyio: Any) -> None:
        view = memoryview(data)
        while view:
            if self._pollable:
                try:
                    n = os.write(self.fd, view)
                except BlockingIOError:
                    await anyio.wait_writable(self.fd)
                    continue
                except InterruptedError:
                    continue
                except OSError as exc:
                    if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.ENOBUFS):
                        await anyio.sleep(0.01)
                        continue
                    raise
            else:
                n = await anyio.to_thread.run_sync(_blocking_write, self.fd, view)
            view = view[n:]


def _blocking_write(fd: int, view: memoryview) -> int:
    while True:
        try:
            return os.write(fd, view)
        except InterruptedError:
            continue
        except BlockingIOError:
            import select

            select.select([], [fd], [], 0.05)


def _new_event() -> Any:
    import anyio

    return anyio.Event()
