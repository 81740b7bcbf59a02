"""convert_to_llm, system-message folding and the provider-side message repair."""

from __future__ import annotations

from typing import Any

import pytest

from pi_rpc.agent import Agent, build_llm_context, convert_to_llm, transform_messages

from .agent_helpers import MODEL, ScriptedStream, text, user

pytestmark = pytest.mark.anyio


def test_convert_coding_agent_roles() -> None:
    msgs: list[dict[str, Any]] = [
        {
            "role": "bashExecution",
            "command": "ls",
            "output": "a\nb",
            "exitCode": 0,
            "cancelled": False,
            "truncated": False,
            "timestamp": 1,
        },
        {
            "role": "bashExecution",
            "command": "x",
            "output": "",
            "exitCode": 2,
            "cancelled": False,
            "truncated": True,
            "fullOutputPath": "/tmp/o",
            "timestamp": 2,
        },
        {"role": "bashExecution", "command": "y", "output": "z", "cancelled": True, "truncated": False, "timestamp": 3},
        {
            "role": "bashExecution",
            "command": "hidden",
            "output": "",
            "cancelled": False,
            "truncated": False,
            "excludeFromContext": True,
            "timestamp": 4,
        },
        {"role": "custom", "customType": "note", "content": "remember", "display": True, "timestamp": 5},
        {"role": "compactionSummary", "summary": "S1", "tokensBefore": 10, "timestamp": 6},
        {"role": "branchSummary", "summary": "S2", "fromId": "abcd1234", "timestamp": 7},
        {"role": "mystery", "timestamp": 8},
    ]
    out = convert_to_llm(msgs)
    texts = [m["content"][0]["text"] for m in out]
    assert all(m["role"] == "user" for m in out)
    assert texts == [
        "Ran `ls`\n```\na\nb\n```",
        "Ran `x`\n(no output)\n\nCommand exited with code 2\n\n[Output truncated. Full output: /tmp/o]",
        "Ran `y`\n```\nz\n```\n\n(command cancelled)",
        "remember",
        "The conversation history before this point was compacted into the following summary:\n\n<summary>\nS1\n</summary>",
        "The following is a summary of a branch that this conversation came back from:\n\n<summary>\nS2</summary>",
    ]
    assert [m["timestamp"] for m in out] == [1, 2, 3, 5, 6, 7]


def test_system_prompt_from_sections_with_patches() -> None:
    msgs = [
        {
            "role": "system",
            "content": "",
            "sections": {"preamble": "P", "tools": "T", "cwd": "C"},
            "timestamp": 1,
            "toolsAdded": [{"name": "read", "description": "r", "parameters": {}}],
        },
        user("hi"),
        {"role": "system", "content": "", "sections": {"tools": None, "rules": "R", "cwd": "C2"}, "timestamp": 2},
    ]
    ctx = build_llm_context(msgs, fallback_system_prompt="ignored")
    # Sections keep insertion order; a removed section re-added later goes last.
    assert ctx.system_prompt == "P\n\nC2\n\nR"
    assert [m["role"] for m in ctx.messages] == ["user"]
    assert [t["name"] for t in ctx.tools] == ["read"]
    assert build_llm_context([user("x")], fallback_system_prompt="fallback").system_prompt == "fallback"
    with_content = [{"role": "system", "content": "Base prompt.", "sections": {"a": "A"}, "timestamp": 0}]
    assert build_llm_context(with_content).system_prompt == "Base prompt.\n\nA"


def test_transform_drops_failed_assistants_and_fills_orphans() -> None:
    call = {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {}}
    ok = {
        "role": "assistant",
        "content": [call],
        "api": MODEL["api"],
        "provider": "fake",
        "model": "fake-model",
        "stopReason": "toolUse",
    }
    failed = {**ok, "content": [{"type": "text", "text": "half"}], "stopReason": "aborted"}
    other = {
        **ok,
        "model": "other",
        "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "x", "textSignature": "s"}],
        "stopReason": "stop",
    }
    out = transform_messages([user("a"), ok, user("b"), failed, other], MODEL)
    assert [m["role"] for m in out] == ["user", "assistant", "toolResult", "user", "assistant"]
    assert out[2]["content"] == [{"type": "text", "text": "No result provided"}] and out[2]["isError"] is True
    assert out[4]["content"] == [{"type": "text", "text": "x"}]


async def test_agent_uses_system_messages_and_convert_in_requests() -> None:
    stream = ScriptedStream([text("ok")])
    agent = Agent(
        model=MODEL,
        stream_fn=stream,
        system_prompt="fallback prompt",
        messages=[
            {"role": "system", "content": "", "sections": {"preamble": "You help."}, "timestamp": 0},
            {
                "role": "bashExecution",
                "command": "pwd",
                "output": "/w",
                "exitCode": 0,
                "cancelled": False,
                "truncated": False,
                "timestamp": 1,
            },
        ],
    )
    seen: list[list[str]] = []

    async def transform_context(messages: list[dict[str, Any]], signal: Any) -> list[dict[str, Any]]:
        seen.append([m["role"] for m in messages])
        return messages + [user("injected by hook")]

    agent.transform_context = transform_context
    await agent.prompt("Hi")
    _, ctx, _ = stream.requests[0]
    assert ctx.system_prompt == "You help."
    assert [m["content"][0]["text"] for m in ctx.messages] == ["Ran `pwd`\n```\n/w\n```", "Hi", "injected by hook"]
    # The hook works on a copy: the transcript does not contain its message.
    assert seen == [["system", "bashExecution", "user"]]
    assert [m["role"] for m in agent.messages] == ["system", "bashExecution", "user", "assistant"]
    assert agent.current_system_prompt == "You help."
    agent.reset()
    assert [m["role"] for m in agent.messages] == ["system"]
