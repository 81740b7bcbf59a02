"""openai-responses and google-generative-ai: recorded streams through a real 127.0.0.1 server."""

from __future__ import annotations

import pytest

from pi_rpc.ai.classify import is_context_overflow, is_retryable_error, parse_retry_after
from pi_rpc.ai.types import Context, StreamOptions

from .conftest import Reply, fixture_bytes
from .helpers import run

pytestmark = pytest.mark.anyio


def responses_model(url, **extra):
    m = {
        "id": "gpt-4o",
        "name": "GPT-4o",
        "api": "openai-responses",
        "provider": "openai",
        "baseUrl": url,
        "reasoning": False,
        "input": ["text", "image"],
        "cost": {"input": 2.5, "output": 10, "cacheRead": 1.25, "cacheWrite": 0},
        "contextWindow": 128000,
        "maxTokens": 16384,
    }
    m.update(extra)
    return m


def gemini_model(url, **extra):
    m = {
        "id": "gemini-2.5-pro",
        "name": "Gemini 2.5 Pro",
        "api": "google-generative-ai",
        "provider": "google",
        "baseUrl": url,
        "reasoning": True,
        "input": ["text", "image"],
        "cost": {"input": 1.25, "output": 10, "cacheRead": 0.31, "cacheWrite": 0},
        "contextWindow": 1048576,
        "maxTokens": 65536,
    }
    m.update(extra)
    return m


async def test_responses_text(server):
    server.add(Reply(fixture_bytes("openai-responses/text.sse"), chunk_size=17))
    t = await run(responses_model(server.url + "/v1"))
    msg = t.final
    assert t.compact_types() == ["start", "text_start", "text_delta", "text_end", "done"]
    assert msg["stopReason"] == "stop" and msg["rawStopReason"] == "completed"
    assert (msg["usage"]["input"], msg["usage"]["output"], msg["usage"]["totalTokens"]) == (278, 9, 287)
    assert msg["responseId"].startswith("resp_") and msg["content"][0]["textSignature"].startswith('{"v":1,"id":"msg_')
    assert server.requests[0].path == "/v1/responses" and server.requests[0].body["store"] is False


async def test_responses_reasoning_summaries(server):
    server.add(Reply(fixture_bytes("openai-responses/reasoning_summary_then_text.sse"), chunk_size=4096))
    t = await run(responses_model(server.url + "/v1", id="o3-mini", reasoning=True))
    msg = t.final
    assert [b["type"] for b in msg["content"]] == ["thinking", "text"]
    thinking = msg["content"][0]
    assert thinking["thinking"].count("\n\n") >= 3 and thinking["thinkingSignature"].startswith('{"id":"rs_')
    assert (msg["usage"]["input"], msg["usage"]["output"], msg["usage"]["reasoning"]) == (13, 1680, 1408)
    deltas = [e for e in t.events if e["type"] == "thinking_delta"]
    assert sum(1 for e in deltas if e["delta"] == "\n\n") == 4  # one per summary part


async def test_responses_nested_error_event_not_retryable(server):
    server.add(Reply(fixture_bytes("openai-responses/error_event_insufficient_quota.sse")))
    t = await run(responses_model(server.url + "/v1", id="gpt-5-nano"))
    msg = t.final
    assert msg["stopReason"] == "error" and msg["errorMessage"].startswith("You exceeded your current quota")
    assert not is_retryable_error(msg)


async def test_responses_context_overflow_error_event(server):
    payload = fixture_bytes("openai-responses/error_event_context_length_exceeded.json").strip()
    server.add(Reply(b"event: error\ndata: " + payload + b"\n\n"))
    msg = (await run(responses_model(server.url + "/v1"))).final
    assert msg["errorMessage"].startswith("Your input exceeds the context window") and is_context_overflow(msg)


async def test_responses_http_error_prefix(server):
    server.add(
        Reply(
            b'{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}',
            status=429,
            content_type="application/json",
        )
    )
    msg = (await run(responses_model(server.url + "/v1"))).final
    assert msg["errorMessage"].startswith(
        'OpenAI API error (429): {"message":"Rate limit reached"'
    ) and is_retryable_error(msg)


async def test_gemini_text_crlf(server):
    server.add(Reply(fixture_bytes("google/stream_text.sse"), chunk_size=9))
    t = await run(gemini_model(server.url + "/v1beta", id="gemini-2.0-flash-exp", reasoning=False))
    msg = t.final
    assert msg["stopReason"] == "stop" and msg["rawStopReason"] == "STOP"
    assert (msg["usage"]["input"], msg["usage"]["output"], msg["usage"]["totalTokens"]) == (13, 8, 21)
    assert [b["type"] for b in msg["content"]] == ["text"]
    req = server.requests[0]
    assert req.path == "/v1beta/models/gemini-2.0-flash-exp:streamGenerateContent?alt=sse"
    assert req.headers["x-goog-api-key"] == "test-key"


async def test_gemini_thinking(server):
    server.add(Reply(fixture_bytes("google/stream_thinking.sse"), chunk_size=300))
    t = await run(gemini_model(server.url + "/v1beta"), options=StreamOptions(api_key="k", reasoning="high"))
    msg = t.final
    assert [b["type"] for b in msg["content"]] == ["thinking", "text"]
    assert (msg["usage"]["input"], msg["usage"]["output"], msg["usage"]["reasoning"], msg["usage"]["totalTokens"]) == (
        34,
        469 + 787,
        787,
        1290,
    )
    assert t.types.index("thinking_end") < t.types.index("text_start")
    assert server.requests[0].body["generationConfig"]["thinkingConfig"] == {
        "includeThoughts": True,
        "thinkingBudget": 32768,
    }


async def test_gemini_function_call_and_errors(server):
    call = b'data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"bash","args":{"command":"ls"}},"thoughtSignature":"c2ln"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":3,"totalTokenCount":8}}\r\n\r\n'
    server.add(Reply(call))
    t = await run(gemini_model(server.url + "/v1beta"))
    msg = t.final
    assert t.types == ["start", "toolcall_start", "toolcall_delta", "toolcall_end", "done"]
    assert (
        msg["stopReason"] == "toolUse"
        and msg["content"][0]["arguments"] == {"command": "ls"}
        and msg["content"][0]["thoughtSignature"] == "c2ln"
    )
    server.add(
        Reply(fixture_bytes("google/error_400_input_token_count.json"), status=400, content_type="application/json")
    )
    overflow = (await run(gemini_model(server.url + "/v1beta"))).final
    assert overflow["errorMessage"].startswith(
        '{"error":{"code":400,"message":"The input token count'
    ) and is_context_overflow(overflow)
    body = fixture_bytes("google/error_429_resource_exhausted_retryinfo.json")
    server.add(Reply(body, status=429, content_type="application/json"))
    limited = (await run(gemini_model(server.url + "/v1beta"))).final
    assert parse_retry_after({}, limited["errorMessage"]) == 26000


async def test_gemini_replay_contents(server):
    server.add(Reply(fixture_bytes("google/stream_text.sse")))
    ctx = Context(
        system_prompt="sys",
        messages=[
            {"role": "user", "content": "hi", "timestamp": 1},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "toolCall",
                        "id": "c1",
                        "name": "bash",
                        "arguments": {"command": "ls"},
                        "thoughtSignature": "c2ln",
                    }
                ],
                "api": "google-generative-ai",
                "provider": "google",
                "model": "gemini-2.5-pro",
                "usage": {},
                "stopReason": "toolUse",
                "timestamp": 2,
            },
            {
                "role": "toolResult",
                "toolCallId": "c1",
                "toolName": "bash",
                "content": [{"type": "text", "text": "a.txt"}],
                "isError": False,
                "timestamp": 3,
            },
        ],
    )
    await run(gemini_model(server.url + "/v1beta"), ctx)
    body = server.requests[0].body
    assert body["systemInstruction"] == {"parts": [{"text": "sys"}], "role": "user"}
    # Gemini 2.5 takes no tool-call ids (upstream 1.6's ``requiresToolCallId``: Gemini 3+,
    # Claude, gpt-oss); tests/ai/test_google_wire.py compares a Gemini 3 replay with upstream.
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "hi"}]},
        {
            "role": "model",
            "parts": [{"functionCall": {"name": "bash", "args": {"command": "ls"}}, "thoughtSignature": "c2ln"}],
        },
        {
            "role": "user",
            "parts": [{"functionResponse": {"name": "bash", "response": {"output": "a.txt"}}}],
        },
    ]
