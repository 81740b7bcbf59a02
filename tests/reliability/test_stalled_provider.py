"""A provider that stalls forever (accepts the request and never answers, or stops halfway
through the stream) is bounded by the request timeout and can always be aborted; the
process keeps serving meanwhile."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from protocol.conformance.scripted_llm import write_agent_config
from tests.support.pi_process import PiProcess, is_event

Start = Callable[..., PiProcess]


class StallingServer:
    """Reads each request, then either says nothing (``silent``) or sends the SSE headers and
    one delta (``midstream``) — and never another byte."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.requests = 0
        self._conns: list[socket.socket] = []
        self._stop = False
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self._conns.append(conn)
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        try:
            self._answer(conn)
        except OSError:
            pass  # closed at teardown

    def _answer(self, conn: socket.socket) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = next(
            (int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0
        )
        while len(body) < length:
            body += conn.recv(65536)
        self.requests += 1
        if self.mode == "midstream":
            chunk = b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"partial"},"finish_reason":null}]}\n\n'
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + chunk)
        # ...and nothing more, until the test ends.

    def close(self) -> None:
        self._stop = True
        self.sock.close()
        for conn in self._conns:
            conn.close()


@pytest.fixture
def stalling() -> Iterator[Callable[[str], StallingServer]]:
    servers: list[StallingServer] = []

    def start(mode: str) -> StallingServer:
        servers.append(StallingServer(mode))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


@pytest.mark.parametrize("mode", ["silent", "midstream"])
def test_stall_is_bounded_by_the_request_timeout(
    pi: Start, stalling: Callable[[str], StallingServer], tmp_path: Path, mode: str
) -> None:
    server = stalling(mode)
    agent = tmp_path / "cfg"
    write_agent_config(
        str(agent), server.base_url, {"retry": {"enabled": False, "provider": {"timeoutMs": 400, "maxRetries": 0}}}
    )
    p = pi(models=_json(agent / "models.json"), settings=_json(agent / "settings.json"))
    mark = p.mark()
    assert p.cmd("prompt", message="hello")["success"] is True
    end = p.wait_for(is_event("message_end"), start=mark, timeout=30)
    while end["message"]["role"] != "assistant":
        end = p.wait_for(
            lambda r: r.get("type") == "message_end" and r["message"]["role"] == "assistant", start=mark, timeout=30
        )
    message = end["message"]
    assert message["stopReason"] == "error" and message["errorMessage"], message
    p.settle(mark, timeout=30)
    assert p.ok("get_state")["isStreaming"] is False
    assert p.close() == 0


@pytest.mark.parametrize("mode", ["silent", "midstream"])
def test_stall_is_abortable(pi: Start, stalling: Callable[[str], StallingServer], tmp_path: Path, mode: str) -> None:
    server = stalling(mode)
    agent = tmp_path / "cfg"
    write_agent_config(str(agent), server.base_url)  # default timeout: minutes
    p = pi(models=_json(agent / "models.json"), settings=_json(agent / "settings.json"))
    mark = p.mark()
    assert p.cmd("prompt", message="hello")["success"] is True
    if mode == "midstream":
        p.wait_for(is_event("message_update"), start=mark, timeout=30)
    else:
        deadline = time.monotonic() + 30
        while server.requests == 0 and time.monotonic() < deadline:
            time.sleep(0.02)  # the request is in the server's hands, unanswered
        assert server.requests == 1
    assert p.ok("get_state")["isStreaming"] is True  # serving while the provider hangs
    assert p.cmd("abort", timeout=30)["success"] is True
    settled = p.settle(mark, timeout=30)
    assert settled["aborted"] is True
    assert server.requests >= 1
    assert p.close() == 0


def _json(path: Path) -> dict[str, object]:
    import json

    return json.loads(path.read_text())
