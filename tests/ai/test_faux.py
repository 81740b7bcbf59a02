"""faux: scripted and automatic turns produce exact event sequences."""

from __future__ import annotations

import json

import anyio
import pytest

from pi_rpc.ai.abort import AbortController
from pi_rpc.ai.classify import is_context_overflow, is_retryable_error
from pi_rpc.ai.models import ModelRegistry
from pi_rpc.ai.providers import faux
from pi_rpc.ai.types import Context, StreamOptions

from .helpers import run

pytestmark = pytest.mark.anyio

FAUX = faux.FAUX_MODELS[0]
REASONER = faux.FAUX_MODELS[1]


def user(text: str) -> Context:
    return Context(
        system_prompt="sys", messages=[{"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}]
    )


def write_script(tmp_path, turns, jsonl=False):
    path = tmp_path / ("script.jsonl" if jsonl else "script.json")
    path.write_text("\n".join(json.dumps(t) for t in turns) if jsonl else json.dumps(turns))
    return path


async def test_auto_echo_without_script():
    t = await run(FAUX, user("hello there"), StreamOptions())
    assert t.types == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    msg = t.final
    assert msg["content"] == [{"type": "text", "text": "You said: hello there"}]
    assert (msg["api"], msg["provider"], msg["model"]) == ("faux", "faux", "faux-1")
    assert msg["usage"]["output"] == 6  # ceil(21 chars / 4)
    assert msg["stopReason"] == "stop" and "durationMs" in msg


async def test_auto_summarises_tool_result():
    ctx = user("x")
    ctx.messages += [
        {
            "role": "assistant",
            "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {}}],
            "api": "faux",
            "provider": "faux",
            "model": "faux-1",
            "usage": {},
            "stopReason": "toolUse",
            "timestamp": 2,
        },
        {
            "role": "toolResult",
            "toolCallId": "c1",
            "toolName": "bash",
            "content": [{"type": "text", "text": "hi\n"}],
            "isError": False,
            "timestamp": 3,
        },
    ]
    t = await run(FAUX, ctx, StreamOptions())
    assert t.final["content"][0]["text"] == "The bash tool returned: hi"


async def test_script_sequence_text_thinking_tools(tmp_path):
    path = write_script(
        tmp_path,
        [
            {
                "thinking": "plan it",
                "text": "Let me run it.",
                "toolCalls": [{"name": "bash", "arguments": {"command": "echo hi"}, "id": "call_1"}],
                "chunkChars": 5,
            },
            {"text": "Done."},
        ],
        jsonl=True,
    )
    faux.set_faux_script(path)
    t = await run(REASONER, user("go"), StreamOptions())
    assert t.types == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_delta",
        "text_delta",
        "text_end",
        "toolcall_start",
        *["toolcall_delta"] * 5,
        "toolcall_end",  # 21 chars of JSON in 5-char pieces
        "done",
    ]
    msg = t.final
    assert msg["stopReason"] == "toolUse"
    assert msg["content"][2] == {
        "type": "toolCall",
        "id": "call_1",
        "name": "bash",
        "arguments": {"command": "echo hi"},
    }
    snaps = t.arg_snapshots[2]
    assert snaps[-1] == {"command": "echo hi"} and any(s and s != snaps[-1] for s in snaps)
    second = await run(FAUX, user("next"), StreamOptions())
    assert second.final["content"] == [{"type": "text", "text": "Done."}]
    third = await run(FAUX, user("again"), StreamOptions())
    assert third.final["content"][0]["text"] == "You said: again"  # script exhausted -> auto


async def test_script_error_and_length_and_usage(tmp_path):
    faux.set_faux_script(
        write_script(
            tmp_path,
            [
                {"error": {"status": 503, "body": {"error": {"message": "Service overloaded"}}}},
                {"error": {"status": 400, "body": "prompt is too long: 300000 tokens > 200000 maximum"}},
                {"text": "cut", "stopReason": "length", "usage": {"input": 100, "output": 7}},
            ],
        )
    )
    first = await run(FAUX, user("a"), StreamOptions())
    assert first.types == ["error"]
    assert first.final["errorMessage"] == '503 {"error":{"message":"Service overloaded"}}'
    assert is_retryable_error(first.final) and not is_context_overflow(first.final)
    second = await run(FAUX, user("b"), StreamOptions())
    assert is_context_overflow(second.final) and not is_retryable_error(second.final)
    third = await run(FAUX, user("c"), StreamOptions())
    assert third.final["stopReason"] == "length" and third.types[-1] == "done"
    assert (third.final["usage"]["input"], third.final["usage"]["output"], third.final["usage"]["totalTokens"]) == (
        100,
        7,
        107,
    )


async def test_match_turns_and_env_and_models_json(tmp_path, monkeypatch):
    env_script = write_script(tmp_path, [{"text": "from env"}, {"match": "special", "text": "matched!"}])
    monkeypatch.setenv("PI_FAUX_SCRIPT", str(env_script))
    t = await run(FAUX, user("this is special"), StreamOptions())
    assert t.final["content"][0]["text"] == "matched!"
    t = await run(FAUX, user("plain"), StreamOptions())
    assert t.final["content"][0]["text"] == "from env"
    monkeypatch.delenv("PI_FAUX_SCRIPT")
    agent = tmp_path / "agent"
    agent.mkdir()
    write_script(agent, [{"text": "from models.json"}])
    (agent / "models.json").write_text(json.dumps({"providers": {"faux": {"script": "script.json"}}}))
    ModelRegistry(agent, env={})
    t = await run(FAUX, user("x"), StreamOptions())
    assert t.final["content"][0]["text"] == "from models.json"


async def test_abort_midstream_keeps_partial(tmp_path):
    faux.set_faux_script(write_script(tmp_path, [{"text": "a" * 200, "delayMs": 20, "chunkChars": 10}]))
    controller = AbortController()
    count = 0

    async def on_event(ev):
        nonlocal count
        if ev["type"] == "text_delta":
            count += 1
            if count == 2:
                controller.abort()

    t = await run(FAUX, user("x"), StreamOptions(signal=controller.signal), on_event)
    assert t.types[-1] == "error" and t.final["stopReason"] == "aborted"
    assert t.final["errorMessage"] == "Request was aborted"
    assert t.final["content"][0]["text"] == "a" * 20


async def test_abort_from_another_task_during_delay(tmp_path):
    faux.set_faux_script(write_script(tmp_path, [{"text": "slow", "delayMs": 5000}]))
    controller = AbortController()
    async with anyio.create_task_group() as tg:
        tg.start_soon(lambda: _abort_later(controller))
        with anyio.fail_after(3):
            t = await run(FAUX, user("x"), StreamOptions(signal=controller.signal))
    assert t.types == ["error"] and t.final["stopReason"] == "aborted"


async def _abort_later(controller):
    await anyio.sleep(0.05)
    controller.abort()


async def test_thinking_level_on_reasoner_adds_thinking():
    t = await run(REASONER, user("hey"), StreamOptions(reasoning="high"))
    assert [b["type"] for b in t.final["content"]] == ["thinking", "text"]
    t = await run(REASONER, user("hey"), StreamOptions())
    assert [b["type"] for b in t.final["content"]] == ["text"]
