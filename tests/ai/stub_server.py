"""A real HTTP server on 127.0.0.1 that plays a provider: scripted replies in order, every
request recorded. A reply may be split at odd boundaries and slowed down (``chunk_size``,
``delay_s``), or stop half-way by closing the connection with its chunked body unterminated
(``drop``); client disconnects are counted. A zstd request body (``content-encoding: zstd``) is
recorded decompressed; WebSocket upgrades are served by a ``ws_stub.WebSocketScript``. Used by the provider tests (the ``server`` fixture)
and by the whole-program wire comparisons (``provider_wire``)."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.ai.ws_stub import WebSocketScript


@dataclass
class Reply:
    body: bytes = b""
    status: int = 200
    content_type: str = "text/event-stream"
    headers: dict[str, str] = field(default_factory=dict)
    chunk_size: int | None = None  # split the body into pieces of this many bytes
    delay_s: float = 0.0  # pause before each piece
    drop: bool = False  # send the body (chunked) and close without the final chunk


@dataclass
class Seen:
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # parsed JSON, or the text when it is not JSON
    method: str = "POST"
    raw: bytes = b""  # the body as sent (a signature covers these bytes)


NO_REPLY = Reply(b"no reply scripted", 500, "text/plain")


class ReplayServer:
    """Replies in order; when they run out, ``repeat_last`` sends the last one again, otherwise
    a 500 says nothing was scripted. Usable as a context manager (closed on exit)."""

    def __init__(
        self, replies: list[Reply] | None = None, *, repeat_last: bool = False, websocket: WebSocketScript | None = None
    ) -> None:
        self.replies: list[Reply] = list(replies or [])
        self.repeat_last = repeat_last
        # WebSocket upgrades (GET) are served from this script; without one they get a 404.
        self.websocket = websocket
        self.requests: list[Seen] = []
        self.disconnects = 0
        self.completed = 0
        self.lock = threading.Lock()
        self.disconnected = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                headers = {k.lower(): v for k, v in self.headers.items()}
                if server.websocket is None or headers.get("upgrade", "").lower() != "websocket":
                    with server.lock:
                        server.requests.append(Seen(self.path, headers, None, self.command))
                    self._send(Reply(b"Not Found", 404, "text/plain"))
                    self.close_connection = True
                    return
                server.websocket.serve(self, server)
                self.close_connection = True

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                if (self.headers.get("Content-Encoding") or "").lower() == "zstd":
                    import zstandard  # (a Codex request body)

                    raw = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                headers = {k.lower(): v for k, v in self.headers.items()}
                with server.lock:
                    server.requests.append(Seen(self.path, headers, body, self.command, raw))
                    reply = server._next_reply()
                try:
                    self._send(reply)
                    with server.lock:
                        server.completed += 1
                except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
                    with server.lock:
                        server.disconnects += 1
                    server.disconnected.set()
                self.close_connection = True

            def _send(self, reply: Reply) -> None:
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                if reply.drop:
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(reply.body), reply.body))
                    self.wfile.flush()
                    time.sleep(0.2)  # the client reads the events before the connection goes
                    return
                self.send_header("Connection", "close")
                if reply.status >= 300 or reply.chunk_size is None and not reply.delay_s:
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                    self.wfile.flush()
                    return
                self.end_headers()
                size = reply.chunk_size or len(reply.body) or 1
                for i in range(0, len(reply.body), size):
                    if reply.delay_s:
                        time.sleep(reply.delay_s)
                    self.wfile.write(reply.body[i : i + size])
                    self.wfile.flush()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def _next_reply(self) -> Reply:
        if len(self.replies) > 1 or (self.replies and not self.repeat_last):
            return self.replies.pop(0)
        return self.replies[0] if self.replies else NO_REPLY

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def add(self, reply: Reply) -> None:
        with self.lock:
            self.replies.append(reply)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> ReplayServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
