"""Bytes on the wire for --listen connections. A transport yields inbound items (one record's
bytes, or ``FrameTooLarge``) and writes batches of outbound lines (each one JSON record + LF):

- ``StreamTransport``: Unix sockets and TCP (optionally TLS): the JSONL framing of stdio
  (``wire.framing.LineFramer``: LF only, CRLF accepted, the same frame cap);
- ``WebSocketTransport``: one JSON record per WebSocket message (text, or binary holding UTF-8),
  over the ``websockets`` library's sans-I/O protocol on an anyio stream, so every listener is
  anyio's. A message over the frame cap gets the same ``parse`` error as an oversized line; a
  fragmented one is skipped and the connection goes on, a single frame over the cap cannot be
  skipped and the connection is closed (1009) after the error record;
- ``StdioTransport``: ``--stdio`` next to ``--listen``: stdin and the protocol fd.
"""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Protocol

import anyio
from anyio.abc import ByteStream

from pi_rpc.modes.wire.framing import FrameTooLarge, LineFramer, read_frames

if TYPE_CHECKING:
    from websockets.server import ServerProtocol

Item = bytes | FrameTooLarge
READ_CHUNK = 64 * 1024


class Transport(Protocol):
    kind: str
    peer: str

    def items(self) -> AsyncIterator[Item]: ...

    async def send_lines(self, lines: list[bytes]) -> None: ...

    async def aclose(self) -> None: ...


def peer_of(stream: Any) -> str:
    """Who is on the other end, for slowing down failed authentications (the host, not the port)."""
    from anyio.abc import SocketAttribute

    try:
        remote = stream.extra(SocketAttribute.remote_address)
    except Exception:  # noqa: BLE001 - a stream without socket attributes
        return "local"
    if isinstance(remote, tuple) and remote:
        return str(remote[0])
    return "unix"


def _raw_socket(stream: object) -> socket.socket | None:
    """The plain socket under an anyio socket stream (None for TLS and anything else)."""
    from anyio.abc import SocketAttribute, SocketStream

    if not isinstance(stream, SocketStream):
        return None
    try:
        sock = stream.extra(SocketAttribute.raw_socket)
    except Exception:  # noqa: BLE001 - no socket underneath
        return None
    return sock if isinstance(sock, socket.socket) else None


class StreamTransport:
    """Unix sockets and TCP. On a plain socket the records are written with non-blocking
    ``send`` calls (``send_now``, and the writer task when the kernel buffer is full), so a record
    for a connection whose writer is idle goes out at once, without waking a task per
    connection per event; TLS goes through the stream."""

    def __init__(self, stream: ByteStream, *, kind: str, max_frame_bytes: int) -> None:
        self.stream = stream
        self.kind = kind
        self.peer = peer_of(stream)
        self.max_frame_bytes = max_frame_bytes
        self._sock = _raw_socket(stream)

    def send_now(self, data: bytes) -> int | None:
        """Write what the kernel takes at once; the count, or None when this transport cannot
        (TLS, or an error the writer task will meet and report)."""
        sock = self._sock
        if sock is None:
            return None
        try:
            return sock.send(data)
        except (BlockingIOError, InterruptedError):
            return 0
        except OSError:
            return None

    async def items(self) -> AsyncIterator[Item]:
        framer = LineFramer(self.max_frame_bytes)
        while True:
            try:
                data = await self.stream.receive(READ_CHUNK)
            except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                break
            for frame in framer.feed(data):
                yield frame
        for frame in framer.feed_eof():
            yield frame

    async def send_lines(self, lines: list[bytes]) -> None:
        data = lines[0] if len(lines) == 1 else b"".join(lines)
        sock = self._sock
        if sock is None:
            await self.stream.send(data)
            return
        view = memoryview(data)
        while view:
            try:
                view = view[sock.send(view) :]
            except (BlockingIOError, InterruptedError):
                await anyio.wait_writable(sock)
            except OSError as exc:
                raise anyio.BrokenResourceError from exc

    async def aclose(self) -> None:
        with anyio.CancelScope(shield=True), anyio.move_on_after(1):
            try:
                await self.stream.aclose()
            except Exception:  # noqa: BLE001 - closing a broken stream
                pass


class WebSocketTransport:
    """A WebSocket connection after its handshake (``handshake`` in ``server``)."""

    kind = "ws"

    def __init__(
        self, stream: ByteStream, protocol: ServerProtocol, *, max_frame_bytes: int, pending: list[Any]
    ) -> None:
        self.stream = stream
        self.protocol = protocol
        self.peer = peer_of(stream)
        self.max_frame_bytes = max_frame_bytes
        self._lock = anyio.Lock()
        self._pending = pending  # (frames that came with the handshake request)

    async def _flush(self, before: bytes = b"") -> None:
        data = before + b"".join(self.protocol.data_to_send())
        if data:
            async with self._lock:
                await self.stream.send(data)

    async def items(self) -> AsyncIterator[Item]:
        from websockets.exceptions import PayloadTooBig
        from websockets.frames import Frame, Opcode

        parts: list[bytes] = []
        size = 0
        discarding = False
        in_message = False
        events = self._pending + self.protocol.events_received()
        self._pending = []
        while True:
            for event in events:
                if not isinstance(event, Frame):
                    continue
                opcode = event.opcode
                if opcode in (Opcode.TEXT, Opcode.BINARY):
                    in_message, parts, size, discarding = True, [], 0, False
                elif opcode is not Opcode.CONT or not in_message:
                    continue  # ping/pong/close: the protocol answers them
                if not discarding:
                    size += len(event.data)
                    if size > self.max_frame_bytes:
                        discarding, parts = True, []
                        yield FrameTooLarge(self.max_frame_bytes)
                    else:
                        parts.append(bytes(event.data))
                if event.fin:
                    in_message = False
                    if not discarding:
                        yield parts[0] if len(parts) == 1 else b"".join(parts)
                    parts, size, discarding = [], 0, False
            if isinstance(self.protocol.parser_exc, PayloadTooBig):
                # One frame over the cap cannot be skipped: the same error record as an
                # oversized line, then the close (1009) the protocol queued.
                from pi_rpc.modes.rpc.dispatch import frame_too_large_error
                from pi_rpc.modes.wire.jsonout import dumps_record

                record = {
                    "type": "response",
                    "command": "parse",
                    "success": False,
                    "error": frame_too_large_error(self.max_frame_bytes),
                }
                frame = Frame(Opcode.TEXT, dumps_record(record)).serialize(mask=False)
                try:
                    await self._flush(frame)
                except Exception:  # noqa: BLE001 - the peer is gone already
                    pass
                return
            try:
                await self._flush()
            except Exception:  # noqa: BLE001 - the peer is gone
                return
            if self.protocol.close_rcvd is not None or self.protocol.parser_exc is not None:
                return
            try:
                data = await self.stream.receive(READ_CHUNK)
            except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                self.protocol.receive_eof()
                return
            self.protocol.receive_data(data)
            events = self.protocol.events_received()

    async def send_lines(self, lines: list[bytes]) -> None:
        from websockets.exceptions import InvalidState

        try:
            for line in lines:
                self.protocol.send_text(line[:-1])
        except InvalidState:
            raise anyio.BrokenResourceError from None
        await self._flush()

    async def aclose(self) -> None:
        with anyio.CancelScope(shield=True), anyio.move_on_after(1):
            try:
                from websockets.protocol import State

                if self.protocol.state is State.OPEN:
                    self.protocol.send_close(1000)
                    await self._flush()
            except Exception:  # noqa: BLE001 - closing a broken connection
                pass
            try:
                await self.stream.aclose()
            except Exception:  # noqa: BLE001
                pass


class StdioTransport:
    """``--stdio`` with ``--listen``: stdin and the private protocol fd."""

    kind = "stdio"
    peer = "stdio"

    def __init__(self, input_fd: int, output_fd: int, *, max_frame_bytes: int) -> None:
        self.input_fd = input_fd
        self.output_fd = output_fd
        self.max_frame_bytes = max_frame_bytes
        mode = os.fstat(output_fd).st_mode
        self._pollable = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
        if self._pollable:
            os.set_blocking(output_fd, False)

    async def items(self) -> AsyncIterator[Item]:
        async for frame in read_frames(self.input_fd, max_frame_bytes=self.max_frame_bytes):
            yield frame

    def send_now(self, data: bytes) -> int | None:
        """As ``StreamTransport.send_now``, on a pipe or socket."""
        if not self._pollable:
            return None
        try:
            return os.write(self.output_fd, data)
        except (BlockingIOError, InterruptedError):
            return 0
        except OSError:
            return None

    async def send_lines(self, lines: list[bytes]) -> None:
        view = memoryview(b"".join(lines))
        while view:
            if not self._pollable:
                written = await anyio.to_thread.run_sync(os.write, self.output_fd, view)
            else:
                try:
                    written = os.write(self.output_fd, view)
                except BlockingIOError:
                    await anyio.wait_writable(self.output_fd)
                    continue
                except OSError as exc:
                    raise anyio.BrokenResourceError from exc
            view = view[written:]

    async def aclose(self) -> None:
        if self._pollable:
            try:
                os.set_blocking(self.output_fd, True)
            except OSError:
                pass
