"""Steering and follow-up delivery points (pi-agent-core 1.6: steering never skips tools)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from pi_rpc.agent import Agent

from .agent_helpers import MODEL, EchoTool, Recorder, ScriptedStream, Turn, text, tools, user

pytestmark = pytest.mark.anyio

ASSISTANT_TEXT = [
    "message_start:assistant:pending",
    "update:text_start",
    "update:text_delta",
    "update:text_delta",
    "update:text_end",
    "message_end:assistant:stop",
]


def make_agent(turns: list[Turn], **kw: Any) -> tuple[Agent, ScriptedStream, Recorder]:
    stream = ScriptedStream(turns)
    rec = Recorder()

    async def on_dequeue(message: dict[str, Any], kind: str) -> None:
        rec.events.append({"type": f"dequeue:{kind}", "text": message["content"][0]["text"]})

    agent = Agent(model=MODEL, stream_fn=stream, on_dequeue=on_dequeue, declare_tools=False, **kw)
    agent.subscribe(rec)
    return agent, stream, rec


async def test_steer_while_idle_is_injected_after_next_prompt_in_first_turn() -> None:
    agent, stream, rec = make_agent([text("answer"), text("second")])
    agent.steer(user("S1"))
    agent.follow_up(user("F1"))
    assert agent.has_queued_messages()
    await agent.prompt("P")
    assert rec.sig() == [
        "agent_start",
        "turn_start",
        "message_start:user:P",
        "message_end:user:P",
        "dequeue:steer",
        "message_start:user:S1",
        "message_end:user:S1",
        *ASSISTANT_TEXT,
        "turn_end:0",
        "turn_start",
        "dequeue:follow_up",
        "message_start:user:F1",
        "message_end:user:F1",
        *ASSISTANT_TEXT,
        "turn_end:0",
        "agent_end:5",
    ]
    # The first request saw prompt and steer back to back.
    assert [m["content"][0]["text"] for m in stream.requests[0][1].messages] == ["P", "S1"]
    assert not agent.has_queued_messages()


async def test_steer_during_text_stream_starts_a_new_turn() -> None:
    gate = anyio.Event()
    agent, _, rec = make_agent([Turn(blocks=[("text", "streaming")], gate=gate), text("after steer")])

    async def on_event(event: dict[str, Any]) -> None:
        if event["type"] == "message_update" and event["assistantMessageEvent"]["type"] == "text_delta":
            if not gate.is_set():
                agent.steer(user("S"))
                gate.set()

    agent.subscribe(on_event)
    await agent.prompt("P")
    sig = rec.sig()
    # The streaming answer is not interrupted; the steer comes as the next turn.
    assert sig[sig.index("message_end:assistant:stop") :] == [
        "message_end:assistant:stop",
        "turn_end:0",
        "turn_start",
        "dequeue:steer",
        "message_start:user:S",
        "message_end:user:S",
        *ASSISTANT_TEXT,
        "turn_end:0",
        "agent_end:4",
    ]


async def test_three_parallel_tools_with_steers_during_preparation_and_execution() -> None:
    release_a = anyio.Event()
    agent: Agent

    async def during(tool_call_id: str) -> None:
        if tool_call_id == "a":
            # Cannot finish before "c" did: proves the calls run concurrently.
            await release_a.wait()
        if tool_call_id == "b":
            agent.steer(user("S-exec"))

    echo = EchoTool(during=during)

    async def before_tool_call(ctx: Any, signal: Any) -> None:
        if ctx.tool_call["id"] == "a":
            agent.steer(user("S-prep"))
        return None

    agent, stream, rec = make_agent(
        [
            tools(("a", "echo", {"text": "A"}), ("b", "echo", {"text": "B"}), ("c", "echo", {"text": "C"})),
            text("turn two"),
            text("turn three"),
        ],
        tools=[echo],
        before_tool_call=before_tool_call,
    )

    async def on_event(event: dict[str, Any]) -> None:
        if event["type"] == "tool_execution_end" and event["toolCallId"] == "c":
            release_a.set()

    agent.subscribe(on_event)
    with anyio.fail_after(10):
        await agent.prompt("P")
    sig = rec.sig()
    batch = sig[sig.index("message_end:assistant:toolUse") + 1 : sig.index("turn_end:3")]
    # All starts first, in source order (preparation), then updates and ends as tools finish,
    # then the toolResult messages in source order.
    assert batch[:3] == ["start:a", "start:b", "start:c"]
    ends = [s for s in batch if s.startswith("end:")]
    assert sorted(ends) == ["end:a", "end:b", "end:c"] and ends.index("end:c") < ends.index("end:a")
    assert sorted(s for s in batch if s.startswith("update:")) == ["update:a", "update:b", "update:c"]
    first_result = batch.index("message_start:toolResult:a")
    assert all(s.startswith(("start:", "update:", "end:")) for s in batch[:first_result])
    assert batch[first_result:] == [
        "message_start:toolResult:a",
        "message_end:toolResult:a",
        "message_start:toolResult:b",
        "message_end:toolResult:b",
        "message_start:toolResult:c",
        "message_end:toolResult:c",
    ]
    # 1.6: nothing was skipped; every call ran.
    assert sorted(c[0] for c in echo.calls) == ["a", "b", "c"]
    assert all(not e["isError"] for e in rec.of("tool_execution_end"))
    # The steers wait for the batch, then come one per turn (one-at-a-time).
    assert sig[sig.index("turn_end:3") :] == [
        "turn_end:3",
        "turn_start",
        "dequeue:steer",
        "message_start:user:S-prep",
        "message_end:user:S-prep",
        *ASSISTANT_TEXT,
        "turn_end:0",
        "turn_start",
        "dequeue:steer",
        "message_start:user:S-exec",
        "message_end:user:S-exec",
        *ASSISTANT_TEXT,
        "turn_end:0",
        "agent_end:9",
    ]
    # turn_end lists results in source order.
    assert [r["toolCallId"] for r in rec.of("turn_end")[0]["toolResults"]] == ["a", "b", "c"]


async def test_steering_mode_all_injects_every_queued_message_in_one_turn() -> None:
    agent, stream, rec = make_agent([text("one"), text("two")], steering_mode="all")
    agent.steer(user("S1"))
    agent.steer(user("S2"))
    await agent.prompt("P")
    assert rec.sig()[:10] == [
        "agent_start",
        "turn_start",
        "message_start:user:P",
        "message_end:user:P",
        "dequeue:steer",
        "message_start:user:S1",
        "message_end:user:S1",
        "dequeue:steer",
        "message_start:user:S2",
        "message_end:user:S2",
    ]
    assert rec.sig().count("turn_start") == 1
    assert len(stream.requests) == 1


async def test_follow_up_after_run_one_at_a_time_and_all() -> None:
    gate = anyio.Event()
    agent, _, rec = make_agent([Turn(blocks=[("text", "first")], gate=gate), text("f1"), text("f2")])

    async def on_event(event: dict[str, Any]) -> None:
        if event["type"] == "message_update" and not gate.is_set():
            agent.follow_up(user("F1"))
            agent.follow_up(user("F2"))
            gate.set()

    agent.subscribe(on_event)
    await agent.prompt("P")
    sig = rec.sig()
    assert sig.count("agent_start") == 1 and sig.count("agent_end:6") == 1
    tail = sig[sig.index("turn_end:0") :]
    assert tail == [
        "turn_end:0",
        "turn_start",
        "dequeue:follow_up",
        "message_start:user:F1",
        "message_end:user:F1",
        *ASSISTANT_TEXT,
        "turn_end:0",
        "turn_start",
        "dequeue:follow_up",
        "message_start:user:F2",
        "message_end:user:F2",
        *ASSISTANT_TEXT,
        "turn_end:0",
        "agent_end:6",
    ]

    agent2, stream2, rec2 = make_agent([text("x"), text("y")], follow_up_mode="all")
    agent2.follow_up(user("G1"))
    agent2.follow_up(user("G2"))
    await agent2.prompt("P")
    assert rec2.sig().count("turn_start") == 2
    assert [m["content"][0]["text"] for m in stream2.requests[1][1].messages if m["role"] == "user"] == [
        "P",
        "G1",
        "G2",
    ]


async def test_steer_takes_priority_over_follow_up() -> None:
    agent, _, rec = make_agent([text("a"), text("b")])
    # The initial poll takes the steer; the follow-up waits until the run would stop.
    agent.follow_up(user("F"))
    agent.steer(user("S"))
    await agent.prompt("P")
    users = [s for s in rec.sig() if s.startswith("message_start:user")]
    assert users == ["message_start:user:P", "message_start:user:S", "message_start:user:F"]


async def test_continue_after_assistant_uses_queued_messages() -> None:
    agent, stream, rec = make_agent([text("aa"), text("bb"), text("cc")])
    await agent.prompt("P")
    agent.steer(user("S1"))
    agent.steer(user("S2"))
    rec.events.clear()
    await agent.continue_()
    # The drained steer is the run's prompt; the initial poll is skipped, so S2 waits one turn.
    assert rec.sig() == [
        "agent_start",
        "turn_start",
        "dequeue:steer",
        "message_start:user:S1",
        "message_end:user:S1",
        *ASSISTANT_TEXT,
        "turn_end:0",
        "turn_start",
        "dequeue:steer",
        "message_start:user:S2",
        "message_end:user:S2",
        *ASSISTANT_TEXT,
        "turn_end:0",
        "agent_end:4",
    ]


async def test_clear_queues_and_peek() -> None:
    agent = Agent(model=MODEL, stream_fn=ScriptedStream([]))
    agent.steer(user("s"))
    agent.follow_up(user("f"))
    assert agent.peek_queued_messages()[0]["content"][0]["text"] == "s"
    assert [m["content"][0]["text"] for m in agent.clear_steering_queue()] == ["s"]
    assert agent.peek_queued_messages()[0]["content"][0]["text"] == "f"
    agent.steer(user("s2"))
    steering, follow = agent.clear_all_queues()
    assert len(steering) == 1 and len(follow) == 1 and not agent.has_queued_messages()
    agent.follow_up(user("f2"))
    agent.clear_follow_up_queue()
    assert not agent.has_queued_messages()
