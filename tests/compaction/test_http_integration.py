"""compact() through the real default stream function and the openai-completions provider,
against a scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from pi_rpc.compaction import CompactionError, CompactionSettings, RetrySettings, prepare_compaction
from pi_rpc.compaction.compact import compact

from .conftest import MODEL, load_session

pytestmark = pytest.mark.anyio


def sse_reply(text: str, finish: str = "stop") -> bytes:
    chunks = [
        {
            "id": "c1",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}],
        },
        {
            "id": "c1",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
        },
        {
            "id": "c1",
            "object": "chat.completion.chunk",
            "choices": [],
            "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
        },
    ]
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


class Server:
    def __init__(self) -> None:
        self.script: list[tuple[int, bytes]] = []
        self.bodies: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length") or 0)
                outer.bodies.append(json.loads(self.rfile.read(length)))
                status, body = outer.script.pop(0)
                self.send_response(status)
                self.send_header("content-type", "text/event-stream" if status == 200 else "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


@pytest.fixture
def server() -> Iterator[Server]:
    srv = Server()
    thread = threading.Thread(target=srv.httpd.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


async def test_compact_over_http(server: Server) -> None:
    prep = prepare_compaction(load_session("c_tool_bash.session.jsonl"), CompactionSettings(keep_recent_tokens=20))
    # Cumulative estimates from the end: 3, 4, 5, 17, 24 -> the budget of 20 is crossed on
    # the user message "Run two commands in parallel".
    assert prep is not None and not prep.is_split_turn and prep.first_kept_entry_id == "02d476a1"
    server.script = [
        (503, b'{"error":{"message":"upstream unavailable"}}'),
        (200, sse_reply("## Goal\nRun commands.")),
    ]
    events: list[dict] = []
    result = await compact(
        prep,
        {**MODEL, "baseUrl": server.url},
        "test-key",
        on_retry=events.append,
        retry_settings=RetrySettings(max_retries=2, base_delay_ms=1, max_delay_ms=1),
    )
    assert result["summary"] == "## Goal\nRun commands."
    assert result["usage"]["input"] + result["usage"]["output"] == 150
    assert [e["type"] for e in events] == [
        "summarization_retry_scheduled",
        "summarization_retry_attempt_start",
        "summarization_retry_finished",
    ]
    assert events[0]["errorMessage"].startswith("503")
    body = server.bodies[-1]
    assert "tools" not in body
    roles = [m["role"] for m in body["messages"]]
    assert roles[-1] == "user" and len([r for r in roles if r == "user"]) == 1
    user_text = body["messages"][-1]["content"]
    user_text = user_text if isinstance(user_text, str) else "".join(p.get("text", "") for p in user_text)
    assert user_text.startswith("<conversation>\n[User]: Run echo hi")
    assert body.get("max_completion_tokens", body.get("max_tokens")) == 4096


async def test_truncated_summary_over_http_fails(server: Server) -> None:
    prep = prepare_compaction(load_session("c_tool_bash.session.jsonl"), CompactionSettings(keep_recent_tokens=20))
    assert prep is not None
    server.script = [(200, sse_reply("## Goal\nRun comm", finish="length"))]
    with pytest.raises(CompactionError, match="token cap"):
        await compact(prep, {**MODEL, "baseUrl": server.url}, "test-key")
