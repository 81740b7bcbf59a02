"""Pure functions: error classification on recorded bodies, SSE framing, replay transform."""

from __future__ import annotations

import json

import pytest

from pi_rpc.ai.classify import is_context_overflow, is_retryable_error, parse_retry_after
from pi_rpc.ai.errors import format_anthropic_sdk_error, format_google_error, format_openai_sdk_error
from pi_rpc.ai.partial_json import ToolCallArgumentsStream, parse_tool_call_arguments
from pi_rpc.ai.sse import SSEParser, parse_sse_bytes
from pi_rpc.ai.transform import collapse_context, transform_messages
from pi_rpc.ai.types import Context

from .conftest import fixture_bytes


def err(text, provider="x"):
    return {
        "role": "assistant",
        "stopReason": "error",
        "errorMessage": text,
        "provider": provider,
        "usage": {"input": 0, "output": 0, "cacheRead": 0},
    }


def body(rel):
    return fixture_bytes(rel).decode()


def test_recorded_error_bodies_classify():
    anth_overflow = format_anthropic_sdk_error(400, body("anthropic/error_400_prompt_too_long.json"))
    assert anth_overflow.startswith(
        '400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long'
    )
    assert is_context_overflow(err(anth_overflow)) and not is_retryable_error(err(anth_overflow))
    overloaded = format_anthropic_sdk_error(529, body("anthropic/error_529_overloaded.json"))
    assert is_retryable_error(err(overloaded)) and not is_context_overflow(err(overloaded))
    temp = format_anthropic_sdk_error(400, body("anthropic/error_400_temperature_with_thinking.json"))
    assert not is_retryable_error(err(temp)) and not is_context_overflow(err(temp))
    # known upstream gap: this Anthropic validation error matches no overflow pattern
    gap = format_anthropic_sdk_error(400, body("anthropic/error_400_input_plus_max_tokens_exceed_context.json"))
    assert not is_context_overflow(err(gap))
    gem = format_google_error(400, body("google/error_400_input_token_count.json"))
    assert gem.startswith('{"error":{"code":400,') and is_context_overflow(err(gem))
    gem429 = format_google_error(429, body("google/error_429_resource_exhausted_retryinfo.json"))
    # the recorded 429 is quota exhaustion ("...check your plan and billing details"): 1.6 excludes it
    assert not is_retryable_error(err(gem429))
    assert is_retryable_error(err(gem429.replace("billing", "account")))
    assert parse_retry_after({}, body("google/error_429_resource_exhausted_retryinfo.json")) == 26000
    oai = format_openai_sdk_error(400, body("openai/error_400_context_length_exceeded.json"))
    assert is_context_overflow(err(oai))
    nested = json.loads(body("openai-responses/error_event_context_length_exceeded.json"))
    assert is_context_overflow(err(nested["error"]["message"]))
    assert not is_retryable_error(err("429 insufficient_quota: You exceeded your current quota"))


@pytest.mark.parametrize(
    "text,retry",
    [
        ("500 Internal Server Error", True),
        ("Connection error: [Errno 111] Connection refused", True),
        ("terminated: peer closed connection", True),
        ("Request timed out", True),
        ("request req_015000abc failed with 4291 bytes", False),
        ("400 Bad Request", False),
        ("Server requested 120s retry delay (max: 60s). 429 slow down", True),
        ("billing hard limit reached (429)", False),
    ],
)
def test_retry_regex(text, retry):
    assert is_retryable_error(text) is retry


def test_overflow_cases():
    assert not is_context_overflow(err("Too many tokens, please wait. rate limit"))
    assert is_context_overflow(err("413 status code (no body)"))
    assert is_context_overflow(err("400 status code (no body)", provider="cerebras"))
    assert not is_context_overflow(err("400 status code (no body)", provider="openai"))
    silent = {"stopReason": "stop", "usage": {"input": 1000, "output": 5, "cacheRead": 200}}
    assert (
        is_context_overflow(silent, 1100) and not is_context_overflow(silent, 1300) and not is_context_overflow(silent)
    )
    length = {"stopReason": "length", "usage": {"input": 995, "output": 0, "cacheRead": 0}}
    assert is_context_overflow(length, 1000)


def test_retry_after_headers():
    assert parse_retry_after({"Retry-After-Ms": "1500"}) == 1500
    assert parse_retry_after({"retry-after": "2"}) == 2000
    assert parse_retry_after({}, "Please retry in 47.43s.") == pytest.approx(47430)
    assert parse_retry_after({}, "quota will reset after 1h2m3s") == 3723000
    assert parse_retry_after({}, "nothing") is None


def test_sse_framing_crlf_comments_multiline_eof():
    raw = b': keep-alive\r\nevent: a\r\ndata: one\r\ndata: two\r\n\r\ndata:{"x":1}\n\n:c\ndata: tail-without-blank-line'
    for size in (1, 2, 3, 5, len(raw)):
        p = SSEParser()
        events = []
        for i in range(0, len(raw), size):
            events += p.feed(raw[i : i + size])
        events += p.flush()
        assert [(e.event, e.data) for e in events] == [
            ("a", "one\ntwo"),
            (None, '{"x":1}'),
            (None, "tail-without-blank-line"),
        ]
    # multi-byte UTF-8 split across reads
    snow = "data: ☃ ok\n\n".encode()
    p = SSEParser()
    out = p.feed(snow[:7]) + p.feed(snow[7:])
    assert out[0].data == "☃ ok"
    gemini = parse_sse_bytes(fixture_bytes("google/stream_text.sse"))
    assert gemini and all(e.data.startswith("{") for e in gemini)


def test_tool_arguments_stream_and_final_parse():
    s = ToolCallArgumentsStream()
    seen = [dict(s.append(piece)) for piece in ['{"pa', 'th": "src/ma', 'in.py", "n": 1', "2}"]]
    assert seen[0] == {} and seen[1] == {"path": "src/ma"} and seen[-1] == {"path": "src/main.py", "n": 12}
    assert s.finish() == {"arguments": {"path": "src/main.py", "n": 12}}
    assert parse_tool_call_arguments("") == {"arguments": {}}
    bad = parse_tool_call_arguments('{"a": ')
    assert bad["arguments"] == {} and bad["argumentsError"].endswith('Received arguments:\n{"a": ')
    assert parse_tool_call_arguments('{"a": "line\nbreak"}') == {"arguments": {"a": "line\nbreak"}}
    assert "argumentsError" in parse_tool_call_arguments("[1]")


def _assistant(model_id, content, stop="toolUse", provider="p", api="openai-completions"):
    return {
        "role": "assistant",
        "content": content,
        "api": api,
        "provider": provider,
        "model": model_id,
        "usage": {},
        "stopReason": stop,
        "timestamp": 1,
    }


def test_transform_replay_rules():
    model = {"id": "m2", "provider": "p", "api": "openai-completions", "input": ["text"]}
    msgs = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "q"}, {"type": "image", "data": "AAA", "mimeType": "image/png"}],
            "timestamp": 1,
        },
        _assistant(
            "m1",
            [
                {"type": "thinking", "thinking": "secret", "thinkingSignature": "sig"},
                {"type": "text", "text": "a", "textSignature": "t"},
                {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {}, "thoughtSignature": "ts"},
            ],
        ),
        _assistant("m2", [{"type": "text", "text": "partial"}], stop="error"),
        {"role": "user", "content": "next", "timestamp": 3},
        _assistant(
            "m2",
            [
                {"type": "thinking", "thinking": "", "thinkingSignature": "enc"},
                {"type": "thinking", "thinking": "  "},
                {"type": "toolCall", "id": "c2", "name": "x", "arguments": {}},
            ],
        ),
        {
            "role": "toolResult",
            "toolCallId": "c2",
            "toolName": "x",
            "content": [{"type": "text", "text": "r"}],
            "isError": False,
            "timestamp": 4,
        },
    ]
    out = transform_messages(msgs, model, lambda i, m, s: i + "_n")
    roles = [m["role"] for m in out]
    assert roles == ["user", "assistant", "toolResult", "user", "assistant", "toolResult"]
    assert out[0]["content"][1] == {"type": "text", "text": "(image omitted: model does not support images)"}
    other = out[1]["content"]
    assert other == [{"type": "text", "text": "a"}, {"type": "toolCall", "id": "c1_n", "name": "bash", "arguments": {}}]
    assert (
        out[2]["toolCallId"] == "c1_n"
        and out[2]["content"][0]["text"] == "No result provided"
        and out[2]["isError"] is True
    )
    assert out[4]["content"] == [
        {"type": "thinking", "thinking": "", "thinkingSignature": "enc"},
        {"type": "toolCall", "id": "c2", "name": "x", "arguments": {}},
    ]


def test_collapse_context_replays_system_messages():
    ctx = Context(
        system_prompt="base",
        tools=[{"name": "a", "description": "", "parameters": {}}],
        messages=[
            {"role": "user", "content": "hi", "timestamp": 1},
            {
                "role": "system",
                "content": "",
                "sections": {"rules": "be brief"},
                "toolsAdded": [{"name": "b", "description": "", "parameters": {}}],
                "toolsRemoved": [{"name": "a"}],
                "timestamp": 2,
            },
        ],
    )
    prompt, messages, tools = collapse_context(ctx)
    assert (
        prompt == "base\n\nbe brief"
        and [m["role"] for m in messages] == ["user"]
        and [t["name"] for t in tools] == ["b"]
    )
