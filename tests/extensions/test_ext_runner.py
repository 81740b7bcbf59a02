"""The runner's composition of handler results, in process (upstream's rules): input chains and
short-circuits, context keeps the system head, tool_result patches chain, session_before_*
cancels, user_bash refuses invalid results, message_end keeps the role, the handler index
follows subscriptions and dispatches a snapshot, duplicate command names get suffixes, and the
pi object's validation (unknown event names included) and staleness."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from pi_rpc.extensions.api import ExtensionAPI, SharedRuntime
from pi_rpc.extensions.bus import EventBus
from pi_rpc.extensions.combine import FOLDS, INVALID_USER_BASH_RESULT, MESSAGE_END_ROLE
from pi_rpc.extensions.events import ALL_EVENTS
from pi_rpc.extensions.host import ModeBinding
from pi_rpc.extensions.runner import ExtensionRunner
from pi_rpc.extensions.types import Extension


def make(n: int = 2) -> tuple[ExtensionRunner, list[ExtensionAPI], list[dict[str, Any]]]:
    runtime = SharedRuntime(EventBus())
    extensions = [
        Extension(path=f"/ext/e{i}.py", source_info={"path": f"/ext/e{i}.py", "source": "cli"}) for i in range(n)
    ]
    apis = [ExtensionAPI(ext, runtime) for ext in extensions]
    for api in apis:
        api._commit()
    runner = ExtensionRunner(extensions, runtime)
    errors: list[dict[str, Any]] = []
    runner.set_binding(ModeBinding(mode="rpc", on_error=errors.append))
    return runner, apis, errors


def _input(text: str) -> dict[str, Any]:
    return {"type": "input", "text": text, "images": None, "source": "rpc", "streamingBehavior": None}


@pytest.mark.anyio
async def test_input_transforms_chain_and_handled_short_circuits() -> None:
    runner, (a, b), errors = make()
    a.on("input", lambda e, ctx: {"action": "transform", "text": e["text"] + " +a"})
    a.on("input", lambda e, ctx: 1 / 0)
    b.on("input", lambda e, ctx: {"action": "transform", "text": e["text"] + " +b"})
    result = await runner.emit(_input("hi"))
    assert result == {"action": "transform", "text": "hi +a +b", "images": None}
    assert errors == [{"extensionPath": "/ext/e0.py", "event": "input", "error": "division by zero"}]
    b.on("input", lambda e, ctx: {"action": "handled"})
    b.on("input", lambda e, ctx: pytest.fail("after handled"))
    assert (await runner.emit(_input("x")))["action"] == "handled"


@pytest.mark.anyio
async def test_context_changes_keep_the_current_system_message_in_front() -> None:
    runner, (a, _), _ = make()
    messages = [
        {
            "role": "system",
            "content": "",
            "sections": {"preamble": "P"},
            "timestamp": 1,
            "toolsAdded": [{"name": "read"}],
        },
        {"role": "user", "content": "one", "timestamp": 2},
        {"role": "system", "content": "", "sections": {"preamble": "Q"}, "timestamp": 3},
        {"role": "user", "content": "two", "timestamp": 4},
    ]
    assert await runner.emit_context(messages) is messages  # no handlers: unchanged, not copied
    seen: list[list[str]] = []

    def drop_first(event: dict[str, Any], ctx: Any) -> dict[str, Any]:
        seen.append([m["role"] for m in event["messages"]])
        return {"messages": event["messages"][1:]}

    a.on("context", drop_first)
    out = await runner.emit_context(messages)
    assert seen == [["user", "user"]]
    assert (
        out[0]["role"] == "system"
        and out[0]["sections"] == {"preamble": "Q"}
        and out[0]["toolsAdded"] == [{"name": "read"}]
    )
    assert [m.get("content") for m in out[1:]] == ["two"]
    assert messages[1]["content"] == "one"  # the caller's list is never modified


@pytest.mark.anyio
async def test_tool_result_patches_chain_and_replaced_content_drops_structured_content() -> None:
    runner, (a, b), _ = make()
    event = {
        "type": "tool_result",
        "toolName": "t",
        "toolCallId": "1",
        "input": {},
        "content": [{"type": "text", "text": "x"}],
        "details": {"d": 1},
        "structuredContent": {"s": 1},
        "isError": False,
        "usage": None,
    }
    assert await runner.emit(event) is None
    a.on("tool_result", lambda e, ctx: {"content": [{"type": "text", "text": e["content"][0]["text"] + "y"}]})
    b.on("tool_result", lambda e, ctx: {"isError": True, "details": {"seen": e["content"][0]["text"]}})
    out = await runner.emit(event)
    assert out == {
        "content": [{"type": "text", "text": "xy"}],
        "details": {"seen": "xy"},
        "structuredContent": None,
        "isError": True,
        "usage": None,
    }


@pytest.mark.anyio
async def test_first_cancel_wins_and_tool_call_stops_at_the_first_block() -> None:
    runner, (a, b), _ = make()
    a.on("session_before_fork", lambda e, ctx: {"cancel": True})
    b.on("session_before_fork", lambda e, ctx: pytest.fail("after cancel"))
    assert await runner.emit({"type": "session_before_fork", "entryId": "x", "position": "before"}) == {"cancel": True}

    def mutate(event: dict[str, Any], ctx: Any) -> None:
        event["input"]["command"] += " --safe"

    a.on("tool_call", mutate)
    b.on("tool_call", lambda e, ctx: {"block": True, "reason": e["input"]["command"]})
    b.on("tool_call", lambda e, ctx: pytest.fail("after block"))
    result = await runner.emit({"type": "tool_call", "toolName": "bash", "toolCallId": "1", "input": {"command": "ls"}})
    assert result == {"block": True, "reason": "ls --safe"}
    runner2, (c,), _ = make(1)
    c.on("tool_call", lambda e, ctx: 1 / 0)
    with pytest.raises(ZeroDivisionError):  # the caller blocks the call with the message
        await runner2.emit({"type": "tool_call", "toolName": "bash", "toolCallId": "1", "input": {}})


@pytest.mark.anyio
async def test_user_bash_refuses_invalid_results_and_message_end_keeps_the_role() -> None:
    runner, (a, b), errors = make()
    bash = {"type": "user_bash", "command": "ls", "excludeFromContext": False, "cwd": "/"}
    assert await runner.emit(bash) is None  # no handler: run locally
    a.on("user_bash", lambda e, ctx: None)  # None: the next handler decides
    b.on("user_bash", lambda e, ctx: {"result": {"output": "x"}})  # no exitCode/cancelled/truncated
    with pytest.raises(ValueError, match="Invalid user_bash handler result"):
        await runner.emit(bash)
    assert errors == [{"extensionPath": "/ext/e1.py", "event": "user_bash", "error": INVALID_USER_BASH_RESULT}]
    errors.clear()
    message = {"role": "assistant", "content": []}
    a.on("message_end", lambda e, ctx: {"message": {"role": "user", "content": "wrong role"}})
    b.on("message_end", lambda e, ctx: {"message": {**e["message"], "content": [{"type": "text", "text": "new"}]}})
    replaced = await runner.emit({"type": "message_end", "message": message})
    assert replaced == {"role": "assistant", "content": [{"type": "text", "text": "new"}]}
    assert errors == [{"extensionPath": "/ext/e0.py", "event": "message_end", "error": MESSAGE_END_ROLE}]


@pytest.mark.anyio
async def test_the_handler_index_follows_subscriptions_and_a_dispatch_runs_a_snapshot() -> None:
    runner, (a, b), _ = make()
    assert not runner.has_handlers("agent_start")
    assert await runner.emit({"type": "agent_start"}) is None
    calls: list[str] = []
    late_off: list[Any] = []

    def first(event: dict[str, Any], ctx: Any) -> None:
        calls.append("a")
        b.on("agent_start", lambda e, c: calls.append("added meanwhile"))  # not in this dispatch
        late_off[0]()  # removed meanwhile: still in this dispatch

    off_first = a.on("agent_start", first)
    late_off.append(b.on("agent_start", lambda e, c: calls.append("b")))
    assert runner.has_handlers("agent_start")
    await runner.emit({"type": "agent_start"})
    assert calls == ["a", "b"]
    off_first()
    calls.clear()
    await runner.emit({"type": "agent_start"})
    assert calls == ["added meanwhile"]


def test_pi_on_refuses_an_unknown_event_name() -> None:
    _, (a, _), _ = make()
    with pytest.raises(ValueError, match=r"Unknown event 'tool_calls' for pi.on\(\); known events: project_trust, "):
        a.on("tool_calls", print)
    with pytest.raises(ValueError, match="Unknown event 'agent_done'"):
        a.on("agent_done")  # the decorator form refuses at once, not when it decorates
    assert a._extension.handlers == {}
    for name in ALL_EVENTS:
        a.on(name, print)
    assert set(FOLDS) <= set(ALL_EVENTS)  # every combination rule names a real event


def test_duplicate_command_names_get_suffixes_and_listing_shape() -> None:
    runner, (a, b), _ = make()
    a.register_command("review", {"description": "A", "handler": lambda args, ctx: None})
    b.register_command("review", {"handler": lambda args, ctx: None})
    b.register_command("other", {"description": "O", "handler": lambda args, ctx: None})
    assert [name for name, _ in runner.registered_commands()] == ["review:1", "review:2", "other"]
    assert runner.command_listing()[1] == {
        "name": "review:2",
        "source": "extension",
        "sourceInfo": {"path": "/ext/e1.py", "source": "cli"},
    }
    assert runner.get_command("review:1").description == "A"


def test_api_validation_flags_and_staleness() -> None:
    runner, (a, b), _ = make()
    with pytest.raises(ValueError, match="must define an object parameter schema"):
        a.register_tool({"name": "t", "parameters": [], "execute": print})
    with pytest.raises(ValueError, match="must have a non-empty string name"):
        a.register_command("", {"handler": print})
    with pytest.raises(ValueError, match=r'Command "/x" registered by extension "/ext/e0.py" must define handler\(\)'):
        a.register_command("x", {})
    with pytest.raises(ValueError, match='Invalid default for flag "plan": expected boolean, got string'):
        a.register_flag("plan", {"type": "boolean", "default": "yes"})
    a.register_flag("plan", {"type": "boolean", "default": False})
    assert a.get_flag("plan") is False and b.get_flag("plan") is None
    with pytest.raises(RuntimeError, match="Action methods cannot be called during extension loading"):
        a.get_active_tools()
    ctx = runner.create_context()
    runner.invalidate()
    with pytest.raises(RuntimeError, match="stale after session replacement"):
        a.on("input", print)
    with pytest.raises(RuntimeError, match="stale after session replacement"):
        ctx.has_pending_messages()


@pytest.mark.anyio
async def test_event_bus_handler_errors_are_reported() -> None:
    runner, (a, b), errors = make()
    got: list[Any] = []
    a.events.on("ping", got.append)

    async def broken(data: Any) -> None:
        raise RuntimeError("bus handler broke")

    b.events.on("ping", broken)
    async with anyio.create_task_group() as tg:
        runner.runtime.bus.spawn = lambda coro: tg.start_soon(lambda: coro)
        a.events.emit("ping", {"n": 1})
    assert got == [{"n": 1}]
    assert errors == [{"extensionPath": "/ext/e1.py", "event": "events:ping", "error": "bus handler broke"}]
