"""One --listen client: its options, its bounded output queue and its commands.

- **Authentication** (TCP, WebSocket): until the token was given (a WebSocket ``Authorization:
  Bearer`` header, or the first record ``{"type":"authenticate","token":…}``) nothing is served:
  the connection is attached to no session and any other first record is refused. A failure is
  answered with one ``response`` (``command:"authenticate"``, ``success:false``), after a delay
  that grows with the peer's failures, and the connection is closed.
- **Output**: records are queued (never waiting: publishing a session's event must not wait for a
  slow client) and one writer task sends them in order, in batches. The queue is bounded by
  ``--max-connection-buffer`` bytes: past it the queue is dropped and the connection closed with
  one final record naming the last ``seq`` that was delivered, so the client can reconnect and
  ``attach_session`` with ``since`` to catch up (a few seconds are given to deliver it).
- **Options**: ``set_event_options`` is the connection's own: ``seq`` (the process's numbers),
  ``runId``, ``handle`` (tag ``"default"``'s events too) are spliced into each line as stdio does.
- **Commands** run in the server's command task group, not the connection's, so a client that
  goes away never cancels what it started; their responses go to this connection only. At EOF
  the commands in flight are answered first, then the queue is drained and the socket closed.
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING, Any

import anyio

from pi_rpc.log import logger
from pi_rpc.modes.rpc.dispatch import Dispatcher
from pi_rpc.modes.rpc.event_options import splice_field
from pi_rpc.modes.rpc.events import EventEmitter
from pi_rpc.modes.rpc.listen.auth import token_matches
from pi_rpc.modes.rpc.listen.hub import CURRENT_CONNECTION, Hub, Published
from pi_rpc.modes.wire.framing import FrameTooLarge
from pi_rpc.modes.wire.jsonout import dumps_line, dumps_record
from pi_rpc.modes.wire.jsonparse import ParseFailure, parse_record
from pi_rpc.modes.wire.output import WriterClosed
from pi_rpc.modes.wire.protocol.names import DEFAULT_HANDLE

if TYPE_CHECKING:
    from pi_rpc.modes.rpc.listen.server import ListenServer
    from pi_rpc.modes.rpc.listen.transport import Transport

AUTH_TIMEOUT_S = 10.0  # an unauthenticated connection that says nothing is closed after this
FINAL_RECORD_GRACE_S = 3.0  # how long an overflowing connection gets to take its last record
DRAIN_GRACE_S = 5.0  # how long the queue may take to drain at EOF
BATCH_BYTES = 1 << 20
# A record that comes this soon after the last one written at once is queued for the writer
# task (which writes a burst in one call) rather than written on its own.
DIRECT_GAP_S = 0.0005

AUTH_REQUIRED = (
    'Authentication required: the first record on this connection must be {"type":"authenticate","token":"…"} '
    "(or, on WebSocket, the handshake's Authorization: Bearer header)"
)
AUTH_FAILED = "Authentication failed: wrong token"
AUTH_TIMED_OUT = f"Authentication timed out: no authenticate record within {AUTH_TIMEOUT_S:g} seconds"


def _parse(frame: bytes) -> object:
    try:
        return parse_record(frame)
    except Exception as exc:  # noqa: BLE001 - e.g. MemoryError on a huge record
        return ParseFailure(f"{type(exc).__name__}: {exc}")


class Connection:
    def __init__(self, server: ListenServer, transport: Transport, *, authenticated: bool) -> None:
        self.server = server
        self.hub: Hub = server.hub
        self.transport = transport
        self.authenticated = authenticated
        self.max_bytes = server.max_connection_buffer
        # set_event_options, this connection's own
        self.seq_on = False
        self.run_id_on = False
        self.tag_default = False
        self.attached: set[str] = set()
        # Per attached session: the last seq published before it attached (later ones came live).
        self.live_from: dict[str, int] = {}
        self._queue: deque[tuple[int, bytes]] = deque()
        self._queued_bytes = 0
        self._wakeup = anyio.Event()
        self._asleep = False
        # Non-blocking write straight to a plain socket (StreamTransport.send_now), or None.
        self._send_now = getattr(transport, "send_now", None)
        self._sent_now_at = 0.0
        self.closing = False  # no record is queued any more
        self.closed = False
        self._overflowed = False
        self._close_after_queue = False  # (auth failure, refused) close once the queue is written
        self.last_delivered = 0  # the seq of the last record the transport took
        self._inflight = 0
        self._idle = anyio.Event()
        self._idle.set()
        self._scope: anyio.CancelScope | None = None
        self.dispatcher = Dispatcher(
            server.connection_registry(self),
            self,
            events=EventEmitter(self),
            verbose=server.verbose,
            known_handle=server.known_handle,
        )

    # ------------------------------------------------------------------ options

    @property
    def features(self) -> dict[str, bool]:
        return {"seq": self.seq_on, "runId": self.run_id_on, "handle": self.tag_default}

    def render(self, published: Published) -> bytes:
        """The published line with this connection's fields spliced in (handle, runId, seq; the
        order stdio writes them in), cached per combination of options."""
        tag = published.handle != DEFAULT_HANDLE or self.tag_default
        run = self.run_id_on and published.run_id is not None
        key = tag | run << 1 | self.seq_on << 2
        if not key:
            return published.line
        variants = published.variants
        if variants is None:
            variants = published.variants = {}
        line = variants.get(key)
        if line is None:
            fields = b""
            if tag:
                fields += b',"handle":' + dumps_record(published.handle)
            if run:
                fields += b',"runId":' + dumps_record(published.run_id)
            if self.seq_on:
                fields += b',"seq":%d' % published.seq
            line = variants[key] = splice_field(published.line, fields)
        return line

    # ------------------------------------------------------------------ output

    def push_event(self, published: Published) -> None:
        if not self.closing:
            self._push(published.seq, self.render(published))

    def _push(self, seq: int, line: bytes) -> None:
        if self._asleep and self._send_now is not None and (now := time.monotonic()) - self._sent_now_at > DIRECT_GAP_S:
            # The writer is idle (nothing queued, nothing in flight): write it now. (Within a
            # burst the writer takes the records instead, one write per batch.)
            self._sent_now_at = now
            sent = self._send_now(line)
            if sent is not None:
                if sent == len(line):
                    if seq:
                        self.last_delivered = seq
                    return
                line = line[sent:]  # (the rest goes first when the writer wakes)
        self._queue.append((seq, line))
        self._queued_bytes += len(line)
        if self._queued_bytes > self.max_bytes:
            self._overflow()
        elif self._asleep:
            self._asleep = False
            self._wakeup.set()

    def _overflow(self) -> None:
        self.closing = True
        self._overflowed = True
        self._queue.clear()
        self._queued_bytes = 0
        self.hub.detach_all(self)  # nothing more is queued for it: it is no longer attached
        self._wakeup.set()
        self.server.spawn(self._close_after, FINAL_RECORD_GRACE_S)

    async def _close_after(self, seconds: float) -> None:
        await anyio.sleep(seconds)
        self.abort()

    def abort(self) -> None:
        """Stop at once (the queue is dropped)."""
        self.closing = True
        if self._scope is not None:
            self._scope.cancel()

    def abort_soon(self) -> None:
        """Close once what is queued (the response just sent) is written."""
        self.closing = True
        self._close_after_queue = True
        self._wakeup.set()

    def _response_line(self, record: object) -> tuple[int, bytes]:
        line = dumps_line(record)
        seq = self.hub.next_seq()
        if self.seq_on:
            line = splice_field(line, b',"seq":%d' % seq)
        return seq, line

    # RecordSink (the dispatcher's responses, and events of commands no session routes)
    def send_nowait(self, record: object) -> None:
        if self.closing:
            raise WriterClosed()
        self._push(*self._response_line(record))

    async def send(self, record: object) -> None:
        self.send_nowait(record)

    async def send_bounded(self, record: object) -> None:
        self.send_nowait(record)

    def send_final(self, record: dict[str, object]) -> None:
        """One last record, then the connection closes (refused, authentication failed)."""
        if self.closing:
            return
        self._push(*self._response_line(record))
        self.closing = True
        self._close_after_queue = True
        self._wakeup.set()

    def _overflow_record(self) -> dict[str, object]:
        last = self.last_delivered
        return {
            "type": "response",
            "command": "connection",
            "success": False,
            "error": (
                f"Connection closed: the client did not read its records and more than {self.max_bytes} bytes "
                f"waited for it (--max-connection-buffer); the last record delivered was seq {last}: "
                f"reconnect and attach_session with since {last} to catch up"
            ),
            "lastSeq": last,
        }

    async def _write_loop(self) -> None:
        transport = self.transport
        queue = self._queue
        while True:
            if self._overflowed:
                await transport.send_lines([dumps_line(self._overflow_record())])
                return
            if not queue:
                if self.closing:
                    return
                self._wakeup = anyio.Event()
                self._asleep = True
                await self._wakeup.wait()
                continue
            lines: list[bytes] = []
            size = 0
            last = 0
            while queue and size < BATCH_BYTES:
                seq, line = queue.popleft()
                lines.append(line)
                size += len(line)
                last = seq
            self._queued_bytes -= size
            await transport.send_lines(lines)
            if last:
                self.last_delivered = last

    # ------------------------------------------------------------------ the connection's life

    async def run(self) -> None:
        """Serve until the client goes, the queue overflows, or the server shuts down."""
        token = CURRENT_CONNECTION.set(self)
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                async with anyio.create_task_group() as group:
                    group.start_soon(self._writer, group)
                    if self.authenticated:
                        self.hub.attach(self, DEFAULT_HANDLE)
                    await self._read_loop()
                    # EOF: the client can take no more events nor answer a dialog (detached at
                    # once); what is in flight is answered, then the queue drains.
                    self.hub.detach_all(self)
                    with anyio.move_on_after(DRAIN_GRACE_S):
                        await self._idle.wait()
                    self.closing = True
                    self._wakeup.set()
                    with anyio.move_on_after(DRAIN_GRACE_S):
                        while self._queue:
                            await anyio.sleep(0.01)
                    group.cancel_scope.cancel()
        except Exception as exc:  # noqa: BLE001 - one client's fault never reaches the others
            logger().debug(f"pi_rpc: connection ended: {exc!r}")
        finally:
            CURRENT_CONNECTION.reset(token)
            self.closing = True
            self.closed = True
            self.hub.detach_all(self)
            self.server.forget(self)
            await self.transport.aclose()

    async def _writer(self, group: anyio.abc.TaskGroup) -> None:
        try:
            await self._write_loop()
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass
        except Exception as exc:  # noqa: BLE001 - e.g. a TLS error: this connection ends
            logger().debug(f"pi_rpc: connection write failed: {exc!r}")
        # The writer only returns when the connection is over (gone, overflowed, refused, or
        # drained at EOF).
        self.closing = True
        if self._scope is not None:
            self._scope.cancel()

    async def _read_loop(self) -> None:
        items = self.transport.items()
        try:
            if not self.authenticated:
                first: object = None
                with anyio.move_on_after(AUTH_TIMEOUT_S):
                    first = await items.__anext__()
                if first is None:
                    self.send_final(self._auth_failure(None, AUTH_TIMED_OUT))
                    await anyio.sleep_forever()
                item = _parse(first) if type(first) is bytes else first
                if not await self._authenticate(item):
                    await anyio.sleep_forever()  # the writer sends the failure and ends the connection
            async for frame in items:
                if self.closing:
                    break
                item = _parse(frame) if type(frame) is bytes else frame
                self._started()
                self.server.spawn(self._dispatch, item)
        except StopAsyncIteration:
            pass
        finally:
            await items.aclose()  # type: ignore[attr-defined]

    def _started(self) -> None:
        if self._inflight == 0:
            self._idle = anyio.Event()
        self._inflight += 1

    async def _dispatch(self, item: object) -> None:
        try:
            await self.dispatcher.dispatch(item)
        finally:
            self._inflight -= 1
            if self._inflight == 0:
                self._idle.set()

    # ------------------------------------------------------------------ authentication

    def _auth_failure(self, item: object, error: str) -> dict[str, object]:
        record: dict[str, object] = {}
        if type(item) is dict and "id" in item:
            record["id"] = item["id"]
        record.update(type="response", command="authenticate", success=False, error=error)
        return record

    async def _authenticate(self, item: Any) -> bool:
        if (
            isinstance(item, (ParseFailure, FrameTooLarge))
            or type(item) is not dict
            or item.get("type") != "authenticate"
        ):
            ok, error = False, AUTH_REQUIRED
        else:
            ok = token_matches(self.server.token or "", item.get("token"))
            error = AUTH_FAILED if "token" in item else AUTH_REQUIRED
        throttle = self.server.throttle
        if not ok:
            delay = throttle.failed(self.transport.peer)
            if delay:
                await anyio.sleep(delay)
            self.send_final(self._auth_failure(item, error))
            return False
        throttle.succeeded(self.transport.peer)
        self.authenticated = True
        record: dict[str, object] = {"id": item["id"]} if "id" in item else {}
        record.update(type="response", command="authenticate", success=True)
        self.send_nowait(record)
        self.hub.attach(self, DEFAULT_HANDLE)
        return True
