"""Host tools and tool control over RPC, on the real ``python -m pi_rpc --mode rpc`` subprocess
with the offline faux model: ``set_host_tools`` / ``host_tool_request`` / ``host_tool_update`` /
``host_tool_result`` / ``host_tool_cancelled``, ``get_tools`` and ``set_active_tools``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.pi_process import PiProcess, RecordTimeout, is_event

EDITOR = {
    "name": "open_editor",
    "description": "Open a file in the user's editor. Returns what the user saw.",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
}
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def _call(name: str = "open_editor", **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments or {"path": "a.txt"}}


def _tool_results(proc: PiProcess) -> list[dict[str, Any]]:
    return [m for m in proc.ok("get_messages")["messages"] if m.get("role") == "toolResult"]


def _session_entries(agent_dir: Path) -> list[dict[str, Any]]:
    files = sorted((agent_dir / "sessions").rglob("*.jsonl"), key=lambda p: p.stat().st_mtime)
    assert files, "no session file"
    return [json.loads(line) for line in files[-1].read_text().splitlines()]


def test_host_tool_called_updated_and_answered(pi: Callable[..., PiProcess]) -> None:
    proc = pi(script=[{"text": "opening", "toolCalls": [_call(path="src/x.py")]}, {"text": "done"}])
    assert proc.ok("set_host_tools", tools=[EDITOR]) == {"tools": ["open_editor"]}
    tools = {t["name"]: t for t in proc.ok("get_tools")["tools"]}
    assert tools["open_editor"] == {**EDITOR, "source": "host", "active": True}
    assert tools["read"]["source"] == "builtin" and tools["read"]["active"] is True
    mark = proc.mark()
    proc.ok("prompt", message="open it")
    request = proc.wait_for("host_tool_request")
    assert list(request) == ["type", "id", "toolCallId", "name", "arguments"]
    assert request["name"] == "open_editor" and request["arguments"] == {"path": "src/x.py"}
    start = proc.wait_for(is_event("tool_execution_start", toolCallId=request["toolCallId"]))
    assert proc.index_of(start) < proc.index_of(request)
    # The system prompt lists it like any tool (its description's first sentence).
    system = next(r["message"] for r in proc.since(mark) if r.get("type") == "message_end")
    assert "open_editor: Open a file in the user's editor" in system["sections"]["tools"]

    proc.send({"type": "host_tool_update", "id": request["id"], "content": [{"type": "text", "text": "50%"}]})
    update = proc.wait_for("tool_execution_update")
    assert update["toolCallId"] == request["toolCallId"]
    assert update["partialResult"] == {"content": [{"type": "text", "text": "50%"}]}
    proc.send(
        {
            "type": "host_tool_result",
            "id": request["id"],
            "content": [{"type": "text", "text": "shown"}, {"type": "image", "data": PNG, "mimeType": "image/png"}],
            "details": {"line": 3},
        }
    )
    end = proc.wait_for("tool_execution_end")
    assert end["isError"] is False
    assert end["result"]["content"][0] == {"type": "text", "text": "shown"}
    assert end["result"]["content"][1]["type"] == "image"
    assert end["result"]["details"] == {"line": 3}
    proc.settle()
    # Neither answer got a response (as extension_ui_response).
    assert not [r for r in proc.since(mark) if r.get("type") == "response" and r.get("command") != "prompt"]
    (result,) = _tool_results(proc)
    assert result["toolName"] == "open_editor" and result["details"] == {"line": 3} and result["isError"] is False
    entries = _session_entries(proc.agent_dir)
    assert any(e.get("message", {}).get("role") == "toolResult" for e in entries)


def test_host_tool_runs_in_parallel_with_a_builtin(pi: Callable[..., PiProcess]) -> None:
    proc = pi(
        script=[
            {"text": "both", "toolCalls": [_call(), {"name": "bash", "arguments": {"command": "echo hi"}}]},
            {"text": "done"},
        ]
    )
    proc.ok("set_host_tools", tools=[EDITOR])
    proc.ok("prompt", message="go")
    request = proc.wait_for("host_tool_request")
    # bash finishes while the host tool is still waiting for its answer.
    ls_end = proc.wait_for(is_event("tool_execution_end", toolName="bash"))
    assert ls_end["isError"] is False
    proc.send({"type": "host_tool_result", "id": request["id"], "content": [{"type": "text", "text": "ok"}]})
    host_end = proc.wait_for(is_event("tool_execution_end", toolName="open_editor"))
    assert proc.index_of(ls_end) < proc.index_of(host_end)
    proc.settle()
    assert [r["toolName"] for r in _tool_results(proc)] == ["open_editor", "bash"]


def test_abort_cancels_a_pending_call_and_a_late_answer_is_ignored(pi: Callable[..., PiProcess]) -> None:
    proc = pi(script=[{"text": "x", "toolCalls": [_call()]}])
    proc.ok("set_host_tools", tools=[EDITOR])
    proc.ok("prompt", message="go")
    request = proc.wait_for("host_tool_request")
    assert proc.ok("abort") == {"outcome": "aborted"}
    cancelled = proc.wait_for("host_tool_cancelled")
    assert cancelled == {"type": "host_tool_cancelled", "id": request["id"]}
    end = proc.wait_for("tool_execution_end")
    assert end["isError"] is True and end["result"]["content"][0]["text"] == "Operation aborted"
    proc.settle()
    mark = proc.mark()
    proc.send({"type": "host_tool_result", "id": request["id"], "content": [{"type": "text", "text": "late"}]})
    proc.send({"type": "host_tool_result", "id": "no-such-call", "content": []})
    assert proc.ok("get_state")["isStreaming"] is False
    assert [r["type"] for r in proc.since(mark)] == ["response"]


def test_timeout_ends_the_call_with_an_error_and_the_run_goes_on(pi: Callable[..., PiProcess]) -> None:
    proc = pi(script=[{"text": "x", "toolCalls": [_call()]}, {"text": "went on"}], args=("--host-tool-timeout", "0.3"))
    proc.ok("set_host_tools", tools=[EDITOR])
    proc.ok("prompt", message="go")
    request = proc.wait_for("host_tool_request")
    assert proc.wait_for("host_tool_cancelled")["id"] == request["id"]
    end = proc.wait_for("tool_execution_end")
    assert end["isError"] is True
    assert end["result"]["content"][0]["text"] == 'Host tool "open_editor" timed out after 0.3 s (--host-tool-timeout)'
    proc.settle()
    assert proc.ok("get_last_assistant_text")["text"] == "went on"


GARBAGE = [
    ({"content": "oops"}, '"content" must be an array of text and image blocks'),
    ({"content": [{"type": "video"}]}, 'content[0]: "type" must be "text" or "image"'),
    ({"content": [{"type": "text"}]}, 'content[0]: a text block needs a string "text"'),
    ({"content": [], "isError": "yes"}, '"isError" must be a boolean'),
]


def test_garbage_answer_ends_the_call_with_an_error(pi: Callable[..., PiProcess]) -> None:
    script = []
    for _ in GARBAGE:
        script += [{"text": "x", "toolCalls": [_call()]}, {"text": "went on"}]
    proc = pi(script=script)
    proc.ok("set_host_tools", tools=[EDITOR])
    for answer, problem in GARBAGE:
        mark = proc.mark()
        proc.ok("prompt", message="go")
        request = proc.wait_for("host_tool_request", start=mark)
        proc.send({"type": "host_tool_result", "id": request["id"], **answer})
        end = proc.wait_for("tool_execution_end", start=mark)
        assert end["isError"] is True
        assert end["result"]["content"][0]["text"] == (
            f'The client answered host tool "open_editor" with an invalid result: {problem}'
        )
        proc.settle(mark)
        assert proc.ok("get_last_assistant_text")["text"] == "went on"
    # A garbage update ends the call the same way.
    proc2 = pi(script=[{"text": "x", "toolCalls": [_call()]}, {"text": "went on"}])
    proc2.ok("set_host_tools", tools=[EDITOR])
    proc2.ok("prompt", message="go")
    request = proc2.wait_for("host_tool_request")
    proc2.send({"type": "host_tool_update", "id": request["id"], "content": {"no": 1}})
    end = proc2.wait_for("tool_execution_end")
    assert end["result"]["content"][0]["text"] == (
        'The client sent an invalid host_tool_update for "open_editor": '
        '"content" must be an array of text and image blocks'
    )
    proc2.settle()


def test_client_gone_ends_the_call_with_an_error_result_on_record(pi: Callable[..., PiProcess]) -> None:
    proc = pi(script=[{"text": "x", "toolCalls": [_call()]}, {"text": "never"}])
    proc.ok("set_host_tools", tools=[EDITOR])
    proc.ok("prompt", message="go")
    proc.wait_for("host_tool_request")
    assert proc.close() == 0
    results = [
        e["message"] for e in _session_entries(proc.agent_dir) if e.get("message", {}).get("role") == "toolResult"
    ]
    (result,) = results
    assert result["isError"] is True
    assert result["content"][0]["text"] == 'The client disconnected before answering host tool "open_editor"'


BAD_TOOL_LISTS = [
    (
        [{**EDITOR, "parameters": {"type": "object", "properties": {"p": {"type": "nope"}}}}],
        'tools[0] "open_editor": "parameters" is not a valid JSON Schema at /properties/p/type',
    ),
    ([{**EDITOR, "parameters": {"type": "string"}}], '"parameters" must be an object schema'),
    ([{**EDITOR, "name": "read"}], 'tools[0] "read": the name is taken by a builtin tool'),
    ([{**EDITOR, "name": "grep"}], 'tools[0] "grep": the name is taken by a builtin tool'),
    ([EDITOR, EDITOR], 'tools[1] "open_editor": duplicate name'),
    ([{**EDITOR, "name": "has space"}], 'tools[0]: "name" must be 1 to 64 letters'),
    ([{**EDITOR, "extra": 1}], 'tools[0] "open_editor": unknown field(s): extra'),
    ("nope", 'field "tools": expected array, got string'),
]


def test_bad_tool_lists_are_refused(pi: Callable[..., PiProcess]) -> None:
    proc = pi()
    for tools, error in BAD_TOOL_LISTS:
        response = proc.cmd("set_host_tools", tools=tools)
        assert response["success"] is False
        assert response["error"].startswith('Invalid command "set_host_tools": ')
        assert error in response["error"], (error, response["error"])
    # Nothing changed and the process keeps serving.
    assert "open_editor" not in [t["name"] for t in proc.ok("get_tools")["tools"]]
    assert proc.ok("set_host_tools", tools=[EDITOR]) == {"tools": ["open_editor"]}
    assert proc.ok("set_host_tools", tools=[]) == {"tools": []}
    assert "open_editor" not in [t["name"] for t in proc.ok("get_tools")["tools"]]


def test_arguments_are_validated_before_the_request(pi: Callable[..., PiProcess]) -> None:
    proc = pi(
        script=[{"text": "x", "toolCalls": [_call(path=5, extra=1) | {"arguments": {"wrong": 1}}]}, {"text": "ok"}]
    )
    proc.ok("set_host_tools", tools=[EDITOR])
    mark = proc.mark()
    proc.ok("prompt", message="go")
    end = proc.wait_for("tool_execution_end")
    assert end["isError"] is True
    assert end["result"]["content"][0]["text"].startswith(
        'Validation failed for tool "open_editor":\n  - path: missing'
    )
    proc.settle()
    assert not [r for r in proc.since(mark) if r.get("type") == "host_tool_request"]


def test_extension_hooks_see_host_tools(pi: Callable[..., PiProcess], tmp_path: Path) -> None:
    ext = tmp_path / "hooks.py"
    ext.write_text(
        "def setup(pi):\n"
        "    async def run(tool_call_id, params, signal, on_update, ctx):\n"
        "        return {'content': [{'type': 'text', 'text': 'x'}]}\n"
        "    for name in ('ext_tool', 'mcp__srv__lookup'):\n"
        "        pi.register_tool({'name': name, 'label': name, 'description': 'Registered.',\n"
        "                          'parameters': {'type': 'object', 'properties': {}}, 'execute': run})\n"
        "    @pi.on('tool_call')\n"
        "    async def gate(event, ctx):\n"
        "        if event['toolName'] == 'open_editor' and event['input']['path'] == 'secret':\n"
        "            return {'block': True, 'reason': 'blocked by the extension'}\n"
        "    @pi.on('tool_result')\n"
        "    async def after(event, ctx):\n"
        "        if event['toolName'] == 'open_editor':\n"
        "            return {'content': [{'type': 'text', 'text': 'seen: ' + event['content'][0]['text']}]}\n"
    )
    proc = pi(
        script=[{"text": "x", "toolCalls": [_call(path="secret"), _call(path="ok")]}, {"text": "done"}],
        args=("-e", str(ext)),
    )
    for name, source in (("ext_tool", "extension"), ("mcp__srv__lookup", "mcp")):
        refused = proc.cmd("set_host_tools", tools=[{**EDITOR, "name": name}])
        assert refused["error"].endswith(
            f'tools[0] "{name}": the name is taken by {"an" if source == "extension" else "a"} {source} tool'
        )
    proc.ok("set_host_tools", tools=[EDITOR])
    sources = {t["name"]: (t["source"], t["active"]) for t in proc.ok("get_tools")["tools"]}
    assert sources["ext_tool"] == ("extension", True) and sources["mcp__srv__lookup"] == ("mcp", True)
    assert sources["read"] == ("builtin", True) and sources["open_editor"] == ("host", True)
    # set_active_tools works through the extensions' loadout too.
    assert proc.ok("set_active_tools", names=["read", "ext_tool", "open_editor"]) == {
        "activeTools": ["read", "ext_tool", "open_editor"]
    }
    mark = proc.mark()
    proc.ok("prompt", message="go")
    request = proc.wait_for("host_tool_request")
    assert request["arguments"] == {"path": "ok"}
    proc.send({"type": "host_tool_result", "id": request["id"], "content": [{"type": "text", "text": "fine"}]})
    proc.settle()
    requests = [r for r in proc.since(mark) if r.get("type") == "host_tool_request"]
    assert len(requests) == 1
    texts = [r["content"][0]["text"] for r in _tool_results(proc)]
    assert texts == ["blocked by the extension", "seen: fine"]


def test_resumed_session_without_the_tools_keeps_history(pi: Callable[..., PiProcess], tmp_path: Path) -> None:
    root = tmp_path / "shared"
    script = [{"text": "x", "toolCalls": [_call()]}, {"text": "first done"}, {"text": "y", "toolCalls": [_call()]}]
    proc = pi(script=script)
    proc.ok("set_host_tools", tools=[EDITOR])
    proc.ok("prompt", message="go")
    request = proc.wait_for("host_tool_request")
    proc.send({"type": "host_tool_result", "id": request["id"], "content": [{"type": "text", "text": "r1"}]})
    proc.settle()
    session_file = proc.ok("get_state")["sessionFile"]
    assert proc.close() == 0
    del root
    again = pi(
        script=[{"text": "y", "toolCalls": [_call()]}, {"text": "second done"}], args=("--session", session_file)
    )
    assert [r["content"][0]["text"] for r in _tool_results(again)] == ["r1"]
    again.ok("prompt", message="again")
    again.settle()
    results = _tool_results(again)
    assert results[-1]["isError"] is True
    assert results[-1]["content"][0]["text"] == "Tool open_editor not found"
    assert again.ok("get_last_assistant_text")["text"] == "second done"


def test_get_tools_and_set_active_tools(pi: Callable[..., PiProcess]) -> None:
    proc = pi(script=[{"text": "a"}])
    proc.ok("set_host_tools", tools=[EDITOR])
    names = [t["name"] for t in proc.ok("get_tools")["tools"]]
    assert names[-1] == "open_editor" and {"read", "bash", "grep", "find", "ls"} <= set(names)
    refused = proc.cmd("set_active_tools", names=["read", "nope", "zap"])
    assert refused["success"] is False
    assert refused["error"].startswith("Unknown tool name(s): nope, zap (get_tools lists the session's tools: read,")
    assert proc.ok("set_active_tools", names=["grep", "open_editor"]) == {"activeTools": ["grep", "open_editor"]}
    active = {t["name"]: t["active"] for t in proc.ok("get_tools")["tools"]}
    assert active["grep"] is True and active["open_editor"] is True and active["read"] is False
    mark = proc.mark()
    proc.ok("prompt", message="hi")
    proc.settle()
    system = next(r["message"] for r in proc.since(mark) if r.get("type") == "message_end")
    assert "- grep:" in system["sections"]["tools"] and "- read:" not in system["sections"]["tools"]
    assert "open_editor" in system["sections"]["tools"]
    # Deactivating a host tool keeps it registered.
    assert proc.ok("set_active_tools", names=["read"]) == {"activeTools": ["read"]}
    assert {t["name"]: t["active"] for t in proc.ok("get_tools")["tools"]}["open_editor"] is False


def test_handles_address_their_own_session(pi: Callable[..., PiProcess]) -> None:
    proc = pi(script=[{"text": "x", "toolCalls": [_call()]}, {"text": "done"}])
    handle = proc.ok("open_session")["handle"]
    proc.ok("set_host_tools", handle=handle, tools=[EDITOR])
    assert "open_editor" not in [t["name"] for t in proc.ok("get_tools")["tools"]]
    assert "open_editor" in [t["name"] for t in proc.ok("get_tools", handle=handle)["tools"]]
    proc.ok("prompt", handle=handle, message="go")
    request = proc.wait_for("host_tool_request")
    assert request["handle"] == handle
    proc.send({"type": "host_tool_result", "id": request["id"], "content": [{"type": "text", "text": "ok"}]})
    end = proc.wait_for(is_event("tool_execution_end", handle=handle))
    assert end["isError"] is False


def test_a_client_that_never_uses_them_sees_no_new_records(pi: Callable[..., PiProcess]) -> None:
    proc = pi(script=[{"text": "x", "toolCalls": [{"name": "ls", "arguments": {}}]}, {"text": "done"}])
    proc.ok("prompt", message="go")
    end = proc.settle()
    kinds = {r.get("type") for r in proc.records}
    assert not kinds & {"host_tool_request", "host_tool_cancelled"}
    agent_end = [r for r in proc.records if r.get("type") == "agent_end"]
    assert all(set(r) == {"type", "messages", "willRetry"} for r in agent_end)
    assert end["aborted"] is False
    with pytest.raises(RecordTimeout):
        proc.read_record(0.2)
