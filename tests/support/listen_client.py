"""Test clients for ``pi --mode rpc --listen``: a connection over a Unix socket, TCP or WebSocket
that reads records in a thread as they come (so the server never waits on the test), keeps
them in order with their exact bytes, and waits for records as ``PiProcess`` does.

``start_listening`` spawns the real server (``tests.support.pi_process.start_in``) and waits for
its ``{"listening":[…]}`` stderr line. Standard library only, except the WebSocket client
(``websockets``' synchronous client, imported when used), so ``bench/`` can use it too.
"""

from __future__ import annotations

import itertools
import json
import queue
import socket
import threading
import time
from pathlib import Path
from typing import Any

from tests.support.pi_process import PiProcess, Pred, RecordTimeout, start_in


def wait_listening(p: PiProcess, timeout: float = 20.0) -> dict[str, Any]:
    """The server's ``{"listening":[…]}`` line (parsed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in p.stderr.splitlines():
            if line.startswith('{"listening"'):
                return dict(json.loads(line))
        if p.popen.poll() is not None:
            raise AssertionError(f"server exited {p.popen.returncode}: {p.stderr[-3000:]}")
        time.sleep(0.02)
    raise AssertionError(f"no listening line: {p.stderr[-3000:]}")


def start_listening(
    root: Path, listen: list[str], *, args: tuple[str, ...] = (), **kwargs: Any
) -> tuple[PiProcess, dict[str, Any]]:
    flags: list[str] = []
    for address in listen:
        flags += ["--listen", address]
    p = start_in(root, args=(*flags, *args), **kwargs)
    return p, wait_listening(p)


def address_of(info: dict[str, Any], kind: str) -> str:
    return next(a for a in info["listening"] if a.startswith(kind))


class Conn:
    """One client connection. ``records``/``raw`` hold what arrived so far, in order."""

    def __init__(
        self,
        address: str,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        origin: str | None = None,
        authenticate: bool = True,
    ) -> None:
        self.address = address
        self.records: list[Any] = []
        self.raw: list[bytes] = []
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._ids = itertools.count(1)
        self.closed = False
        self._ws: Any = None
        self._sock: socket.socket | None = None
        if address.startswith(("ws://", "wss://")):
            from websockets.sync.client import connect

            extra = dict(headers or {})
            self._ws = connect(  # (entered by hand: the connection lives as long as this object)
                address,
                additional_headers=extra,
                origin=origin,
                max_size=None,
                open_timeout=10,  # type: ignore[arg-type]
            ).__enter__()
            target = self._pump_ws
        else:
            if address.startswith("unix:"):
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.connect(address[5:])
            else:
                host, _, port = address[4:].rpartition(":")
                sock = socket.create_connection((host.strip("[]"), int(port)))
            self._sock = sock
            target = self._pump_sock
        self._thread = threading.Thread(target=target, daemon=True)
        self._thread.start()
        if token is not None and authenticate:
            response = self.cmd("authenticate", token=token)
            assert response["success"] is True, response

    # -------------------------------------------------------------- reading

    def _pump_sock(self) -> None:
        assert self._sock is not None
        pending = b""
        while True:
            try:
                chunk = self._sock.recv(1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                self._lines.put(line)
        if pending:
            self._lines.put(pending)
        self._lines.put(None)

    def _pump_ws(self) -> None:
        while True:
            try:
                message = self._ws.recv()
            except Exception:  # noqa: BLE001 - closed
                break
            self._lines.put(message.encode() if isinstance(message, str) else message)
        self._lines.put(None)

    def read_record(self, timeout: float = 10.0) -> Any:
        if self.closed:
            raise RecordTimeout("connection closed")
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise RecordTimeout(f"no record within {timeout}s") from None
        if line is None:
            self.closed = True
            raise RecordTimeout("connection closed")
        record = json.loads(line)
        self.raw.append(line)
        self.records.append(record)
        return record

    def wait_for(self, pred: Pred, timeout: float = 10.0, start: int = 0) -> Any:
        for record in self.records[start:]:
            if pred(record):
                return record
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RecordTimeout(f"no matching record within {timeout}s; got {self.records[-5:]}")
            record = self.read_record(left)
            if pred(record):
                return record

    def read_all(self, timeout: float = 10.0) -> list[Any]:
        """Every record until the server closes the connection."""
        deadline = time.monotonic() + timeout
        while not self.closed:
            try:
                self.read_record(max(0.01, deadline - time.monotonic()))
            except RecordTimeout:
                if not self.closed:
                    raise
        return self.records

    def drain(self, quiet: float = 0.1) -> None:
        while True:
            try:
                self.read_record(quiet)
            except RecordTimeout:
                return

    # -------------------------------------------------------------- writing

    def write(self, data: bytes) -> None:
        if self._ws is not None:
            for line in data.split(b"\n"):
                if line:
                    self._ws.send(line)
            return
        assert self._sock is not None
        self._sock.sendall(data)

    def send(self, obj: Any) -> None:
        if self._ws is not None:
            self._ws.send(json.dumps(obj))
        else:
            self.write(json.dumps(obj).encode() + b"\n")

    def request(self, ctype: str, **fields: Any) -> str:
        cmd_id = f"c{next(self._ids)}"
        self.send({"id": cmd_id, "type": ctype, **fields})
        return cmd_id

    def response(self, cmd_id: Any, timeout: float = 10.0) -> dict[str, Any]:
        return dict(self.wait_for(lambda r: r.get("type") == "response" and r.get("id") == cmd_id, timeout))

    def cmd(self, ctype: str, timeout: float = 10.0, **fields: Any) -> dict[str, Any]:
        return self.response(self.request(ctype, **fields), timeout)

    def ok(self, ctype: str, timeout: float = 10.0, **fields: Any) -> Any:
        response = self.cmd(ctype, timeout, **fields)
        assert response["success"] is True, response
        return response.get("data")

    def close(self) -> None:
        try:
            if self._ws is not None:
                self._ws.close()
            elif self._sock is not None:
                # (shutdown first: a close alone waits for the reader thread's recv to return)
                try:
                    self._sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                self._sock.close()
        except OSError:
            pass
