"""anthropic-messages: recorded streams replayed through a real 127.0.0.1 server."""

from __future__ import annotations

import pytest

from pi_rpc.ai.classify import is_context_overflow, is_retryable_error
from pi_rpc.ai.types import Context, StreamOptions

from .conftest import Reply, fixture_bytes
from .helpers import run

pytestmark = pytest.mark.anyio

SONNET_COST = {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}


def model(url: str, **extra):
    m = {
        "id": "claude-test",
        "name": "Claude Test",
        "api": "anthropic-messages",
        "provider": "anthropic",
        "baseUrl": url,
        "reasoning": False,
        "input": ["text", "image"],
        "cost": SONNET_COST,
        "contextWindow": 200000,
        "maxTokens": 64000,
    }
    m.update(extra)
    return m


async def replay(server, rel, chunk_size=13, **extra):
    server.add(Reply(fixture_bytes(f"anthropic/{rel}"), chunk_size=chunk_size))
    return await run(model(server.url, **extra))


async def test_text_basic_usage_and_cost(server):
    t = await replay(server, "text_basic.sse")
    msg = t.final
    assert t.compact_types() == ["start", "text_start", "text_delta", "text_end", "done"]
    assert msg["stopReason"] == "stop" and msg["rawStopReason"] == "end_turn"
    assert len(msg["content"][0]["text"]) == 17
    u = msg["usage"]
    assert (u["input"], u["output"], u["totalTokens"]) == (17, 10, 27)
    assert u["cost"]["total"] == pytest.approx(0.000201)
    assert msg["responseId"].startswith("msg_")
    # upstream key order: cacheWrite1h is added after cost
    assert list(u) == ["input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost", "cacheWrite1h"]
    req = server.requests[0]
    assert req.path == "/v1/messages" and req.headers["x-api-key"] == "test-key"
    assert req.headers["anthropic-version"] == "2023-06-01"


async def test_thinking_then_text_with_signature(server):
    t = await replay(server, "thinking_then_text.sse", reasoning=True)
    msg = t.final
    assert [b["type"] for b in msg["content"]] == ["thinking", "text"]
    assert len(msg["content"][0]["thinking"]) == 289 and len(msg["content"][1]["text"]) == 89
    assert msg["content"][0]["thinkingSignature"]
    assert (msg["usage"]["input"], msg["usage"]["output"]) == (46, 133)
    assert t.compact_types() == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_end",
        "done",
    ]


async def test_adaptive_opus_whitespace_text_first(server):
    t = await replay(server, "adaptive_thinking_opus46.sse", reasoning=True)
    msg = t.final
    assert [b["type"] for b in msg["content"]] == ["text", "thinking", "text"]
    assert msg["content"][0]["text"] == "\n\n"
    assert (len(msg["content"][1]["thinking"]), len(msg["content"][2]["text"])) == (40, 34)
    assert (msg["usage"]["input"], msg["usage"]["output"]) == (34, 44)


async def test_redacted_thinking(server):
    t = await replay(server, "redacted_thinking.sse", chunk_size=50, reasoning=True)
    msg = t.final
    assert [b["type"] for b in msg["content"]] == ["thinking", "thinking", "text"]
    for block in msg["content"][:2]:
        assert block["redacted"] is True and block["thinking"] == "[Reasoning redacted]" and block["thinkingSignature"]
    assert (msg["usage"]["input"], msg["usage"]["output"]) == (92, 189)


async def test_parallel_tool_use(server):
    t = await replay(server, "parallel_tool_use.sse", chunk_size=3)
    msg = t.final
    assert msg["stopReason"] == "toolUse"
    assert [(b["name"], b["arguments"]) for b in msg["content"] if b["type"] == "toolCall"] == [
        ("add", {"a": 2, "b": 3}),
        ("multiply", {"a": 4, "b": 5}),
    ]
    assert (msg["usage"]["input"], msg["usage"]["output"]) == (490, 119)
    ci = next(i for i, b in enumerate(msg["content"]) if b["type"] == "toolCall")
    assert t.arg_snapshots[ci][0] == {} and t.arg_snapshots[ci][-1] == {"a": 2, "b": 3}


async def test_tool_use_no_args(server):
    t = await replay(server, "tool_use_no_args.sse")
    msg = t.final
    calls = [b for b in msg["content"] if b["type"] == "toolCall"]
    assert len(calls) == 1 and calls[0]["arguments"] == {} and "argumentsError" not in calls[0]
    assert (msg["usage"]["input"], msg["usage"]["output"]) == (543, 40)


async def test_server_tool_blocks_skipped(server):
    t = await replay(server, "server_tool_blocks_then_tool_use.sse", chunk_size=40)
    msg = t.final
    calls = [b for b in msg["content"] if b["type"] == "toolCall"]
    assert [(c["name"], c["arguments"]) for c in calls] == [
        ("get_exchange_rate", {"from_currency": "USD", "to_currency": "EUR"})
    ]
    assert all(b["type"] in ("text", "toolCall") for b in msg["content"])
    assert msg["stopReason"] == "toolUse" and (msg["usage"]["input"], msg["usage"]["output"]) == (1591, 175)


async def test_max_tokens_partial_json(server):
    t = await replay(server, "tool_use_max_tokens_partial_json.sse")
    msg = t.final
    assert msg["stopReason"] == "length" and t.types[-1] == "done"
    call = next(b for b in msg["content"] if b["type"] == "toolCall")
    assert isinstance(call["arguments"], dict)
    assert "toolcall_end" not in t.types


async def test_midstream_overloaded_error_event(server):
    body = fixture_bytes("anthropic/text_basic.sse")
    cut = body.index(b"event: content_block_stop")
    overloaded = b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
    server.add(Reply(body[:cut] + overloaded, chunk_size=20))
    t = await run(model(server.url))
    msg = t.final
    assert msg["stopReason"] == "error"
    assert msg["errorMessage"] == '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    assert is_retryable_error(msg) and msg["content"][0]["text"]


async def test_stream_cut_before_message_stop(server):
    body = fixture_bytes("anthropic/text_basic.sse")
    server.add(Reply(body[: body.index(b"event: message_delta")]))
    t = await run(model(server.url))
    assert t.final["errorMessage"] == "Anthropic stream ended before message_stop" and is_retryable_error(t.final)


@pytest.mark.parametrize(
    "rel,status,overflow,retry",
    [
        ("error_400_prompt_too_long.json", 400, True, False),
        ("error_529_overloaded.json", 529, False, True),
        ("error_400_temperature_with_thinking.json", 400, False, False),
    ],
)
async def test_http_errors(server, rel, status, overflow, retry):
    raw = fixture_bytes(f"anthropic/{rel}")
    server.add(Reply(raw, status=status, content_type="application/json"))
    t = await run(model(server.url))
    msg = t.final
    assert t.types == ["error"]
    assert msg["errorMessage"].startswith(f'{status} {{"type":"error"')
    assert is_context_overflow(msg) is overflow and is_retryable_error(msg) is retry


async def test_request_shape(server):
    server.add(Reply(fixture_bytes("anthropic/text_basic.sse")))
    ctx = Context(
        system_prompt="Be terse.",
        tools=[
            {
                "name": "read",
                "description": "Read a file",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
            }
        ],
        messages=[
            {"role": "user", "content": [{"type": "text", "text": "read a and b"}], "timestamp": 1},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig=="},
                    {"type": "toolCall", "id": "call|weird/id", "name": "read", "arguments": {"path": "a"}},
                    {"type": "toolCall", "id": "t2", "name": "read", "arguments": {"path": "b"}},
                ],
                "api": "openai-responses",
                "provider": "openai",
                "model": "gpt-x",
                "usage": {},
                "stopReason": "toolUse",
                "timestamp": 2,
            },
            {
                "role": "toolResult",
                "toolCallId": "call|weird/id",
                "toolName": "read",
                "content": [{"type": "text", "text": "A"}],
                "isError": False,
                "timestamp": 3,
            },
            {
                "role": "toolResult",
                "toolCallId": "t2",
                "toolName": "read",
                "content": [{"type": "text", "text": "B"}],
                "isError": True,
                "timestamp": 4,
            },
        ],
    )
    await run(model(server.url, reasoning=True), ctx, StreamOptions(api_key="k", reasoning="medium"))
    body = server.requests[0].body
    assert body["system"] == [{"type": "text", "text": "Be terse.", "cache_control": {"type": "ephemeral"}}]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 8192, "display": "summarized"}
    assert "interleaved-thinking-2025-05-14" in server.requests[0].headers["anthropic-beta"]
    assert body["tools"][0] == {
        "name": "read",
        "description": "Read a file",
        "eager_input_streaming": True,
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        "cache_control": {"type": "ephemeral"},
    }
    msgs = body["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    # thinking from another model is dropped; ids normalised; results merged, cache marker on last block
    assert msgs[1]["content"][0] == {"type": "tool_use", "id": "call_weird_id", "name": "read", "input": {"path": "a"}}
    assert msgs[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "call_weird_id", "content": "A", "is_error": False},
        {
            "type": "tool_result",
            "tool_use_id": "t2",
            "content": "B",
            "is_error": True,
            "cache_control": {"type": "ephemeral"},
        },
    ]
