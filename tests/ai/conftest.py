"""Fixtures for the LLM-layer tests: a real HTTP server on 127.0.0.1 that replays recorded
provider bytes (optionally split at odd boundaries and slowed down) and records what it saw,
including client disconnects."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "llm-streams"


@pytest.fixture(autouse=True)
def _reset_faux(monkeypatch: pytest.MonkeyPatch):
    from pi_rpc.ai.providers import faux

    monkeypatch.delenv("PI_FAUX_SCRIPT", raising=False)
    faux.set_faux_script(None)
    faux.set_faux_config_script(None)
    faux.reset_faux()
    yield
    faux.set_faux_script(None)
    faux.set_faux_config_script(None)
    faux.reset_faux()


def fixture_bytes(rel: str) -> bytes:
    return (FIXTURES / rel).read_bytes()


@dataclass
class Reply:
    body: bytes = b""
    status: int = 200
    content_type: str = "text/event-stream"
    headers: dict[str, str] = field(default_factory=dict)
    chunk_size: int | None = None  # split the body into pieces of this many bytes
    delay_s: float = 0.0  # pause before each piece


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any


class ReplayServer:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
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

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                with server.lock:
                    server.requests.append(Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                    reply = server.replies.pop(0) if server.replies else Reply(b"no reply scripted", 500, "text/plain")
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.send_header("Connection", "close")
                    if reply.status >= 300 or reply.chunk_size is None and not reply.delay_s:
                        self.send_header("Content-Length", str(len(reply.body)))
                        self.end_headers()
                        self.wfile.write(reply.body)
                        self.wfile.flush()
                    else:
                        self.end_headers()
                        size = reply.chunk_size or len(reply.body) or 1
                        for i in range(0, len(reply.body), size):
                            if reply.delay_s:
                                time.sleep(reply.delay_s)
                            self.wfile.write(reply.body[i : i + size])
                            self.wfile.flush()
                    with server.lock:
                        server.completed += 1
                except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
                    with server.lock:
                        server.disconnects += 1
                    server.disconnected.set()
                self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def add(self, reply: Reply) -> None:
        with self.lock:
            self.replies.append(reply)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    srv = ReplayServer()
    yield srv
    srv.close()
