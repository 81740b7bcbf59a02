"""Tool hooks, sequential execution and tool declarations."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from pi_rpc.agent import Agent

from .agent_helpers import MODEL, EchoTool, Recorder, ScriptedStream, ShellTool, Turn, text, tools

pytestmark = pytest.mark.anyio


def make_agent(turns: list[Turn], **kw: Any) -> tuple[Agent, ScriptedStream, Recorder]:
    stream = ScriptedStream(turns)
    kw.setdefault("declare_tools", False)
    agent = Agent(model=MODEL, stream_fn=stream, **kw)
    rec = Recorder()
    agent.subscribe(rec)
    return agent, stream, rec


async def test_before_hook_blocks_with_reason_default_and_error() -> None:
    seen: list[tuple[str, Any]] = []

    async def before(ctx: Any, signal: Any) -> Any:
        seen.append((ctx.tool_call["id"], ctx.args))
        assert ctx.assistant_message["stopReason"] == "toolUse" and signal is not None
        assert [m["role"] for m in ctx.context.messages][-1] == "assistant"
        if ctx.tool_call["id"] == "a":
            return {"block": True, "reason": "Not allowed here"}
        if ctx.tool_call["id"] == "b":
            return {"block": True}
        if ctx.tool_call["id"] == "c":
            raise RuntimeError("hook exploded")
        return None

    echo = EchoTool()
    agent, _, rec = make_agent(
        [
            tools(*[(i, "echo", {"text": i}) for i in ("a", "b", "c", "d")]),
            text("ok"),
        ],
        tools=[echo],
        before_tool_call=before,
    )
    await agent.prompt("go")
    texts = {e["toolCallId"]: (e["result"]["content"][0]["text"], e["isError"]) for e in rec.of("tool_execution_end")}
    assert texts == {
        "a": ("Not allowed here", True),
        "b": ("Tool execution was blocked", True),
        "c": ("hook exploded", True),
        "d": ("d", False),
    }
    assert [c[0] for c in echo.calls] == ["d"]
    assert [s[0] for s in seen] == ["a", "b", "c", "d"] and seen[0][1] == {"text": "a"}
    # Blocked calls end during preparation, right after their start.
    sig = rec.sig()
    assert sig[sig.index("start:a") : sig.index("start:a") + 6] == [
        "start:a",
        "end:a",
        "start:b",
        "end:b",
        "start:c",
        "end:c",
    ]


async def test_after_hook_replaces_content_details_and_error_flag() -> None:
    async def after(ctx: Any, signal: Any) -> Any:
        if ctx.tool_call["id"] == "a":
            assert ctx.result["content"][0]["text"] == "a" and ctx.is_error is False
            return {"content": [{"type": "text", "text": "redacted"}], "isError": True}
        if ctx.tool_call["id"] == "b":
            return {"details": {"extra": 1}}
        if ctx.tool_call["id"] == "c":
            raise RuntimeError("after failed")
        return None

    agent, _, rec = make_agent(
        [tools(*[(i, "echo", {"text": i}) for i in ("a", "b", "c", "d")]), text("ok")],
        tools=[EchoTool()],
        after_tool_call=after,
    )
    await agent.prompt("go")
    ends = {e["toolCallId"]: e for e in rec.of("tool_execution_end")}
    assert ends["a"]["result"] == {"content": [{"type": "text", "text": "redacted"}], "details": {"echoed": "a"}}
    assert ends["a"]["isError"] is True
    assert ends["b"]["result"] == {"content": [{"type": "text", "text": "b"}], "details": {"extra": 1}}
    assert ends["b"]["isError"] is False
    assert ends["c"]["result"] == {"content": [{"type": "text", "text": "after failed"}], "details": {}}
    assert ends["c"]["isError"] is True and "durationMs" in ends["c"]
    assert ends["d"]["result"]["content"][0]["text"] == "d"
    results = {r["toolCallId"]: r for r in rec.of("turn_end")[0]["toolResults"]}
    assert results["a"]["content"][0]["text"] == "redacted" and results["a"]["isError"] is True


async def test_sequential_mode_runs_one_call_after_another() -> None:
    running: list[str] = []
    overlap: list[bool] = []

    async def during(tool_call_id: str) -> None:
        overlap.append(bool(running))
        running.append(tool_call_id)
        await anyio.sleep(0)
        running.remove(tool_call_id)

    agent, _, rec = make_agent(
        [tools(("a", "echo", {"text": "A"}), ("x", "nope", {}), ("b", "echo", {"text": "B"})), text("ok")],
        tools=[EchoTool(during=during)],
        tool_execution="sequential",
    )
    await agent.prompt("go")
    sig = rec.sig()
    assert sig[sig.index("start:a") : sig.index("turn_end:3")] == [
        "start:a",
        "update:a",
        "end:a",
        "message_start:toolResult:a",
        "message_end:toolResult:a",
        "start:x",
        "end:x",
        "message_start:toolResult:x",
        "message_end:toolResult:x",
        "start:b",
        "update:b",
        "end:b",
        "message_start:toolResult:b",
        "message_end:toolResult:b",
    ]
    assert overlap == [False, False]


async def test_tool_with_sequential_execution_mode_forces_sequential_batch() -> None:
    echo = EchoTool()
    echo.execution_mode = "sequential"  # type: ignore[attr-defined]
    agent, _, rec = make_agent(
        [tools(("a", "echo", {"text": "A"}), ("b", "echo", {"text": "B"})), text("ok")], tools=[echo]
    )
    await agent.prompt("go")
    sig = rec.sig()
    assert sig.index("message_end:toolResult:a") < sig.index("start:b")


async def test_real_subprocess_tool_streams_updates() -> None:
    shell = ShellTool()
    agent, _, rec = make_agent(
        [
            tools(("c1", "bash", {"command": "echo hi"}), ("c2", "bash", {"command": "echo oops >&2; exit 3"})),
            text("ok"),
        ],
        tools=[shell],
    )
    await agent.prompt("Run")
    updates = [e for e in rec.of("tool_execution_update") if e["toolCallId"] == "c1"]
    assert updates[0]["partialResult"] == {"content": []}
    assert updates[-1]["partialResult"] == {"content": [{"type": "text", "text": "hi\n"}], "details": {}}
    ends = {e["toolCallId"]: e for e in rec.of("tool_execution_end")}
    assert ends["c1"]["result"] == {"content": [{"type": "text", "text": "hi\n"}]} and not ends["c1"]["isError"]
    assert ends["c2"]["isError"] is True
    msg = rec.of("turn_end")[0]["toolResults"][0]
    assert list(msg) == ["role", "toolCallId", "toolName", "content", "isError", "durationMs", "timestamp"]


async def test_tool_updates_not_awaited_are_still_emitted_in_order() -> None:
    class Chatty(EchoTool):
        async def execute(self, tool_call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> dict[str, Any]:
            for i in range(5):
                on_update({"content": [{"type": "text", "text": str(i)}]})  # fire and forget
            return {"content": [{"type": "text", "text": "done"}]}

    agent, _, rec = make_agent([tools(("a", "chatty", {"text": "x"})), text("ok")], tools=[Chatty("chatty")])
    await agent.prompt("go")
    updates = [e["partialResult"]["content"][0]["text"] for e in rec.of("tool_execution_update")]
    assert updates == ["0", "1", "2", "3", "4"]
    sig = rec.sig()
    assert sig.index("end:a") > max(i for i, s in enumerate(sig) if s == "update:a")


async def test_tool_set_changes_are_declared_in_system_messages() -> None:
    echo, other = EchoTool(), EchoTool("other")
    agent, stream, rec = make_agent([text("one"), text("two"), text("three")], tools=[echo], declare_tools=True)
    await agent.prompt("first")
    first_system = rec.of("message_end")[0]["message"]
    assert [t["name"] for t in first_system["toolsAdded"]] == ["echo"]
    agent.tools = [other]
    rec.events.clear()
    await agent.prompt("second")
    patch = rec.of("message_end")[0]["message"]
    assert patch["role"] == "system"
    assert [t["name"] for t in patch["toolsAdded"]] == ["other"] and patch["toolsRemoved"] == [{"name": "echo"}]
    assert [t["name"] for t in stream.requests[1][1].tools] == ["other"]
    # A pending system message from the runtime receives the delta itself (no extra message).
    agent.tools = [other, echo]
    rec.events.clear()
    sections_msg = {"role": "system", "content": "", "sections": {"cwd": "Current dir: /x"}, "timestamp": 5}
    await agent.prompt([sections_msg, {"role": "user", "content": [{"type": "text", "text": "third"}], "timestamp": 6}])
    started = [e["message"] for e in rec.of("message_start")]
    assert [m["role"] for m in started[:2]] == ["system", "user"]
    assert list(started[0]) == ["role", "content", "sections", "timestamp", "toolsAdded"]
    assert [t["name"] for t in started[0]["toolsAdded"]] == ["echo"]
    assert stream.requests[2][1].system_prompt == "Current dir: /x"
