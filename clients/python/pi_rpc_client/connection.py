"""A client of a running ``pi --mode rpc --listen`` server, next to spawning one.

    from pi_rpc_client import connect
    with connect("unix:/run/user/1000/pi.sock") as pi:           # no token on a Unix socket
        print(pi.get_state())
    with connect("tcp:127.0.0.1:7777", token_file="~/.pi/agent/listen-token", reconnect=True) as pi:
        pi.attach("s1", since=last_seq)                          # catch up on a session

``RpcConnection`` is an :class:`RpcClient` whose records travel over a socket instead of a child's
stdin/stdout: the same command methods, event streams and session handles. ``unix:`` and ``tcp:``
are standard library; ``ws://``/``wss://`` use the ``websockets`` package when it is installed.

With ``reconnect=True`` the connection numbers events (``seq``) and remembers the sessions it is
attached to and the last ``seq`` it received; when the connection drops it connects again,
authenticates and re-attaches each session with ``since`` = that seq: the event streams go on with
no gap and no duplicate (``reconnects`` lists each one, with whether the server's ring still held
everything). A request in flight when the connection dropped fails (it may or may not have run).
"""

from __future__ import annotations

import os
import socket
import ssl
import threading
import time
from typing import Any

from .client import RpcClient, Timeout
from .errors import RpcError
from .framing import LineSplitter

Record = dict[str, Any]
_DEFAULT = "default"


class _Wire:
    """One connection's bytes: ``send(data)``, ``chunks()`` until EOF, ``close()``."""

    def __init__(self, address: str, *, token: str | None, tls: ssl.SSLContext | None, timeout: float) -> None:
        self.ws: Any = None
        self.sock: socket.socket | None = None
        if address.startswith(("ws://", "wss://")):
            try:
                from websockets.sync.client import connect as ws_connect
            except ImportError:  # pragma: no cover - optional
                raise RpcError("ws:// addresses need the websockets package (pip install websockets)") from None
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            self.ws = ws_connect(
                address, additional_headers=headers, max_size=None, open_timeout=timeout, ssl=tls
            ).__enter__()
            return
        if address.startswith("unix:"):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(timeout)
            sock.connect(os.path.expanduser(address[5:]))
        elif address.startswith("tcp:"):
            host, _, port = address[4:].rpartition(":")
            sock = socket.create_connection((host.strip("[]"), int(port)), timeout=timeout)
            if tls is not None:
                sock = tls.wrap_socket(sock, server_hostname=host.strip("[]"))
        else:
            raise RpcError(f"unknown address {address!r}: expected unix:<path>, tcp:<host>:<port>, ws:// or wss://")
        sock.settimeout(None)
        self.sock = sock

    def send(self, data: bytes) -> None:
        if self.ws is not None:
            for line in data.split(b"\n"):
                if line:
                    self.ws.send(line.decode("utf-8", "surrogateescape"))
            return
        assert self.sock is not None
        self.sock.sendall(data)

    def chunks(self) -> Any:
        while True:
            try:
                if self.ws is not None:
                    message = self.ws.recv()
                    chunk = (message.encode() if isinstance(message, str) else message) + b"\n"
                else:
                    assert self.sock is not None
                    chunk = self.sock.recv(1 << 16)
            except Exception:  # noqa: BLE001 - closed or reset: the end of this connection
                return
            if not chunk:
                return
            yield chunk

    def close(self) -> None:
        try:
            if self.ws is not None:
                self.ws.close()
            elif self.sock is not None:
                try:
                    self.sock.shutdown(socket.SHUT_RDWR)  # (wakes the reader thread's recv)
                except OSError:
                    pass
                self.sock.close()
        except Exception:  # noqa: BLE001 - closing a broken connection
            pass


def _read_token(token: str | None, token_file: str | os.PathLike[str] | None) -> str | None:
    if token is not None or token_file is None:
        return token
    with open(os.path.expanduser(os.fspath(token_file)), encoding="utf-8") as f:
        return f.read().strip()


class RpcConnection(RpcClient):
    """An :class:`RpcClient` over a connection to a listening server (see the module docstring)."""

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
        super().__init__([], default_timeout=default_timeout, start=False)
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
        self._wire: _Wire | None = None
        self._observe_records(self._track)
        self._connect()

    # ------------------------------------------------------------------ the connection
    def _connect(self, *, since: int | None = None) -> None:
        """Connect, authenticate, number events; after a drop (``since``: the last seq received on
        the old connection), attach every session again from there."""
        wire = _Wire(self.address, token=self.token, tls=self.tls, timeout=self.connect_timeout)
        self._wire = wire
        thread = threading.Thread(target=self._read_wire, args=(wire,), name="pi-rpc-conn", daemon=True)
        self._threads = [*[t for t in self._threads if t.is_alive()], thread]
        thread.start()
        if self.token is not None and wire.ws is None:
            self.request({"type": "authenticate", "token": self.token}, self.connect_timeout)
        if self.reconnect:
            self.request({"type": "set_event_options", "seq": True}, self.connect_timeout)
        if since is not None:
            if _DEFAULT not in self.attached:
                self.request({"type": "detach_session", "handle": _DEFAULT}, self.connect_timeout)
            for handle in sorted(self.attached):
                response = self.request(
                    {"type": "attach_session", "handle": handle, "since": since}, self.connect_timeout
                )
                self.reconnects.append({"handle": handle, "since": since, **(response.get("data") or {})})

    def _read_wire(self, wire: _Wire) -> None:
        splitter = LineSplitter()
        for chunk in wire.chunks():
            for line in splitter.feed(chunk):
                self._dispatch_line(line)
        if wire is not self._wire:
            return
        if self.reconnect and not self._closing and self._reconnect():
            return
        self._on_stream_end()

    def _reconnect(self) -> bool:
        # Requests in flight on the old connection fail; event streams carry on.
        with self._state_lock:
            pending = list(self._pending.values())
            self._pending.clear()
        for p in pending:
            p.error = RpcError(f"the connection dropped while waiting for the response to {p.command}")
            p.done.set()
        since = self.last_seq  # (the new connection's own responses are numbered too)
        deadline = time.monotonic() + self.reconnect_for
        delay = 0.05
        while not self._closing and time.monotonic() < deadline:
            try:
                self._connect(since=since)  # (its reader is a new thread; this one ends)
                return True
            except Exception:  # noqa: BLE001 - not up yet, or dropped again: retry
                wire = self._wire
                if wire is not None:
                    wire.close()
                time.sleep(delay)
                delay = min(delay * 2, 1.0)
        return False

    def _track(self, record: Record | None) -> None:
        if record is None:
            return
        seq = record.get("seq")
        if isinstance(seq, int) and seq > self.last_seq:
            self.last_seq = seq
        if record.get("type") == "response" and record.get("success"):
            command = record.get("command")
            data = record.get("data") or {}
            if command == "open_session" and isinstance(data.get("handle"), str):
                self.attached.add(data["handle"])

    # ------------------------------------------------------------------ RpcClient over the wire
    def start(self) -> "RpcConnection":
        return self

    @property
    def pid(self) -> int | None:
        return None

    def send_raw(self, data: bytes) -> None:
        wire = self._wire
        if wire is None:
            raise RpcError("not connected")
        with self._write_lock:
            try:
                wire.send(data)
            except Exception as exc:  # noqa: BLE001 - the connection dropped
                raise RpcError(f"the connection to {self.address} dropped ({exc})") from exc

    def attach(self, handle: str, since: int | None = None, *, timeout: Timeout = ...) -> Record:
        data = super().attach(handle, since, timeout=timeout)
        self.attached.add(handle)
        return data

    def detach(self, handle: str, *, timeout: Timeout = ...) -> None:
        super().detach(handle, timeout=timeout)
        self.attached.discard(handle)

    def close(self, timeout: float = 5.0) -> int | None:
        """Close the connection; the server and its sessions go on."""
        self._closing = True
        wire = self._wire
        if wire is not None:
            wire.close()
        for t in self._threads:
            if t is not threading.current_thread():
                t.join(timeout=timeout)
        return None


def connect(address: str, token: str | None = None, **kwargs: Any) -> RpcConnection:
    """Connect to ``pi --mode rpc --listen <address>`` (``unix:<path>``, ``tcp:<host>:<port>``,
    ``ws://…``/``wss://…``); ``token`` (or ``token_file=``) for TCP and WebSocket. See
    :class:`RpcConnection` for ``reconnect``, ``tls`` and the timeouts."""
    return RpcConnection(address, token=token, **kwargs)
