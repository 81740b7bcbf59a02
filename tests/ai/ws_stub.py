"""The WebSocket side of the provider stub (``stub_server.ReplayServer``): an upgrade on the
server's own port, spoken with the **websockets** library's sans-I/O server protocol over the
request handler's socket, so one port serves both the SSE POSTs and the sockets (as the Codex
backend does: both transports share ``/codex/responses``).

The script is a list of ``WsReply``, used in order: a reply with a ``status`` other than 101
refuses the upgrade with that HTTP status; otherwise the upgrade is accepted and each text
message the client sends (recorded as a request with method ``WS`` and its parsed JSON) is
answered by the next reply's ``frames``, after which the reply's ``end`` says what happens:
``keep`` (wait for the next message), ``close`` (a close frame, code 1000) or ``drop`` (the TCP
connection is cut without a close frame). The upgrade itself is recorded as a ``GET``.
"""

from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from http.server import BaseHTTPRequestHandler

    from tests.ai.stub_server import ReplayServer


@dataclass
class WsReply:
    frames: list[str] = field(default_factory=list)  # text frames, sent as they are
    status: int = 101  # anything else: the upgrade is refused with this status
    end: Literal["keep", "close", "drop"] = "keep"


@dataclass
class WebSocketScript:
    replies: list[WsReply] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def _next(self) -> WsReply | None:
        with self.lock:
            return self.replies.pop(0) if self.replies else None

    def _peek(self) -> WsReply | None:
        with self.lock:
            return self.replies[0] if self.replies else None

    def serve(self, handler: BaseHTTPRequestHandler, server: ReplayServer) -> None:
        from websockets.frames import Opcode
        from websockets.http11 import Request
        from websockets.server import ServerProtocol

        from tests.ai.stub_server import Reply, Seen

        headers = {k.lower(): v for k, v in handler.headers.items()}
        with server.lock:
            server.requests.append(Seen(handler.path, headers, None, "GET"))
        first = self._peek()
        if first is None or first.status != 101:
            if first is not None:
                self._next()
            status = first.status if first is not None else 404
            body = b'{"error":{"message":"websocket refused"}}'
            handler._send(Reply(body, status, "application/json"))  # type: ignore[attr-defined]
            return
        protocol = ServerProtocol(max_size=None)
        # The handler has read the request already; the protocol parses it again from its bytes
        # (its parser then moves on to frames).
        raw = "".join(f"{k}: {v}\r\n" for k, v in handler.headers.items())
        protocol.receive_data(f"GET {handler.path} HTTP/1.1\r\n{raw}\r\n".encode())
        request = protocol.events_received()[0]
        assert isinstance(request, Request)
        protocol.send_response(protocol.accept(request))
        sock: socket.socket = handler.connection
        sock.sendall(b"".join(protocol.data_to_send()))
        while True:
            data = sock.recv(65536)
            if data:
                protocol.receive_data(data)
            else:
                protocol.receive_eof()
            for frame in protocol.events_received():
                if frame.opcode is not Opcode.TEXT:
                    continue
                text = frame.data.decode()
                try:
                    body: Any = json.loads(text)
                except ValueError:
                    body = text
                with server.lock:
                    server.requests.append(Seen(handler.path, {}, body, "WS"))
                reply = self._next() or WsReply(end="close")
                for out in reply.frames:
                    protocol.send_text(out.encode())
                sock.sendall(b"".join(protocol.data_to_send()))
                if reply.end == "drop":
                    sock.shutdown(socket.SHUT_RDWR)
                    return
                if reply.end == "close":
                    protocol.send_close(1000)
                    sock.sendall(b"".join(protocol.data_to_send()))
            pending = protocol.data_to_send()
            if pending:
                try:
                    sock.sendall(b"".join(pending))
                except OSError:
                    return
            if not data or protocol.close_expected():
                return
