"""The Python client's host-tool handler API (``RpcClient.host_tool``) against our real server
with the faux model: a handler's updates and answer, its exception as an error result, parallel
calls, a cancelled call, and the typed tool-control and limits methods."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from pi_rpc_client import HostToolCall, RpcCommandError

from .test_python_client_beyond import faux_client

EDITOR_SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


def _results(pi: Any) -> list[dict[str, Any]]:
    return [m for m in pi.get_messages() if m["role"] == "toolResult"]


def test_handler_updates_answers_and_fails(tmp_path: Path) -> None:
    calls = [
        {"name": "open_editor", "arguments": {"path": "a.txt"}},
        {"name": "open_editor", "arguments": {"path": "boom"}},
    ]
    with faux_client(tmp_path, [{"text": "x", "toolCalls": calls}, {"text": "done"}]) as pi:
        both_running = threading.Barrier(2, timeout=10)

        @pi.host_tool("open_editor", EDITOR_SCHEMA, description="Open a file in the editor.")
        def open_editor(args: dict[str, Any], call: HostToolCall) -> Any:
            both_running.wait()  # the two calls of the turn run at the same time
            if args["path"] == "boom":
                raise RuntimeError("no such file: boom")
            call.update("opening")
            return {"content": f"opened {args['path']}", "details": {"line": 1}}

        assert {t["name"]: t["source"] for t in pi.get_tools()}["open_editor"] == "host"
        with pi.events() as stream:
            pi.prompt("go")
            update = stream.wait_for("tool_execution_update", timeout=20)
            stream.wait_for("agent_settled", timeout=20)
        assert update["partialResult"]["content"] == [{"type": "text", "text": "opening"}]
        ok, failed = _results(pi)
        assert ok["content"] == [{"type": "text", "text": "opened a.txt"}] and ok["details"] == {"line": 1}
        assert failed["isError"] is True and failed["content"][0]["text"] == "no such file: boom"


def test_cancelled_call_is_not_answered(tmp_path: Path) -> None:
    with faux_client(tmp_path, [{"text": "x", "toolCalls": [{"name": "slow", "arguments": {}}]}]) as pi:
        started, seen_cancel = threading.Event(), threading.Event()

        @pi.host_tool("slow", {"type": "object"})
        def slow(args: dict[str, Any], call: HostToolCall) -> str:
            started.set()
            if call.cancelled.wait(10):
                seen_cancel.set()
            return "too late"

        pi.prompt("go")
        assert started.wait(10)
        assert pi.abort() == "aborted"
        assert seen_cancel.wait(10)
        (result,) = _results(pi)
        assert result["content"][0]["text"] == "Operation aborted"


def test_typed_tool_control_and_limits(tmp_path: Path) -> None:
    loop = [{"text": "x", "toolCalls": [{"name": "bash", "arguments": {"command": "true"}}]}] * 4
    with faux_client(tmp_path, loop) as pi:
        assert pi.set_active_tools(["read", "bash"]) == ["read", "bash"]
        try:
            pi.set_active_tools(["nope"])
        except RpcCommandError as exc:
            assert "Unknown tool name(s): nope" in exc.response["error"]
        else:
            raise AssertionError("an unknown name was accepted")
        with pi.events() as stream:
            pi.prompt("go", limits={"maxTurns": 2})
            end = stream.wait_for("agent_end", timeout=20)
        assert end["limit"] == {"kind": "maxTurns", "limit": 2, "used": 2}


def test_async_client_host_tool(tmp_path: Path) -> None:
    import anyio
    from pi_rpc_client.aio import AsyncRpcClient

    from .pi_client_testkit import server_env
    from .test_python_client_beyond import _argv

    script = [
        {"text": "x", "toolCalls": [{"name": "lookup", "arguments": {"key": "a"}}]},
        {"text": "done"},
        {"text": "y", "toolCalls": [{"name": "lookup", "arguments": {"key": "slow"}}]},
    ]

    async def main() -> None:
        async with AsyncRpcClient(
            _argv(tmp_path, script, ()),
            cwd=tmp_path / "cwd",
            env=server_env(tmp_path),
            inherit_env=False,
            default_timeout=20.0,
        ) as pi:
            started = anyio.Event()

            async def lookup(args: dict[str, Any], call: Any) -> str:
                if args["key"] == "slow":
                    started.set()
                    await anyio.sleep(30)  # cancelled by the abort below
                await call.update("looking")
                return f"value of {args['key']}"

            await pi.add_host_tool("lookup", {"type": "object", "properties": {"key": {"type": "string"}}}, lookup)
            result = await pi.prompt_and_wait("go")
            assert result.text() == "done"
            await pi.prompt("again")
            with anyio.fail_after(10):
                await started.wait()
            assert await pi.abort() == "aborted"
            results = [m for m in await pi.get_messages() if m["role"] == "toolResult"]
            assert results[0]["content"] == [{"type": "text", "text": "value of a"}]
            assert results[1]["content"][0]["text"] == "Operation aborted"

    anyio.run(main)
