"""A prompt through a REAL local OpenAI-compatible SSE server configured in
``<agentDir>/models.json`` (api ``openai-completions``), text and a bash tool call; the request
bodies are compared with what upstream pi 1.6 sent in the oracle scenario c_tool_bash
(tests/fixtures/runtime/c_tool_bash.requests.min.json)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.support.pi_process import kinds

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "runtime" / "c_tool_bash.requests.min.json"


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        server: _Server = self.server  # type: ignore[assignment]
        headers = {k.lower(): v for k, v in self.headers.items()}
        server.requests.append({"path": self.path, "headers": headers, "body": body})
        turn = server.turns.pop(0) if server.turns else {"text": "out of script"}
        if "status" in turn:
            payload = json.dumps({"error": {"message": turn.get("message", "rate limited"), "type": "rate_limit"}})
            self.send_response(turn["status"])
            for name, value in (turn.get("headers") or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload.encode())
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

        def sse(obj: Any) -> None:
            data = obj if isinstance(obj, str) else json.dumps(obj)
            self.wfile.write(f"data: {data}\n\n".encode())
            self.wfile.flush()

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": body.get("model"),
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        sse(chunk({"role": "assistant", "content": ""}))
        if "text" in turn:
            for piece in (turn["text"][:5], turn["text"][5:]):
                sse(chunk({"content": piece}))
        calls = turn.get("tool_calls", [])
        for idx, call in enumerate(calls):
            args = json.dumps(call["arguments"], separators=(",", ":"))
            sse(
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": idx,
                                "id": call["id"],
                                "type": "function",
                                "function": {"name": call["name"], "arguments": ""},
                            }
                        ]
                    }
                )
            )
            for piece in (args[:7], args[7:]):
                sse(chunk({"tool_calls": [{"index": idx, "function": {"arguments": piece}}]}))
        sse(chunk({}, "tool_calls" if calls else "stop"))
        sse(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": body.get("model"),
                "choices": [],
                "usage": {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105},
            }
        )
        sse("[DONE]")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, turns: list[dict[str, Any]]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.turns = turns
        self.requests: list[dict[str, Any]] = []


@pytest.fixture
def llm_server():
    servers: list[_Server] = []

    def start(turns: list[dict[str, Any]]) -> _Server:
        server = _Server(turns)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _models_json(port: int) -> dict[str, Any]:
    zero = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
    return {
        "providers": {
            "fake": {
                "baseUrl": f"http://127.0.0.1:{port}/v1",
                "api": "openai-completions",
                "apiKey": "fake-key",
                "models": [
                    {"id": "fake-model", "name": "Fake Model", "contextWindow": 128000, "maxTokens": 4096, "cost": zero}
                ],
            }
        }
    }


def test_openai_compatible_server_text_and_tool_call(pi, llm_server):
    server = llm_server(
        [
            {
                "text": "Let me run it.",
                "tool_calls": [{"id": "call_1", "name": "bash", "arguments": {"command": "echo hi"}}],
            },
            {"text": "The command printed hi."},
            {"text": "Hello again."},
        ]
    )
    p = pi(
        models=_models_json(server.server_address[1]),
        settings={"defaultProvider": "fake", "defaultModel": "fake-model"},
    )
    state = p.ok("get_state")
    assert (state["model"]["provider"], state["model"]["id"]) == ("fake", "fake-model")
    p.cmd("prompt", message="Run echo hi")
    p.settle(timeout=20)
    seq = kinds(p.records)
    assert seq.count("tool_execution_end") == 1 and seq.count("turn_start") == 2
    ends = [r["message"] for r in p.records if r["type"] == "message_end" and r["message"]["role"] == "assistant"]
    assert [m["stopReason"] for m in ends] == ["toolUse", "stop"]
    assert ends[0]["content"][1] == {
        "type": "toolCall",
        "id": "call_1",
        "name": "bash",
        "arguments": {"command": "echo hi"},
    }
    assert ends[0]["api"] == "openai-completions" and ends[0]["provider"] == "fake"
    assert ends[1]["content"] == [{"type": "text", "text": "The command printed hi."}]
    assert ends[1]["usage"]["input"] == 100
    tool_end = p.wait_for("tool_execution_end")
    assert tool_end["result"]["content"] == [{"type": "text", "text": "hi\n"}]

    expected = json.loads(FIXTURE.read_text())
    assert len(server.requests) == 2
    for got, want in zip(server.requests, expected):
        body = got["body"]
        assert got["path"] == "/v1/chat/completions"
        assert got["headers"].get("authorization") == "Bearer fake-key"
        assert body["model"] == want["model"] and body["stream"] is True
        assert body["stream_options"] == want["stream_options"]
        assert body["messages"][0]["role"] == "system"
        assert body["messages"][1:] == want["messages"]
        assert [t["function"]["name"] for t in body["tools"]] == want["tools"]
        assert "Run echo hi" not in body["messages"][0]["content"]

    # A second prompt carries the whole history, tool call paired with its result.
    mark = p.mark()
    p.cmd("prompt", message="And now?")
    p.settle(mark, timeout=20)
    roles = [(m["role"], m.get("tool_call_id")) for m in server.requests[2]["body"]["messages"]]
    assert roles == [
        ("system", None),
        ("user", None),
        ("assistant", None),
        ("tool", "call_1"),
        ("assistant", None),
        ("user", None),
    ]
    assert p.ok("get_last_assistant_text") == {"text": "Hello again."}


def test_models_json_headers_and_provider_level_retry(pi, llm_server):
    # Headers from models.json are resolved ($ENV) and sent; a 429 with Retry-After is retried
    # by the provider layer (retry.provider.maxRetries) inside ONE agent attempt: no auto_retry.
    server = llm_server(
        [
            {"status": 429, "headers": {"Retry-After": "0"}, "message": "Rate limit reached"},
            {"text": "Hello after a retry."},
        ]
    )
    models = _models_json(server.server_address[1])
    models["providers"]["fake"]["headers"] = {"X-Team": "$PI_TEST_TEAM_HEADER", "X-Literal": "lit"}
    p = pi(
        models=models,
        env={"PI_TEST_TEAM_HEADER": "blue"},
        settings={"defaultProvider": "fake", "defaultModel": "fake-model", "retry": {"provider": {"maxRetries": 2}}},
    )
    p.cmd("prompt", message="hi")
    p.settle(timeout=20)
    assert len(server.requests) == 2
    for request in server.requests:
        assert request["headers"].get("x-team") == "blue"
        assert request["headers"].get("x-literal") == "lit"
    seq = kinds(p.records)
    assert "auto_retry_start" not in seq
    assert p.ok("get_last_assistant_text") == {"text": "Hello after a retry."}


def test_agent_retry_waits_for_the_servers_retry_after(pi, llm_server):
    # Deliberate difference (protocol/README.md): the session's backoff honours Retry-After
    # when the server asks for longer than baseDelayMs * 2^(n-1) (upstream ignores it).
    server = llm_server(
        [
            {"status": 503, "headers": {"Retry-After": "1"}, "message": "Service unavailable"},
            {"text": "Recovered."},
        ]
    )
    p = pi(
        models=_models_json(server.server_address[1]),
        settings={"defaultProvider": "fake", "defaultModel": "fake-model", "retry": {"baseDelayMs": 10}},
    )
    p.cmd("prompt", message="hi")
    p.settle(timeout=20)
    start = p.wait_for("auto_retry_start")
    assert start["attempt"] == 1 and start["delayMs"] == 1000
    assert start["errorMessage"].startswith("503")
    end = p.wait_for("auto_retry_end")
    assert end == {"type": "auto_retry_end", "success": True, "attempt": 1}
    assert p.ok("get_last_assistant_text") == {"text": "Recovered."}


def test_abort_during_tool_matches_upstream_texts(pi, llm_server):
    # Upstream 1.6 (oracle run): the running tool fails, turn_end, then the next turn's model
    # call fails at once as aborted with fetch's "This operation was aborted".
    server = llm_server(
        [
            {"tool_calls": [{"id": "call_s", "name": "bash", "arguments": {"command": "sleep 5"}}]},
            {"text": "never"},
        ]
    )
    p = pi(
        models=_models_json(server.server_address[1]),
        settings={"defaultProvider": "fake", "defaultModel": "fake-model"},
    )
    p.cmd("prompt", message="run sleep")
    p.wait_for("tool_execution_start", timeout=10)
    # bash's first (empty) update follows its start at once: wait for it rather than race it.
    p.wait_for("tool_execution_update", timeout=10)
    mark = p.mark()
    abort = p.cmd("abort", timeout=20)
    assert abort["success"] is True
    seq = kinds(p.since(mark))
    assert seq == [
        "tool_execution_end",
        "message_start:toolResult",
        "message_end:toolResult",
        "turn_end",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
        "agent_settled",
        "response:" + str(abort["id"]),
    ]
    tool_end = p.wait_for("tool_execution_end", start=mark)
    assert tool_end["isError"] is True
    last = [r["message"] for r in p.since(mark) if r["type"] == "message_end"][-1]
    assert last["stopReason"] == "aborted" and last["errorMessage"] == "This operation was aborted"
    assert last["content"] == []
    assert len(server.requests) == 1  # the aborted call never reached the server
