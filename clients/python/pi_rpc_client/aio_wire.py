"""The transports of the async connection client (``pi_rpc_client.aio.AsyncRpcConnection``):
one connection's bytes over a Unix socket, TCP (TLS optional) or a WebSocket, as anyio byte
streams; the WebSocket protocol is the ``websockets`` package's sans-I/O ``ClientProtocol``,
imported only for a ``ws://`` address. Nothing here knows the client: the client imports this."""

from __future__ import annotations

import os
import ssl
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.abc

from .errors import RpcError, RpcProcessExited

_DEFAULT = "default"
_READ_CHUNK = 1 << 16
_STREAM_ERRORS = (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError)


class RpcConnectionClosed(RpcProcessExited):
    """The connection to the server closed (or could not be made again) while something was
    still expected from it. The server may well be running."""

    def __init__(self, address: str, context: str = "") -> None:
        super().__init__(None, "", context)
        self.address = address
        self.args = (f"the connection to {address} closed" + (f" while {context}" if context else ""),)

    def __str__(self) -> str:
        return str(self.args[0])


class _Wire:
    """One connection's bytes: ``send(data)`` (LF-framed records), ``chunks()`` until the end,
    ``aclose()``."""

    async def send(self, data: bytes) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def chunks(self) -> AsyncIterator[bytes]:  # pragma: no cover - overridden
        raise NotImplementedError

    async def aclose(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class _StreamWire(_Wire):
    """``unix:`` and ``tcp:``: the records as they are, LF-framed."""

    def __init__(self, stream: anyio.abc.ByteStream) -> None:
        self.stream = stream
        self._ended = anyio.Event()

    async def send(self, data: bytes) -> None:
        await self.stream.send(data)

    async def chunks(self) -> AsyncIterator[bytes]:
        try:
            while True:
                try:
                    chunk = await self.stream.receive(_READ_CHUNK)
                except _STREAM_ERRORS:
                    return
                yield chunk
        finally:
            self._ended.set()

    async def aclose(self) -> None:
        # Shut the socket down and let the reader see the end before closing it: closing a
        # socket anyio is waiting on (its Unix streams) races the readiness callback, which
        # then completes a finished future (InvalidStateError in the event loop).
        import socket

        from anyio.abc import SocketAttribute

        try:
            self.stream.extra(SocketAttribute.raw_socket).shutdown(socket.SHUT_RDWR)
        except Exception:  # noqa: BLE001 - not a socket, or already closed
            pass
        with anyio.CancelScope(shield=True), anyio.move_on_after(1):
            await self._ended.wait()
        try:
            await self.stream.aclose()
        except Exception:  # noqa: BLE001 - closing a broken connection
            pass


class _WebSocketWire(_Wire):
    """``ws://``/``wss://``: one record per text message, over websockets' sans-I/O protocol."""

    def __init__(self, stream: anyio.abc.ByteStream, protocol: Any, pending: list[Any]) -> None:
        self.stream = stream
        self.protocol = protocol
        self._pending = pending  # frames that came with the handshake's response
        self._lock = anyio.Lock()

    @classmethod
    async def open(cls, address: str, token: str | None, tls: ssl.SSLContext | None, timeout: float) -> _WebSocketWire:
        try:
            from websockets.client import ClientProtocol
            from websockets.http11 import Response
            from websockets.uri import parse_uri
        except ImportError:  # pragma: no cover - optional
            raise RpcError("ws:// addresses need the websockets package (pip install websockets)") from None
        uri = parse_uri(address)
        context = (tls or ssl.create_default_context()) if uri.secure else None
        with anyio.fail_after(timeout):
            stream: anyio.abc.ByteStream
            if context is not None:
                stream = await anyio.connect_tcp(uri.host, uri.port, ssl_context=context, tls_hostname=uri.host)
            else:
                stream = await anyio.connect_tcp(uri.host, uri.port)
            protocol = ClientProtocol(uri, max_size=None)
            request = protocol.connect()
            if token is not None:
                request.headers["Authorization"] = f"Bearer {token}"
            protocol.send_request(request)
            await stream.send(b"".join(protocol.data_to_send()))
            response: Any = None
            pending: list[Any] = []
            while response is None and protocol.handshake_exc is None:
                try:
                    data = await stream.receive(_READ_CHUNK)
                except _STREAM_ERRORS:
                    protocol.receive_eof()
                    break
                protocol.receive_data(data)
                for event in protocol.events_received():
                    if response is None and isinstance(event, Response):
                        response = event
                    else:
                        pending.append(event)
        if protocol.handshake_exc is not None or response is None or response.status_code != 101:
            await stream.aclose()
            why = "no answer" if response is None else f"HTTP {response.status_code}"
            body = bytes(response.body or b"").decode("utf-8", "replace").strip() if response is not None else ""
            raise RpcError(
                f"the server at {address} refused the WebSocket handshake ({why}){': ' + body if body else ''}"
            )
        return cls(stream, protocol, pending)

    async def _flush(self) -> None:
        data = b"".join(self.protocol.data_to_send())
        if data:
            async with self._lock:
                await self.stream.send(data)

    async def send(self, data: bytes) -> None:
        from websockets.exceptions import InvalidState

        try:
            for line in data.split(b"\n"):
                if line:
                    self.protocol.send_text(line)
        except InvalidState:
            raise anyio.BrokenResourceError from None
        await self._flush()

    async def chunks(self) -> AsyncIterator[bytes]:
        from websockets.frames import Frame, Opcode

        parts: list[bytes] = []
        events, self._pending = self._pending, []
        while True:
            for event in events:
                if not isinstance(event, Frame):
                    continue
                if event.opcode in (Opcode.TEXT, Opcode.BINARY):
                    parts = [bytes(event.data)]
                elif event.opcode is Opcode.CONT and parts:
                    parts.append(bytes(event.data))
                else:
                    continue  # ping/pong/close: the protocol answers them
                if event.fin:
                    yield b"".join(parts) + b"\n"
                    parts = []
            try:
                await self._flush()  # (pongs, the close handshake)
            except Exception:  # noqa: BLE001 - the peer is gone
                return
            if self.protocol.close_rcvd is not None or self.protocol.parser_exc is not None:
                return
            try:
                data = await self.stream.receive(_READ_CHUNK)
            except _STREAM_ERRORS:
                self.protocol.receive_eof()
                return
            self.protocol.receive_data(data)
            events = self.protocol.events_received()

    async def aclose(self) -> None:
        from websockets.protocol import State

        with anyio.CancelScope(shield=True), anyio.move_on_after(1):
            try:
                if self.protocol.state is State.OPEN:
                    self.protocol.send_close(1000)
                    await self._flush()
            except Exception:  # noqa: BLE001 - closing a broken connection
                pass
            try:
                await self.stream.aclose()
            except Exception:  # noqa: BLE001
                pass


async def _open_wire(address: str, token: str | None, tls: ssl.SSLContext | None, timeout: float) -> _Wire:
    if address.startswith(("ws://", "wss://")):
        return await _WebSocketWire.open(address, token, tls, timeout)
    stream: anyio.abc.ByteStream
    with anyio.fail_after(timeout):
        if address.startswith("unix:"):
            stream = await anyio.connect_unix(os.path.expanduser(address[5:]))
        elif address.startswith("tcp:"):
            host, _, port = address[4:].rpartition(":")
            host = host.strip("[]")
            if tls is not None:
                stream = await anyio.connect_tcp(host, int(port), ssl_context=tls, tls_hostname=host)
            else:
                stream = await anyio.connect_tcp(host, int(port))
        else:
            raise RpcError(f"unknown address {address!r}: expected unix:<path>, tcp:<host>:<port>, ws:// or wss://")
    return _StreamWire(stream)
