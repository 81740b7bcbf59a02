"""One client connection to a ``pi --listen`` server, for ``pi attach``.

``Connection.open(address, token=…)`` connects (``unix:<path>``; ``tcp:<host>:<port>``, the
token as the first record; ``ws://``/``wss://``, the token in the handshake's ``Authorization``
header, spoken with ``websockets``' sans-I/O protocol over anyio), then ``run(task_group)``
reads records: a ``response`` with the id of a ``request`` completes it, everything else goes to
``on_record``. When the connection ends, waiting requests fail with ``ConnectionClosed`` and
``on_record(None)`` is called once.
"""

from __future__ import annotations

import itertools
import os
import ssl
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import anyio.abc
import orjson

_READ_CHUNK = 1 << 16
_STREAM_ERRORS = (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError)
Record = dict[str, Any]


class ConnectionClosed(Exception):
    """The server closed the connection (or it dropped) while a response was awaited."""


class CommandFailed(Exception):
    """The server answered ``success: false``; the message is its error text."""

    def __init__(self, response: Record) -> None:
        super().__init__(str(response.get("error") or "command failed"))
        self.response = response


class _Wire:
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
    def __init__(self, stream: anyio.abc.ByteStream, protocol: Any, pending: list[Any]) -> None:
        self.stream = stream
        self.protocol = protocol
        self._pending = pending
        self._lock = anyio.Lock()

    @classmethod
    async def open(cls, address: str, token: str | None, tls: ssl.SSLContext | None) -> _WebSocketWire:
        try:
            from websockets.client import ClientProtocol
            from websockets.http11 import Response
            from websockets.uri import parse_uri
        except ImportError:
            raise ConnectionError(
                "ws:// addresses need the websockets package (pip install 'pi-rpc[listen]')"
            ) from None
        uri = parse_uri(address)
        stream: anyio.abc.ByteStream
        if uri.secure:
            context = tls or ssl.create_default_context()
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
        if response is None or response.status_code != 101 or protocol.handshake_exc is not None:
            await stream.aclose()
            why = "no answer" if response is None else f"HTTP {response.status_code}"
            body = bytes(response.body or b"").decode("utf-8", "replace").strip() if response is not None else ""
            raise ConnectionError(f"{address} refused the WebSocket handshake ({why}){': ' + body if body else ''}")
        return cls(stream, protocol, pending)

    async def _flush(self) -> None:
        data = b"".join(self.protocol.data_to_send())
        if data:
            async with self._lock:
                await self.stream.send(data)

    async def send(self, data: bytes) -> None:
        for line in data.split(b"\n"):
            if line:
                self.protocol.send_text(line)
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
                    continue
                if event.fin:
                    yield b"".join(parts) + b"\n"
                    parts = []
            try:
                await self._flush()
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


class Connection:
    """A connection to a listening server: ``request``, ``notify``, records to ``on_record``."""

    def __init__(self, address: str, wire: _Wire) -> None:
        self.address = address
        self._wire = wire
        self._ids = itertools.count(1)
        self._pending: dict[str, tuple[anyio.Event, list[Record]]] = {}
        self._write_lock = anyio.Lock()
        self.on_record: Callable[[Record | None], None] = lambda record: None
        self.closed = False

    @classmethod
    async def open(
        cls, address: str, *, token: str | None = None, tls: ssl.SSLContext | None = None, timeout: float = 10.0
    ) -> Connection:
        """Connect (``OSError``/``ConnectionError``; ``CommandFailed`` for a refused token)."""
        wire: _Wire
        with anyio.fail_after(timeout):
            if address.startswith(("ws://", "wss://")):
                return cls(address, await _WebSocketWire.open(address, token, tls))
            if address.startswith("unix:"):
                wire = _StreamWire(await anyio.connect_unix(os.path.expanduser(address[5:])))
            elif address.startswith("tcp:"):
                host, _, port = address[4:].rpartition(":")
                host = host.strip("[]")
                if tls is not None:
                    wire = _StreamWire(await anyio.connect_tcp(host, int(port), ssl_context=tls, tls_hostname=host))
                else:
                    wire = _StreamWire(await anyio.connect_tcp(host, int(port)))
            else:
                raise ConnectionError(
                    f"unknown address {address!r}: expected unix:<path>, tcp:<host>:<port>, ws:// or wss://"
                )
        connection = cls(address, wire)
        connection._token = token if address.startswith("tcp:") else None
        return connection

    _token: str | None = None

    async def run(self, task_group: anyio.abc.TaskGroup) -> None:
        """Start reading (in ``task_group``), then authenticate when the transport needs it."""
        task_group.start_soon(self._read)
        if self._token is not None:
            await self.request({"type": "authenticate", "token": self._token})

    async def _read(self) -> None:
        pending = b""
        try:
            async for chunk in self._wire.chunks():
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    if line.strip():
                        self._dispatch(line)
        finally:
            self.closed = True
            waiting = list(self._pending.values())
            self._pending.clear()
            for event, _ in waiting:
                event.set()
            self.on_record(None)

    def _dispatch(self, line: bytes) -> None:
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            return
        if not isinstance(record, dict):
            return
        if record.get("type") == "response" and isinstance(record.get("id"), str):
            waiting = self._pending.pop(record["id"], None)
            if waiting is not None:
                waiting[1].append(record)
                waiting[0].set()
                return
        self.on_record(record)

    async def notify(self, record: Record) -> None:
        """Send a record no response answers (``extension_ui_response``)."""
        if self.closed:
            raise ConnectionClosed(f"the connection to {self.address} is closed")
        async with self._write_lock:
            with anyio.CancelScope(shield=True):
                await self._wire.send(orjson.dumps(record) + b"\n")

    def new_id(self) -> str:
        return f"attach-{next(self._ids)}"

    async def request(self, command: Record, timeout: float | None = None) -> Any:
        """Send ``command`` (its ``id``, else a new one), wait for its response; its ``data``
        (``CommandFailed`` when ``success`` is false, ``ConnectionClosed`` when the connection
        ends first)."""
        command_id = str(command.get("id") or self.new_id())
        done = anyio.Event()
        box: list[Record] = []
        self._pending[command_id] = (done, box)
        try:
            await self.notify({**command, "id": command_id})
            with anyio.fail_after(timeout):
                await done.wait()
        finally:
            self._pending.pop(command_id, None)
        if not box:
            raise ConnectionClosed(f"the connection to {self.address} closed while waiting for {command.get('type')}")
        response = box[0]
        if not response.get("success"):
            raise CommandFailed(response)
        return response.get("data")

    async def aclose(self) -> None:
        await self._wire.aclose()
