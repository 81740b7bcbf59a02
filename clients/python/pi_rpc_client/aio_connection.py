"""The async client of a running ``pi --mode rpc --listen`` server, next to spawning one.

    from pi_rpc_client.aio import AsyncRpcClient
    async with AsyncRpcClient.connect("unix:/run/user/1000/pi.sock") as pi:   # no token on a Unix socket
        print(await pi.get_state())
    async with AsyncRpcClient.connect("ws://127.0.0.1:7777/", token_file="~/.pi/agent/listen-token") as pi:
        await pi.attach("s1", since=last_seq)

``AsyncRpcConnection`` is an :class:`~pi_rpc_client.aio.AsyncRpcClient` whose records travel over
a socket instead of a child's stdin/stdout: the same coroutine command methods, event streams,
session handles and host tools, and what :class:`pi_rpc_client.connection.RpcConnection` adds
(``attach``/``detach`` bookkeeping, ``reconnect=True`` with catch-up, ``reconnects``).

Every transport runs on anyio's byte streams, so the client works on asyncio and trio alike:
``unix:<path>`` and ``tcp:<host>:<port>`` (TLS with ``tls=``) carry LF-framed records;
``ws://``/``wss://`` carry one record per text message, the WebSocket protocol spoken by the
``websockets`` package's sans-I/O ``ClientProtocol`` (imported only for a ``ws://`` address). On
TCP the token is the first record (``authenticate``); on WebSocket it is the handshake's
``Authorization: Bearer`` header (a wrong one is refused with HTTP 401: ``RpcError``).

Task model as the spawning client's: ``start()`` (or ``async with``) enters a task group that holds
the reader task; ``aclose()`` leaves it, so both run in the same task.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.abc

from .aio import AsyncRpcClient
from .commands import Post, Record, Timeout
from .connection import _read_token
from .errors import RpcError, RpcProcessExited
from .framing import LineSplitter

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


class AsyncRpcConnection(AsyncRpcClient):
    """An :class:`AsyncRpcClient` over a connection to a listening server (see the module
    docstring). ``await`` it (or ``async with``) to connect."""

    def __init__(
        self,
        address: str,
        *,
        token: str | None = None,
        token_file: str | os.PathLike[str] | None = None,
        reconnect: bool = False,
        reconnect_for: float = 30.0,
        tls: ssl.SSLContext | None = None,
        default_timeout: float | None = 60.0,
        connect_timeout: float = 10.0,
    ) -> None:
        super().__init__([], default_timeout=default_timeout)
        self.address = address
        self.token = _read_token(token, token_file)
        self.reconnect = reconnect
        self.reconnect_for = reconnect_for
        self.tls = tls
        self.connect_timeout = connect_timeout
        self.attached: set[str] = {_DEFAULT}
        self.last_seq = 0
        self.reconnects: list[Record] = []
        self._closing = False
        self._started = False
        self._wire: _Wire | None = None
        self._observe_records(self._track)

    def __await__(self) -> Any:
        return self.start().__await__()

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> AsyncRpcConnection:
        if self._started:
            raise RpcError("client already started")
        self._started = True
        self._write_lock = anyio.Lock()
        self._stdout_done = anyio.Event()
        self._stderr_done = anyio.Event()
        self._stderr_done.set()  # (a connection has no stderr)
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        try:
            await self._connect()
        except BaseException:
            self._closing = True
            await self._leave_task_group()
            raise
        return self

    async def aclose(self, timeout: float = 5.0) -> int | None:
        """Close the connection; the server and its sessions go on. Returns None."""
        if not self._started or self._closed:
            return None
        self._closed = True
        self._closing = True
        wire = self._wire
        with anyio.CancelScope(shield=True):
            if wire is not None:
                await wire.aclose()
            assert self._stdout_done is not None
            with anyio.move_on_after(timeout):
                await self._stdout_done.wait()
        await self._leave_task_group()
        return None

    async def _leave_task_group(self) -> None:
        tg = self._tg
        if tg is None:
            return
        self._tg = None
        tg.cancel_scope.cancel()
        await tg.__aexit__(None, None, None)

    @property
    def pid(self) -> int | None:
        return None

    @property
    def returncode(self) -> int | None:
        return None

    def _require_started(self) -> None:
        if not self._started:
            raise RpcError("client not started")

    def _exit_error(self, context: str) -> RpcProcessExited:
        return RpcConnectionClosed(self.address, context)

    # ------------------------------------------------------------------ the connection
    async def _connect(self, *, since: int | None = None) -> None:
        """Connect, authenticate, number events; after a drop (``since``: the last seq received on
        the old connection), attach every session again from there."""
        ws = self.address.startswith(("ws://", "wss://"))
        wire = await _open_wire(self.address, self.token if ws else None, self.tls, self.connect_timeout)
        self._wire = wire
        assert self._tg is not None
        self._tg.start_soon(self._read_wire, wire, name="pi-rpc-connection")
        if self.token is not None and not ws:
            await self.request({"type": "authenticate", "token": self.token}, self.connect_timeout)
        if self.reconnect:
            await self.request({"type": "set_event_options", "seq": True}, self.connect_timeout)
        if since is not None:
            if _DEFAULT not in self.attached:
                await self.request({"type": "detach_session", "handle": _DEFAULT}, self.connect_timeout)
            for handle in sorted(self.attached):
                response = await self.request(
                    {"type": "attach_session", "handle": handle, "since": since}, self.connect_timeout
                )
                self.reconnects.append({"handle": handle, "since": since, **(response.get("data") or {})})

    async def _read_wire(self, wire: _Wire) -> None:
        splitter = LineSplitter()
        async for chunk in wire.chunks():
            for line in splitter.feed(chunk):
                self._dispatch_line(line)
        if wire is not self._wire:
            return
        with anyio.CancelScope(shield=True):
            if self.reconnect and not self._closing and await self._reconnect():
                return
            await self._on_stream_end()

    async def _reconnect(self) -> bool:
        # Requests in flight on the old connection fail; event streams carry on.
        pending = list(self._pending.values())
        self._pending.clear()
        for p in pending:
            p.error = RpcError(f"the connection dropped while waiting for the response to {p.command}")
            p.done.set()
        since = self.last_seq  # (the new connection's own responses are numbered too)
        deadline = anyio.current_time() + self.reconnect_for
        delay = 0.05
        while not self._closing and anyio.current_time() < deadline:
            try:
                await self._connect(since=since)  # (its reader is a new task; this one ends)
                return True
            except Exception:  # noqa: BLE001 - not up yet, or dropped again: retry
                wire = self._wire
                if wire is not None:
                    await wire.aclose()
                await anyio.sleep(delay)
                delay = min(delay * 2, 1.0)
        return False

    async def _on_stream_end(self) -> None:
        self._closed_stream = True
        pending = list(self._pending.values())
        self._pending.clear()
        for p in pending:
            p.error = self._exit_error(f"waiting for the response to {p.command}")
            p.done.set()
        for s in list(self._streams):
            s._end()
        for observe in list(self._record_observers):
            observe(None)
        assert self._stdout_done is not None
        self._stdout_done.set()

    def _track(self, record: Record | None) -> None:
        if record is None:
            return
        seq = record.get("seq")
        if isinstance(seq, int) and seq > self.last_seq:
            self.last_seq = seq
        if record.get("type") == "response" and record.get("success"):
            data = record.get("data") or {}
            if record.get("command") == "open_session" and isinstance(data.get("handle"), str):
                self.attached.add(data["handle"])

    # ------------------------------------------------------------------ writing
    async def send_raw(self, data: bytes) -> None:
        """Write bytes to the connection as-is (one record per line; on WebSocket one message per line)."""
        self._require_started()
        wire = self._wire
        if wire is None or self._write_lock is None:
            raise RpcError("not connected")
        async with self._write_lock:
            if self._closed or self._closed_stream:
                raise self._exit_error("writing")
            try:
                with anyio.CancelScope(shield=True):
                    await wire.send(data)
            except _STREAM_ERRORS as exc:
                raise RpcError(f"the connection to {self.address} dropped ({exc!r})") from exc

    # ------------------------------------------------------------------ attach / detach
    async def _command(self, type_: str, timeout: Timeout, post: Post, /, **fields: Any) -> Any:
        # ``attach``/``detach`` keep the sessions to attach again after a reconnect.
        data = await super()._command(type_, timeout, post, **fields)
        if type_ == "attach_session":
            self.attached.add(fields["handle"])
        elif type_ == "detach_session":
            self.attached.discard(fields["handle"])
        return data


def connect(address: str, token: str | None = None, **kwargs: Any) -> AsyncRpcConnection:
    """An async client of ``pi --mode rpc --listen <address>`` (``unix:<path>``,
    ``tcp:<host>:<port>``, ``ws://…``/``wss://…``); ``token`` (or ``token_file=``) for TCP and
    WebSocket. Connects on ``await`` / ``async with`` / ``start()``."""
    return AsyncRpcConnection(address, token=token, **kwargs)
