"""Codemode scripts in their own process: output layout, tool calls through the host, errors,
the store, limits, the guard, and a deadline or abort that kills the process."""

from __future__ import annotations

import base64
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from pi_rpc.ai.abort import AbortController, AbortSignal
from pi_rpc.mcp.codemode.runner import run_script

pytestmark = pytest.mark.anyio
PIXEL = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()


class Host:
    """Tools as a session would run them: ``echo`` (text), ``lookup`` (structured, with an
    output schema), ``broken`` (an error), ``wait`` (until aborted)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.store: dict[str, Any] = {"seen": 1}
        self.appended: list[dict[str, Any]] = []
        self.aborted: list[str] = []

    def callable_tools(self) -> list[dict[str, Any]]:
        return [
            {
                "name": "echo",
                "description": "Echo.",
                "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
            },
            {
                "name": "mcp__docs__lookup",
                "description": "Look up a page.",
                "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
                "outputSchema": {"type": "object", "properties": {"content": {"type": "array"}}},
                "namespace": {
                    "name": "mcp__docs",
                    "aliases": ["docs"],
                    "description": "Docs server",
                    "instructions": "Search first.",
                },
            },
            {"name": "broken", "description": "Always fails.", "parameters": {"type": "object", "properties": {}}},
            {"name": "wait", "description": "Waits.", "parameters": {"type": "object", "properties": {}}},
            {"name": "codemode", "description": "itself", "parameters": {}},
        ]

    async def execute_tool(
        self, name: str, args: dict[str, Any], signal: AbortSignal | None, on_update: Any = None
    ) -> dict[str, Any]:
        self.calls.append((name, args))
        call = {"id": f"call/{len(self.calls)}"}
        if name == "echo":
            return {
                "toolCall": call,
                "result": {"content": [{"type": "text", "text": f"echo {args.get('text')}"}]},
                "isError": False,
            }
        if name == "mcp__docs__lookup":
            structured = {"content": [{"type": "text", "text": args.get("q")}], "isError": False}
            return {"toolCall": call, "result": {"content": [], "structuredContent": structured}, "isError": False}
        if name == "wait":
            assert signal is not None
            await signal.wait()
            self.aborted.append(name)
            return {
                "toolCall": call,
                "result": {"content": [{"type": "text", "text": "MCP request aborted"}]},
                "isError": True,
            }
        return {"toolCall": call, "result": {"content": [{"type": "text", "text": "it broke"}]}, "isError": True}

    def read_store(self) -> dict[str, Any]:
        return dict(self.store)

    def append_store(self, data: dict[str, Any]) -> None:
        self.appended.append(data)


def _text(result: dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in result["content"] if block["type"] == "text")


async def test_a_script_calls_tools_and_lays_out_its_output() -> None:
    host = Host()
    code = (
        """
a, b = await asyncio.gather(tools.echo({"text": "one"}), tools.mcp__docs__lookup(q="two"))
print("console line", {"x": 1})
text(a)
text(b)
try:
    await tools.broken()
except ToolError as error:
    text(f"caught: {error}")
image({"type": "image", "data": %r, "mimeType": "image/png"})
store("k", [1, 2])
store("seen")
found = await search_tools("look up page")
text([f["name"] for f in found])
text(await describe_namespace("docs"))
text((await describe_tool("mcp__docs__lookup")).splitlines()[0])
text(len(ALL_TOOLS))
return {"loaded": load("seen")}
"""
        % PIXEL
    )
    updates: list[Any] = []
    result = await run_script("call_1", code, None, updates.append, host)
    assert "isError" not in result
    content = result["content"]
    assert content[0]["text"].startswith("Script completed\nWall time ") and content[0]["text"].endswith(
        " seconds\nOutput:\n"
    )
    body = _text({"content": content[1:]})
    assert "==> text 1/8 <==\necho one\n==> text 2/8 <==\n" in body
    assert '{"content":[{"type":"text","text":"two"}],"isError":false}' in body
    assert "==> text 3/8 <==\ncaught: it broke" in body
    images = [i for i, b in enumerate(content) if b["type"] == "image"]
    assert len(images) == 1 and content[images[0] - 1]["text"].endswith("(image/png, 8B)]")
    assert '["mcp__docs__lookup"' in body
    assert (
        '{"name":"mcp__docs","description":"Docs server","instructions":"Search first.","tools":["mcp__docs__lookup"]}'
        in body
    )
    assert "==> text 6/8 <==\nLook up a page." in body and "==> text 7/8 <==\n4" in body
    assert '==> text 8/8 <==\n{"loaded":null}' in body
    assert body.endswith('<console_output>\nconsole line {"x":1}\n</console_output>')
    assert [name for name, _ in host.calls] == ["echo", "mcp__docs__lookup", "broken"]
    assert host.appended == [{"set": {"k": [1, 2]}, "delete": ["seen"]}]
    calls = result["details"]["calls"]
    assert [(c["id"], c["status"]) for c in calls] == [("call/1", "ok"), ("call/2", "ok"), ("call/3", "error")]
    assert calls[2]["error"] == "it broke" and calls[0]["args"] == '{"text":"one"}'
    assert updates[0] == {"content": [], "details": {"calls": []}}


async def test_a_failing_script_keeps_its_output_and_lists_its_calls() -> None:
    host = Host()
    result = await run_script(
        "c", 'text("before")\nawait tools.echo(text="x")\nstore("k", 1)\nraise ValueError("boom")', None, None, host
    )
    assert result["isError"] is True
    body = _text(result)
    assert body.startswith("Script failed\n")
    assert (
        'before\nScript error:\nTraceback (most recent call last):\n  File "<script>", line 4, in <script>\nValueError: boom'
        in body
    )
    assert body.endswith("Tool calls made before the failure (they are not undone): echo (ok)")
    assert host.appended == []  # store writes of a failed script are dropped
    syntax = await run_script("c", "def f(:\n  pass", None, None, host)
    assert "SyntaxError" in _text(syntax) and "No tool calls were made." in _text(syntax)
    unknown = await run_script("c", "await tools.nope()", None, None, host)
    assert "AttributeError: No tool named 'nope'" in _text(unknown)


async def test_the_guard_keeps_scripts_away_from_files_processes_and_the_network(tmp_path: Path) -> None:
    target = tmp_path / "x.txt"
    code = f"""
for attempt in (
    lambda: open({str(target)!r}, "w"),
    lambda: __import__("subprocess").run(["true"]),
    lambda: __import__("socket").create_connection(("127.0.0.1", 9)),
    lambda: __import__("os").listdir("/"),
    lambda: __import__("ctypes"),
):
    try:
        attempt()
        text("allowed")
    except Exception as error:
        text(type(error).__name__)
"""
    body = _text(await run_script("c", code, None, None, Host()))
    assert "allowed" not in body and body.count("PermissionError") == 5
    assert not target.exists()


async def test_the_deadline_and_an_abort_kill_the_script() -> None:
    started = time.monotonic()
    result = await run_script("c", '# @options: {"timeout_ms": 500}\nwhile True:\n    pass', None, None, Host())
    assert result["isError"] is True and "Script timed out: Execution timed out after " in _text(result)
    assert time.monotonic() - started < 30
    host = Host()
    controller = AbortController()
    async with anyio.create_task_group() as tg:

        async def abort_when_waiting() -> None:
            while not host.calls:
                await anyio.sleep(0.02)
            controller.abort("Operation aborted")

        tg.start_soon(abort_when_waiting)
        result = await run_script("c", "await tools.wait()", controller.signal, None, host)
    body = _text(result)
    assert "Script aborted: Operation aborted" in body and "wait (cancelled)" in body
    assert host.aborted == ["wait"]  # the running call was cancelled, not abandoned


async def test_output_limits_and_truncation() -> None:
    result = await run_script(
        "c", '# @options: {"max_output_tokens": 10}\ntext("a" * 100)\ntext("b" * 100)', None, None, Host()
    )
    body = _text(result)
    assert "Warning: truncated output (original token count: 59)" in body and "tokens truncated…" in body
    assert "[Full output: /" in body and result["details"]["fullOutputPath"]
    with pytest.raises(ValueError, match="timeout_ms"):
        await run_script("c", '# @options: {"timeout_ms": 0}\npass', None, None, Host())
