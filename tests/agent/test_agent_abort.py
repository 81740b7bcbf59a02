"""Structural abort: the run's AbortController reaches the stream, running tools and hooks."""

from __future__ import annotations

import os
from typing import Any

import anyio
import pytest

from pi_rpc.agent import Agent

from .agent_helpers import MODEL, Recorder, ScriptedStream, ShellTool, Turn, WaitTool, text, tools, user

pytestmark = pytest.mark.anyio


def make_agent(turns: list[Turn], **kw: Any) -> tuple[Agent, ScriptedStream, Recorder]:
    stream = ScriptedStream(turns)
    agent = Agent(model=MODEL, stream_fn=stream, declare_tools=False, **kw)
    rec = Recorder()
    agent.subscribe(rec)
    return agent, stream, rec


async def test_abort_during_streaming_keeps_partial_and_queues() -> None:
    agent, _, rec = make_agent([Turn(blocks=[("text", "Hello world")], hang=True), text("next run")])

    async def on_event(event: dict[str, Any]) -> None:
        if event["type"] == "message_update" and event["assistantMessageEvent"]["type"] == "text_delta":
            agent.steer(user("queued"))
            agent.abort()

    agent.subscribe(on_event)
    with anyio.fail_after(10):
        await agent.prompt("P")
    assert rec.sig() == [
        "agent_start",
        "turn_start",
        "message_start:user:P",
        "message_end:user:P",
        "message_start:assistant:pending",
        "update:text_start",
        "update:text_delta",
        "message_end:assistant:aborted",
        "turn_end:0",
        "agent_end:2",
    ]
    final = rec.of("message_end")[1]["message"]
    assert final["errorMessage"] == "Request was aborted"
    assert final["content"] == [{"type": "text", "text": "Hello"}]
    assert agent.error == "Request was aborted" and not agent.is_streaming
    # Queued messages survive the abort and join the next run; the new run has a fresh signal.
    assert agent.has_queued_messages()
    rec.events.clear()
    await agent.prompt("again")
    assert [s for s in rec.sig() if s.startswith("message_start:user")] == [
        "message_start:user:again",
        "message_start:user:queued",
    ]
    assert rec.sig()[-2:] == ["turn_end:0", "agent_end:3"]


async def test_abort_before_start_gives_start_and_end_together() -> None:
    agent: Agent

    async def get_api_key(provider: str) -> str:
        agent.abort()  # after the run began, before the provider started streaming
        return "k"

    agent, stream, rec = make_agent([text("never")], get_api_key=get_api_key)
    await agent.prompt("P")
    assert rec.sig() == [
        "agent_start",
        "turn_start",
        "message_start:user:P",
        "message_end:user:P",
        "message_start:assistant:aborted",
        "message_end:assistant:aborted",
        "turn_end:0",
        "agent_end:2",
    ]
    assert stream.requests[0][2].signal is not None and stream.requests[0][2].signal.aborted


async def test_idle_abort_is_a_noop_and_each_run_has_its_own_signal() -> None:
    agent, stream, _ = make_agent([text("one"), text("two")])
    agent.abort()
    assert agent.signal is None
    await agent.prompt("a")
    await agent.prompt("b")
    s1, s2 = (opts.signal for _, _, opts in stream.requests)
    assert s1 is not s2 and not s1.aborted and not s2.aborted  # type: ignore[union-attr]


def _live_members(pgid: int) -> list[str]:
    live: list[str] = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                live.append(pid)
    return live


async def test_abort_during_long_tool_kills_it_and_ends_with_an_aborted_turn() -> None:
    shell = ShellTool()
    agent, stream, rec = make_agent(
        [tools(("call_1", "bash", {"command": "echo started; sleep 30 & sleep 30; wait"})), text("never")],
        tools=[shell],
    )

    async def on_event(event: dict[str, Any]) -> None:
        if event["type"] == "tool_execution_update" and event["partialResult"]["content"]:
            agent.abort()

    agent.subscribe(on_event)
    with anyio.fail_after(15):
        await agent.prompt("Run it")
    sig = rec.sig()
    assert sig[sig.index("message_end:assistant:toolUse") :] == [
        "message_end:assistant:toolUse",
        "start:call_1",
        "update:call_1",
        "update:call_1",
        "end:call_1",
        "message_start:toolResult:call_1",
        "message_end:toolResult:call_1",
        "turn_end:1",
        # Like upstream, the loop starts another turn whose request fails at once as aborted.
        "turn_start",
        "message_start:assistant:aborted",
        "message_end:assistant:aborted",
        "turn_end:0",
        "agent_end:4",
    ]
    end = rec.of("tool_execution_end")[0]
    assert end["isError"] is True and "durationMs" in end
    assert end["result"] == {
        "content": [{"type": "text", "text": "started\n\n\nCommand aborted"}],
        "details": {},
    }
    # The whole process group (sh and both sleeps) is gone: no live member is left (zombies
    # waiting for init to reap them no longer run). SIGKILL reaches the orphaned sleeps
    # asynchronously, so a member may still be on its way out: wait for that (bounded).
    pgid = shell.pids[0]
    with anyio.fail_after(10):
        while _live_members(pgid):
            await anyio.sleep(0.01)
    assert len(stream.requests) == 2


async def test_abort_cancels_parallel_tools_at_once() -> None:
    waiter = WaitTool()
    agent, _, rec = make_agent(
        [tools(("w1", "wait", {"tag": "1"}), ("w2", "wait", {"tag": "2"})), text("never")], tools=[waiter]
    )

    async with anyio.create_task_group() as tg:
        tg.start_soon(agent.prompt, "go")
        with anyio.fail_after(10):
            while waiter.count < 2:
                await anyio.sleep(0.001)
        agent.abort()
        with anyio.fail_after(10):
            await agent.wait_for_idle()
    ends = rec.of("tool_execution_end")
    assert [e["result"]["content"][0]["text"] for e in ends] == ["Operation aborted", "Operation aborted"]
    assert rec.sig()[-4:] == [
        "message_start:assistant:aborted",
        "message_end:assistant:aborted",
        "turn_end:0",
        "agent_end:5",
    ]


async def test_abort_while_before_hook_waits() -> None:
    # Upstream's beforeToolCall is not cancelled by an abort: the hook runs to its end (here it
    # waits for the signal, as a dialog given the run's signal does), then the call is aborted.
    hook_finished = anyio.Event()

    async def before_tool_call(ctx: Any, signal: Any) -> None:
        agent.abort()  # the hook is mid-flight when the run is aborted
        await signal.wait()
        await anyio.sleep(0)  # still running after the abort: not cancelled
        hook_finished.set()

    waiter = WaitTool()
    agent: Agent
    agent, _, rec = make_agent(
        [tools(("w1", "wait", {}), ("w2", "wait", {})), text("never")],
        tools=[waiter],
        before_tool_call=before_tool_call,
    )

    with anyio.fail_after(10):
        await agent.prompt("go")
    assert hook_finished.is_set() and waiter.count == 0
    ends = rec.of("tool_execution_end")
    assert [(e["toolCallId"], e["result"]["content"][0]["text"]) for e in ends] == [
        ("w1", "Operation aborted"),
        ("w2", "Operation aborted"),
    ]
    assert all("durationMs" not in e for e in ends)


async def test_abort_during_continue_and_synthetic_abort_failure() -> None:
    agent: Agent

    async def transform_context(messages: list[dict[str, Any]], signal: Any) -> list[dict[str, Any]]:
        agent.abort()
        raise RuntimeError("context hook failed")

    agent, _, rec = make_agent([text("never")], messages=[user("hi")], transform_context=transform_context)
    await agent.continue_()
    # A loop failure after the signal fired is reported as "aborted".
    failure = rec.of("agent_end")[0]["messages"][0]
    assert failure["stopReason"] == "aborted" and failure["errorMessage"] == "context hook failed"
