"""Run and turn structure: full event sequences for text, tools, queues and errors."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from pi_rpc.agent import Agent

from .agent_helpers import MODEL, EchoTool, FailingTool, Recorder, ScriptedStream, Turn, text, tools, user

pytestmark = pytest.mark.anyio


def make_agent(turns: list[Turn], **kw: Any) -> tuple[Agent, ScriptedStream, Recorder]:
    stream = ScriptedStream(turns)
    agent = Agent(model=MODEL, stream_fn=stream, **kw)
    rec = Recorder()
    agent.subscribe(rec)
    return agent, stream, rec


async def test_text_only_sequence_and_state() -> None:
    agent, stream, rec = make_agent([text("Hello world")])
    await agent.prompt("Hi")
    assert rec.sig() == [
        "agent_start",
        "turn_start",
        "message_start:user:Hi",
        "message_end:user:Hi",
        "message_start:assistant:pending",
        "update:text_start",
        "update:text_delta",
        "update:text_delta",
        "update:text_end",
        "message_end:assistant:stop",
        "turn_end:0",
        "agent_end:2",
    ]
    # message_start carries the provider's start partial: no content yet.
    start = rec.of("message_start")[1]["message"]
    assert start["content"] == [] and start["stopReason"] == "pending"
    update = rec.of("message_update")[1]
    assert update["assistantMessageEvent"]["delta"] == "Hello"
    assert update["message"]["role"] == "assistant"
    final = rec.of("message_end")[1]["message"]
    assert final["content"] == [{"type": "text", "text": "Hello world"}]
    # Upstream appends thinkingLevel to the final message, after the provider's keys.
    assert list(final)[-1] == "thinkingLevel" and final["thinkingLevel"] == "off"
    assert rec.of("turn_end")[0]["message"] == final
    assert [m["role"] for m in rec.of("agent_end")[0]["messages"]] == ["user", "assistant"]
    # State: the transcript holds both messages, the agent is idle again.
    assert [m["role"] for m in agent.messages] == ["user", "assistant"]
    assert agent.messages[0]["content"] == [{"type": "text", "text": "Hi"}]
    assert not agent.is_streaming and agent.stream_message is None and agent.error is None
    # The request saw the user message and no system prompt.
    _, ctx, opts = stream.requests[0]
    assert [m["role"] for m in ctx.messages] == ["user"]
    assert ctx.system_prompt == "" and ctx.tools == []
    assert opts.reasoning is None and opts.signal is not None


async def test_one_tool_call_sequence_and_result_shapes() -> None:
    echo = EchoTool()
    agent, stream, rec = make_agent(
        [tools(("call_1", "echo", {"text": "hi"}), lead="Let me run it."), text("done")], tools=[echo]
    )
    await agent.prompt("Run echo hi")
    assert rec.sig() == [
        "agent_start",
        "turn_start",
        "message_start:system",
        "message_end:system",
        "message_start:user:Run echo hi",
        "message_end:user:Run echo hi",
        "message_start:assistant:pending",
        "update:text_start",
        "update:text_delta",
        "update:text_delta",
        "update:text_end",
        "update:toolcall_start",
        "update:toolcall_delta",
        "update:toolcall_end",
        "message_end:assistant:toolUse",
        "start:call_1",
        "update:call_1",
        "end:call_1",
        "message_start:toolResult:call_1",
        "message_end:toolResult:call_1",
        "turn_end:1",
        "turn_start",
        "message_start:assistant:pending",
        "update:text_start",
        "update:text_delta",
        "update:text_delta",
        "update:text_end",
        "message_end:assistant:stop",
        "turn_end:0",
        "agent_end:5",
    ]
    # 1.6: the loop declares the executable tools in a system message before the prompt.
    system = rec.of("message_end")[0]["message"]
    assert list(system) == ["role", "content", "timestamp", "toolsAdded"]
    assert system["content"] == "" and [t["name"] for t in system["toolsAdded"]] == ["echo"]
    assert system["toolsAdded"][0] == {
        "name": "echo",
        "description": EchoTool.description,
        "parameters": EchoTool.parameters,
    }
    start = rec.of("tool_execution_start")[0]
    assert start == {"type": "tool_execution_start", "toolCallId": "call_1", "toolName": "echo", "args": {"text": "hi"}}
    update = rec.of("tool_execution_update")[0]
    assert list(update) == ["type", "toolCallId", "toolName", "args", "partialResult"]
    assert update["partialResult"]["content"][0]["text"] == "partial hi"
    end = rec.of("tool_execution_end")[0]
    assert list(end) == ["type", "toolCallId", "toolName", "result", "isError", "durationMs"]
    assert end["result"] == {"content": [{"type": "text", "text": "hi"}], "details": {"echoed": "hi"}}
    assert end["isError"] is False and isinstance(end["durationMs"], int)
    result_msg = rec.of("message_end")[3]["message"]
    assert list(result_msg) == [
        "role",
        "toolCallId",
        "toolName",
        "content",
        "details",
        "isError",
        "durationMs",
        "timestamp",
    ]
    assert rec.of("turn_end")[0]["toolResults"] == [result_msg]
    assert echo.calls == [("call_1", {"text": "hi"})]
    # The second request carries system (folded) + user + assistant + toolResult.
    _, ctx2, _ = stream.requests[1]
    assert [m["role"] for m in ctx2.messages] == ["user", "assistant", "toolResult"]
    assert [t["name"] for t in ctx2.tools] == ["echo"]
    assert [m["role"] for m in agent.messages] == ["system", "user", "assistant", "toolResult", "assistant"]
    # The next prompt declares nothing new.
    stream.turns.append(text("again"))
    rec.events.clear()
    await agent.prompt("more")
    assert "message_start:system" not in rec.sig()


async def test_unknown_tool_thrown_error_and_tool_reported_error() -> None:
    class ErrTool(EchoTool):
        async def execute(self, tool_call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> dict[str, Any]:
            return {"content": [{"type": "text", "text": "bad exit"}], "isError": True}

    agent, _, rec = make_agent(
        [
            tools(("c1", "no_such_tool", {"x": 1}), ("c2", "fail", {}), ("c3", "err", {"text": "x"})),
            text("ok"),
        ],
        tools=[FailingTool(), ErrTool("err")],
    )
    await agent.prompt("go")
    ends = {e["toolCallId"]: e for e in rec.of("tool_execution_end")}
    assert ends["c1"] == {
        "type": "tool_execution_end",
        "toolCallId": "c1",
        "toolName": "no_such_tool",
        "result": {"content": [{"type": "text", "text": "Tool no_such_tool not found"}], "details": {}},
        "isError": True,
    }
    assert ends["c2"]["result"] == {"content": [{"type": "text", "text": "boom"}], "details": {}}
    assert ends["c2"]["isError"] is True and "durationMs" in ends["c2"]
    # A result with isError:true is passed through unchanged and flags the call.
    assert ends["c3"]["result"] == {"content": [{"type": "text", "text": "bad exit"}], "isError": True}
    assert ends["c3"]["isError"] is True
    results = rec.of("turn_end")[0]["toolResults"]
    assert [r["toolCallId"] for r in results] == ["c1", "c2", "c3"]
    assert results[0] == {
        "role": "toolResult",
        "toolCallId": "c1",
        "toolName": "no_such_tool",
        "content": [{"type": "text", "text": "Tool no_such_tool not found"}],
        "details": {},
        "isError": True,
        "timestamp": results[0]["timestamp"],
    }
    assert "details" not in results[2]
    # The unknown tool's end comes right after its start, before the others run.
    sig = rec.sig()
    assert sig.index("end:c1") == sig.index("start:c1") + 1 < sig.index("start:c2")


async def test_validation_error_text() -> None:
    echo = EchoTool()
    agent, _, rec = make_agent([tools(("call_4", "echo", {"wrong": 1})), text("Bad arguments.")], tools=[echo])
    await agent.prompt("Call echo with bad arguments")
    end = rec.of("tool_execution_end")[0]
    assert end["isError"] is True and "durationMs" not in end
    assert end["result"]["content"][0]["text"] == (
        'Validation failed for tool "echo":\n  - text: missing\n\nReceived arguments:\n{\n  "wrong": 1\n}'
    )
    assert end["result"]["details"] == {}
    assert echo.calls == []


async def test_arguments_error_is_reported() -> None:
    echo = EchoTool()
    turn = tools(("c1", "echo", {}))
    stream = ScriptedStream([turn, text("ok")])
    agent = Agent(model=MODEL, stream_fn=stream, tools=[echo])
    rec = Recorder()
    agent.subscribe(rec)

    original = stream._run

    async def patched(model: Any, t: Turn, signal: Any) -> Any:
        async for ev in original(model, t, signal):
            if ev["type"] == "done":
                for block in ev["message"]["content"]:
                    block["argumentsError"] = "Unexpected end of JSON input"
            yield ev

    stream._run = patched  # type: ignore[method-assign]
    await agent.prompt("go")
    end = rec.of("tool_execution_end")[0]
    assert end["result"]["content"][0]["text"] == 'Invalid arguments for tool "echo": Unexpected end of JSON input'


async def test_length_stop_fails_tool_calls_without_running_them() -> None:
    echo = EchoTool()
    turn = tools(("c1", "echo", {"text": "a"}))
    turn.stop_reason = "length"
    agent, _, rec = make_agent([turn, text("ok")], tools=[echo])
    await agent.prompt("go")
    end = rec.of("tool_execution_end")[0]
    assert end["result"]["content"][0]["text"].startswith('Tool call "echo" was not executed: the response hit')
    assert echo.calls == []
    assert rec.sig()[-3:] == ["message_end:assistant:stop", "turn_end:0", "agent_end:5"]


async def test_provider_error_before_start() -> None:
    agent, _, rec = make_agent([Turn(error_before_start="429 Rate limit reached for requests")])
    agent.follow_up(user("later"))
    await agent.prompt("Hi")
    assert rec.sig() == [
        "agent_start",
        "turn_start",
        "message_start:user:Hi",
        "message_end:user:Hi",
        "message_start:assistant:error",
        "message_end:assistant:error",
        "turn_end:0",
        "agent_end:2",
    ]
    msg = rec.of("message_end")[1]["message"]
    assert msg["errorMessage"] == "429 Rate limit reached for requests" and msg["thinkingLevel"] == "off"
    assert agent.error == "429 Rate limit reached for requests"
    # An error ends the run: queued messages stay queued.
    assert agent.has_queued_messages() and agent.follow_up_queue[0]["content"][0]["text"] == "later"


async def test_error_after_streaming_keeps_partial() -> None:
    agent, _, rec = make_agent([Turn(blocks=[("text", "partial")], error_message="503 overloaded")])
    await agent.prompt("Hi")
    assert rec.sig()[-4:] == ["update:text_end", "message_end:assistant:error", "turn_end:0", "agent_end:2"]
    assert rec.of("message_end")[1]["message"]["content"] == [{"type": "text", "text": "partial"}]


async def test_get_api_key_called_before_every_request() -> None:
    calls: list[str] = []

    async def get_api_key(provider: str) -> str:
        calls.append(provider)
        return f"key-{len(calls)}"

    agent, stream, _ = make_agent(
        [tools(("c1", "echo", {"text": "a"})), text("ok")], tools=[EchoTool()], get_api_key=get_api_key
    )
    await agent.prompt("go")
    assert calls == ["fake", "fake"]
    assert [opts.api_key for _, _, opts in stream.requests] == ["key-1", "key-2"]


async def test_get_api_key_raising_ends_run_with_synthetic_message() -> None:
    async def get_api_key(provider: str) -> str:
        raise RuntimeError(f'No API key found for "{provider}".')

    agent, stream, rec = make_agent([text("never")], get_api_key=get_api_key)
    await agent.prompt("Hi")
    # 1.6 (pi-agent-core Agent.handleRunFailure): the failure message gets start/end and a
    # turn_end, then agent_end lists only that message.
    assert rec.sig() == [
        "agent_start",
        "turn_start",
        "message_start:user:Hi",
        "message_end:user:Hi",
        "message_start:assistant:error",
        "message_end:assistant:error",
        "turn_end:0",
        "agent_end:1",
    ]
    failure = rec.of("agent_end")[0]["messages"][0]
    assert failure == {
        "role": "assistant",
        "content": [{"type": "text", "text": ""}],
        "api": "openai-completions",
        "provider": "fake",
        "model": "fake-model",
        "usage": {
            "input": 0,
            "output": 0,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 0,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        },
        "stopReason": "error",
        "errorMessage": 'No API key found for "fake".',
        "timestamp": failure["timestamp"],
    }
    assert stream.requests == []
    assert agent.messages[-1]["errorMessage"] == 'No API key found for "fake".'
    assert agent.error == 'No API key found for "fake".'
    assert not agent.is_streaming


async def test_busy_and_precondition_errors() -> None:
    gate = anyio.Event()
    agent, _, _ = make_agent([Turn(blocks=[("text", "slow answer")], gate=gate), text("x")])
    errors: list[str] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(agent.prompt, "first")
        await anyio.wait_all_tasks_blocked()
        assert agent.is_streaming
        for call in (lambda: agent.prompt("second"), agent.continue_):
            try:
                await call()
            except RuntimeError as exc:
                errors.append(str(exc))
        gate.set()
    assert errors == [
        "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.",
        "Agent is already processing. Wait for completion before continuing.",
    ]
    with pytest.raises(RuntimeError, match="^Cannot continue from message role: assistant$"):
        await agent.continue_()
    with pytest.raises(RuntimeError, match="^No messages to continue from$"):
        await Agent(model=MODEL, stream_fn=ScriptedStream([])).continue_()
    with pytest.raises(RuntimeError, match="^No model configured$"):
        await Agent(stream_fn=ScriptedStream([])).prompt("x")


async def test_continue_from_user_message_runs_without_prompt() -> None:
    agent, stream, rec = make_agent([text("retry answer")], messages=[user("Hi")])
    await agent.continue_()
    assert rec.sig() == [
        "agent_start",
        "turn_start",
        "message_start:assistant:pending",
        "update:text_start",
        "update:text_delta",
        "update:text_delta",
        "update:text_end",
        "message_end:assistant:stop",
        "turn_end:0",
        "agent_end:1",
    ]
    assert [m["role"] for m in stream.requests[0][1].messages] == ["user"]


async def test_failed_assistant_messages_are_dropped_from_later_requests() -> None:
    agent, stream, _ = make_agent([Turn(error_before_start="500 boom"), text("ok")])
    await agent.prompt("Hi")
    # The runtime retries by removing the error message and continuing; emulate that.
    agent.messages.pop()
    await agent.continue_()
    assert [m["role"] for m in stream.requests[1][1].messages] == ["user"]
    # Even if the failed message stays in the transcript it never reaches the model.
    agent.messages.insert(1, {**agent.messages[-1], "stopReason": "error", "content": []})
    agent.messages.append(user("next"))
    stream.turns.append(text("fine"))
    await agent.continue_()
    assert [m["role"] for m in stream.requests[2][1].messages] == ["user", "assistant", "user"]


async def test_thinking_level_reaches_options_and_message() -> None:
    agent, stream, rec = make_agent([text("hm")], thinking_level="high", session_id="sess-1")
    await agent.prompt("Hi")
    opts = stream.requests[0][2]
    assert opts.reasoning == "high" and opts.session_id == "sess-1"
    assert rec.of("message_end")[1]["message"]["thinkingLevel"] == "high"


async def test_listeners_are_awaited_in_order_and_unsubscribe() -> None:
    agent, _, _ = make_agent([text("a"), text("b")])
    seen: list[str] = []

    async def slow(event: dict[str, Any]) -> None:
        await anyio.sleep(0)
        seen.append("slow:" + event["type"])

    async def fast(event: dict[str, Any]) -> None:
        seen.append("fast:" + event["type"])

    unsub = agent.subscribe(slow)
    agent.subscribe(fast)
    await agent.prompt("x")
    # Every event went through both listeners, in subscription order, before the next event.
    pairs = list(zip(seen[::2], seen[1::2], strict=True))
    assert all(a.split(":")[1] == b.split(":")[1] and a.startswith("slow") for a, b in pairs)
    unsub()
    seen.clear()
    await agent.prompt("y")
    assert seen and all(s.startswith("fast:") for s in seen)
