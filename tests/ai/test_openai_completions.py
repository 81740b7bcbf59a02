"""openai-completions: recorded streams replayed through a real 127.0.0.1 server."""

from __future__ import annotations

import anyio
import pytest

from pi_rpc.ai.abort import AbortController
from pi_rpc.ai.classify import is_context_overflow, is_retryable_error
from pi_rpc.ai.types import Context, StreamOptions

from .conftest import Reply, fixture_bytes
from .helpers import compat_model, run

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("chunk_size", [None, 7, 1])
async def test_text_include_usage(server, chunk_size):
    server.add(Reply(fixture_bytes("openai/chat_text_include_usage.sse"), chunk_size=chunk_size))
    t = await run(
        compat_model(server.url + "/v1", cost={"input": 0.15, "output": 0.6, "cacheRead": 0.075, "cacheWrite": 0})
    )
    assert t.compact_types() == ["start", "text_start", "text_delta", "text_end", "done"]
    msg = t.final
    assert msg["stopReason"] == "stop" and msg["rawStopReason"] == "stop"
    assert msg["content"] == [{"type": "text", "text": "The capital of the UK is London."}]
    assert msg["usage"]["input"] == 78 and msg["usage"]["output"] == 9 and msg["usage"]["totalTokens"] == 87
    assert msg["usage"]["cost"]["input"] == pytest.approx(78 * 0.15 / 1e6)
    assert msg["usage"]["cost"]["totalFromProvider"] is False
    assert msg["responseId"].startswith("chatcmpl-")
    assert list(msg)[:8] == ["role", "content", "api", "provider", "model", "usage", "stopReason", "timestamp"]
    assert "durationMs" in msg and "errorMessage" not in msg
    # "partial" is one live object for the whole stream
    assert len(t.partial_ids) == 1


async def test_tool_call_grows_arguments(server):
    server.add(Reply(fixture_bytes("openai/chat_tool_call_include_usage.sse"), chunk_size=5))
    t = await run(compat_model(server.url + "/v1"))
    assert t.compact_types() == ["start", "toolcall_start", "toolcall_delta", "toolcall_end", "done"]
    msg = t.final
    assert msg["stopReason"] == "toolUse" and msg["rawStopReason"] == "tool_calls"
    call = msg["content"][0]
    assert call["type"] == "toolCall" and call["name"] == "get_capital" and call["arguments"] == {"country": "UK"}
    assert call["id"].startswith("call_")
    assert (msg["usage"]["input"], msg["usage"]["output"]) == (53, 15)
    snaps = t.arg_snapshots[0]
    assert snaps[-1] == {"country": "UK"}
    # arguments grow: at least one partial state strictly between empty and final
    assert any(s not in ({}, {"country": "UK"}) for s in snaps), snaps


async def test_request_body_matches_upstream(server):
    server.add(Reply(fixture_bytes("openai/chat_text_include_usage.sse")))
    ctx = Context(
        system_prompt="You are helpful.",
        messages=[
            {"role": "user", "content": [{"type": "text", "text": "Run echo hi"}], "timestamp": 1},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Let me run it."},
                    {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": "echo hi"}},
                ],
                "api": "openai-completions",
                "provider": "test",
                "model": "test-model",
                "usage": {},
                "stopReason": "toolUse",
                "timestamp": 2,
            },
            {
                "role": "toolResult",
                "toolCallId": "call_1",
                "toolName": "bash",
                "content": [{"type": "text", "text": "hi\n"}],
                "isError": False,
                "timestamp": 3,
            },
            {
                "role": "assistant",
                "content": [{"type": "toolCall", "id": "call_2", "name": "bash", "arguments": {"command": "x"}}],
                "api": "openai-completions",
                "provider": "test",
                "model": "test-model",
                "usage": {},
                "stopReason": "toolUse",
                "timestamp": 4,
            },
            {
                "role": "toolResult",
                "toolCallId": "call_2",
                "toolName": "bash",
                "content": [{"type": "text", "text": "ok"}],
                "isError": False,
                "timestamp": 5,
            },
        ],
        tools=[
            {
                "name": "bash",
                "description": "Run bash",
                "parameters": {
                    "type": "object",
                    "required": ["command"],
                    "properties": {"command": {"type": "string"}},
                },
            }
        ],
    )
    await run(compat_model(server.url + "/v1"), ctx, StreamOptions(api_key="fake-key"))
    seen = server.requests[0]
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == "Bearer fake-key"
    body = seen.body
    assert list(body) == ["model", "messages", "stream", "stream_options", "store", "max_completion_tokens", "tools"]
    assert body["stream_options"] == {"include_usage": True} and body["store"] is False
    assert body["max_completion_tokens"] == 4096
    assert body["messages"] == [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": [{"type": "text", "text": "Run echo hi"}]},
        {
            "role": "assistant",
            "content": "Let me run it.",
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": '{"command":"echo hi"}'}}
            ],
        },
        {"role": "tool", "content": "hi\n", "tool_call_id": "call_1"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_2", "type": "function", "function": {"name": "bash", "arguments": '{"command":"x"}'}}
            ],
        },
        {"role": "tool", "content": "ok", "tool_call_id": "call_2"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {"name": "bash", "description": "Run bash", "parameters": ctx.tools[0]["parameters"]},
        }
    ]


async def test_zai_reasoning_content(server):
    server.add(Reply(fixture_bytes("openai-compatible/zai_reasoning_content.sse"), chunk_size=64))
    t = await run(compat_model(server.url + "/v1", reasoning=True))
    msg = t.final
    assert msg["stopReason"] == "stop"
    assert [b["type"] for b in msg["content"]] == ["thinking", "text"]
    assert msg["content"][0]["thinkingSignature"] == "reasoning_content"
    assert msg["content"][1]["text"] == "4"
    assert msg["usage"]["input"] == 13 and msg["usage"]["output"] == 564 and msg["usage"]["reasoning"] == 561
    types = t.compact_types()
    assert types[:3] == ["start", "thinking_start", "thinking_delta"]
    # 1.6 closes every block only after the stream ends, in content order
    assert types[-3:] == ["thinking_end", "text_end", "done"]


async def test_openrouter_reasoning_details_and_comments(server):
    server.add(Reply(fixture_bytes("openai-compatible/openrouter_reasoning_details.sse"), chunk_size=33))
    t = await run(compat_model(server.url + "/api/v1", provider="openrouter", reasoning=True))
    msg = t.final
    assert msg["stopReason"] == "stop", msg.get("errorMessage")
    assert [b["type"] for b in msg["content"]] == ["thinking", "text"]
    sig = msg["content"][0]["thinkingSignature"]
    assert sig.startswith('[{"type":"reasoning.text"')
    assert (msg["usage"]["input"], msg["usage"]["output"], msg["usage"]["reasoning"]) == (43, 36, 13)
    # OpenRouter's usage chunk (finish_reason null) must not overwrite the finish reason
    assert msg["rawStopReason"] == "stop"
    assert msg["usage"]["cost"]["totalFromProvider"] is True


async def test_openrouter_error_chunk_midstream(server):
    server.add(Reply(fixture_bytes("openai-compatible/openrouter_error_chunk_midstream.sse")))
    t = await run(compat_model(server.url + "/v1", provider="openrouter", reasoning=True))
    assert t.types[-1] == "error"
    msg = t.final
    assert msg["stopReason"] == "error" and msg["errorMessage"] == "Token limit reached"
    assert not is_retryable_error(msg)


async def test_groq_error_event_midstream(server):
    server.add(Reply(fixture_bytes("openai-compatible/groq_error_event_midstream.sse"), chunk_size=100))
    t = await run(compat_model(server.url + "/v1", provider="groq", reasoning=True))
    msg = t.final
    assert t.types[0] == "start" and t.types[-1] == "error"
    assert msg["stopReason"] == "error"
    assert msg["errorMessage"].startswith("Tool call validation failed")
    assert msg["content"][0]["type"] == "thinking" and msg["content"][0]["thinkingSignature"] == "reasoning"


async def test_ollama_whole_tool_calls_without_done(server):
    server.add(Reply(fixture_bytes("openai-compatible/ollama_parallel_tool_calls.sse")))
    t = await run(compat_model(server.url + "/v1", provider="ollama"))
    msg = t.final
    assert msg["stopReason"] == "toolUse"
    calls = [(b["id"], b["name"], b["arguments"]) for b in msg["content"]]
    assert calls == [
        ("call_wteop8bt", "run_command", {"command": "ls"}),
        ("call_rk2xye1l", "run_command", {"command": "ls -l"}),
    ]
    assert t.types == [
        "start",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_end",
        "toolcall_end",
        "done",
    ]


async def test_http_error_context_length(server):
    server.add(
        Reply(
            fixture_bytes("openai/error_400_context_length_exceeded.json"), status=400, content_type="application/json"
        )
    )
    t = await run(compat_model(server.url + "/v1"))
    assert t.types == ["error"]  # 1.6: no start before an HTTP error
    msg = t.final
    assert msg["stopReason"] == "error"
    assert msg["errorMessage"].startswith('400: {"message":"This model\'s maximum context length is 4097 tokens.')
    assert is_context_overflow(msg, 4097) and not is_retryable_error(msg)
    assert msg["content"] == [] and msg["usage"]["totalTokens"] == 0


async def test_http_429_openrouter_appends_raw(server):
    server.add(
        Reply(fixture_bytes("openai-compatible/openrouter_error_429.json"), status=429, content_type="application/json")
    )
    t = await run(compat_model(server.url + "/v1", provider="openrouter"))
    msg = t.final
    assert msg["errorMessage"].startswith('429: {"code":429,"message":"Provider returned error"')
    # metadata.raw is already inside the JSON text, so 1.6 does not append it a second time
    assert "rate-limited upstream" in msg["errorMessage"] and "\n" not in msg["errorMessage"]
    assert is_retryable_error(msg) and not is_context_overflow(msg)


async def test_plain_text_and_empty_bodies(server):
    server.add(Reply(b"upstream unavailable", status=503, content_type="text/plain"))
    server.add(Reply(b"", status=400, content_type="text/plain"))
    first = (await run(compat_model(server.url + "/v1"))).final
    second = (await run(compat_model(server.url + "/v1"))).final
    assert first["errorMessage"] == "503 upstream unavailable" and is_retryable_error(first)
    assert second["errorMessage"] == "400 status code (no body)"


async def test_provider_retries_503_then_succeeds(server):
    server.add(
        Reply(
            b'{"error":{"message":"busy"}}',
            status=503,
            content_type="application/json",
            headers={"retry-after-ms": "10"},
        )
    )
    server.add(Reply(fixture_bytes("openai/chat_text_include_usage.sse")))
    t = await run(compat_model(server.url + "/v1"), options=StreamOptions(api_key="k", max_retries=2))
    assert t.final["stopReason"] == "stop" and len(server.requests) == 2


async def test_missing_key_and_key_never_leaks(server):
    t = await run(compat_model(server.url + "/v1"), options=StreamOptions())
    assert t.final["errorMessage"] == "No API key for provider: test" and server.requests == []
    server.add(
        Reply(
            b'{"error":{"message":"Incorrect API key provided: sk-secret-123456"}}',
            status=401,
            content_type="application/json",
        )
    )
    t = await run(compat_model(server.url + "/v1"), options=StreamOptions(api_key="sk-secret-123456"))
    assert "sk-secret-123456" not in t.final["errorMessage"] and "[redacted]" in t.final["errorMessage"]


async def test_connection_refused_is_retryable():
    t = await run(compat_model("http://127.0.0.1:9/v1"))
    assert t.final["stopReason"] == "error" and is_retryable_error(t.final), t.final["errorMessage"]


async def test_abort_midstream_closes_connection(server):
    body = fixture_bytes("openai/chat_text_include_usage.sse")
    # slow drip: one SSE record at a time, long enough that the abort lands mid-stream
    server.add(Reply(body, chunk_size=120, delay_s=0.05))
    controller = AbortController()
    seen_delta = anyio.Event()

    async def on_event(ev):
        if ev["type"] == "text_delta" and not seen_delta.is_set():
            seen_delta.set()
            controller.abort()

    t = await run(
        compat_model(server.url + "/v1"),
        options=StreamOptions(api_key="k", signal=controller.signal),
        on_event=on_event,
    )
    msg = t.final
    assert t.types[-1] == "error" and msg["stopReason"] == "aborted"
    assert msg["errorMessage"] == "Request was aborted"
    assert msg["content"] and msg["content"][0]["text"]  # partial content kept
    # As upstream 1.6 (g_bad_input transcript): the open text block is closed with text_end
    # carrying the partial text, then the stream fails as aborted.
    assert t.types[-2:] == ["text_end", "error"]
    # the server notices the client went away
    assert await anyio.to_thread.run_sync(server.disconnected.wait, 5.0)


async def test_abort_while_waiting_for_first_byte(server):
    server.add(Reply(fixture_bytes("openai/chat_text_include_usage.sse"), chunk_size=10_000, delay_s=1.0))
    controller = AbortController()

    async def abort_soon():
        await anyio.sleep(0.1)
        controller.abort()

    async with anyio.create_task_group() as tg:
        tg.start_soon(abort_soon)
        t = await run(compat_model(server.url + "/v1"), options=StreamOptions(api_key="k", signal=controller.signal))
    assert t.final["stopReason"] == "aborted" and t.types[-1] == "error"


async def test_unknown_api_is_an_error_event():
    t = await run(compat_model("http://x", api="no-such-api"))
    assert t.types == ["error"] and t.final["errorMessage"] == "No API provider registered for api: no-such-api"
