"""``pi --mode rpc`` with MCP servers configured through ``mcp.json``: the real subprocess, real
MCP servers written with the ``mcp`` SDK (stdio and streamable HTTP on 127.0.0.1) and a scripted
model whose request bodies show what the model is told and given."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from .mcp_helpers import alive, demo_stdio, tool_decl, tool_messages, tool_names

DEMO_TOOLS = ["echo", "add", "image", "fail", "big", "slow", "crash", "get_thing", "grow", "empty", "link"]
RESOURCE_TOOLS = ["list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"]


def _calls(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "tool_calls": [{"name": name, "arguments": args, "id": f"call_{i}"} for i, (name, args) in enumerate(calls)]
    }


def _events(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r for r in records if r.get("type") == kind]


def _system_prompt(body: dict[str, Any]) -> str:
    return "\n\n".join(m["content"] for m in body["messages"] if m["role"] == "system")


def test_direct_tools_are_declared_with_their_schemas_and_results_reach_the_model(mcp_pi: Any, tmp_path: Path) -> None:
    session = mcp_pi(
        {"demo": demo_stdio(exposure="direct")},
        script=[
            _calls(
                ("mcp__demo__echo", {"text": "hi"}),
                ("mcp__demo__image", {}),
                ("mcp__demo__fail", {}),
                ("mcp__demo__big", {"size": 50000}),
                ("mcp__demo__add", {"a": 1, "b": 2}),
                ("read_mcp_resource", {"server": "demo", "uri": "file:///notes.txt"}),
            ),
            {"text": "done"},
        ],
    )
    records = session.prompt("go")
    first, second = session.bodies()
    assert tool_names(first) == [
        "read",
        "bash",
        "edit",
        "write",
        *(f"mcp__demo__{t}" for t in DEMO_TOOLS),
        *RESOURCE_TOOLS,
    ]
    echo = tool_decl(first, "mcp__demo__echo")
    assert echo["description"] == "Echo the text back."
    assert echo["parameters"] == {
        "type": "object",
        "properties": {"text": {"type": "string", "description": "Text to echo"}},
        "required": ["text"],
    }
    assert tool_decl(first, "mcp__demo__image")["parameters"] == {"type": "object", "properties": {}}
    results = {m["tool_call_id"]: m["content"] for m in tool_messages(second)}
    assert results["call_0"] == "echo: hi"
    assert results["call_2"] == "it failed"
    assert results["call_4"] == '{\n  "sum": 3\n}'
    assert results["call_5"] == "hello notes\n"
    big = results["call_3"]
    assert big.startswith(
        "Warning: truncated output (original token count: 12500)\nTotal output lines: 705\n\n0123456789"
    )
    full_path = big.rsplit("[Full output: ", 1)[1].split(" (read it with offset/limit)]")[0]
    assert "chars truncated…" in big and len(Path(full_path).read_text()) == 50000
    images = [
        part
        for m in second["messages"]
        if isinstance(m.get("content"), list)
        for part in m["content"]
        if part.get("type") == "image_url"
    ]
    assert len(images) == 1 and images[0]["image_url"]["url"].startswith("data:image/png;base64,")
    ends = {e["toolCallId"]: e for e in _events(records, "tool_execution_end")}
    assert ends["call_2"]["isError"] is True and ends["call_0"]["isError"] is False
    assert ends["call_0"]["result"] == {
        "content": [{"type": "text", "text": "echo: hi"}],
        "details": {"server": "demo", "tool": "echo"},
        "structuredContent": {"content": [{"type": "text", "text": "echo: hi"}], "isError": False},
    }
    assert ends["call_3"]["result"]["details"]["fullOutputPath"] == full_path


def test_codemode_is_the_default_and_scripts_call_mcp_tools(mcp_pi: Any) -> None:
    script = 'r = await tools.mcp__demo__echo(text="from script")\ntext(r["content"][0]["text"])\nreturn await describe_namespace("demo")'
    session = mcp_pi(
        {"demo": demo_stdio(description="The demo server")},
        script=[{"tool_call": {"name": "codemode", "arguments": {"code": script}, "id": "cm"}}, {"text": "done"}],
    )
    records = session.prompt("go")
    first, second = session.bodies()
    assert tool_names(first) == ["read", "bash", "edit", "write", "codemode"]
    assert tool_decl(first, "read")["description"].endswith("\n\nCodemode: `await tools.read(args)` returns a string.")
    assert "<mcp_servers>\n" in _system_prompt(
        first
    ) and "- mcp__demo (codemode): The demo server\n</mcp_servers>" in _system_prompt(first)
    starts = _events(records, "tool_execution_start")
    assert [(s["toolCallId"], s.get("parentToolCallId")) for s in starts] == [("cm", None), ("cm/1", "cm")]
    (result,) = tool_messages(second)
    assert result["content"].startswith("Script completed\nWall time ")
    assert "==> text 1/2 <==\necho: from script\n==> text 2/2 <==\n" in result["content"]
    assert '"description":"The demo server","instructions":"Demo tools for pi' in result["content"]
    tool_result = next(r["message"] for r in _events(records, "message_end") if r["message"]["role"] == "toolResult")
    assert tool_result["nestedCalls"] == {
        "calls": [
            {
                "id": "cm/1",
                "name": "mcp__demo__echo",
                "status": "ok",
                "arguments": {"text": "from script"},
                "durationMs": tool_result["nestedCalls"]["calls"][0]["durationMs"],
            }
        ],
        "complete": True,
    }


def test_deferred_tools_are_loaded_by_tool_search_and_stay_declared(mcp_pi: Any) -> None:
    session = mcp_pi(
        {"demo": demo_stdio(exposure="deferred")},
        script=[
            {"tool_call": {"name": "tool_search", "arguments": {"query": "echo text"}, "id": "s1"}},
            {"tool_call": {"name": "mcp__demo__echo", "arguments": {"text": "loaded"}, "id": "e1"}},
            {"text": "ok"},
            {"text": "again"},
        ],
    )
    session.prompt("find it")
    session.prompt("more")
    first, second, third, fourth = session.bodies()
    assert tool_names(first) == ["read", "bash", "edit", "write", "tool_search"]
    assert "- mcp__demo (tool_search)" in _system_prompt(first)
    (search,) = tool_messages(second)
    assert search["content"].startswith(
        "Loaded 8 tools. They are available from your next call:\n- mcp__demo__echo: Echo the text back."
    )
    assert "mcp__demo__echo" in tool_names(second)
    assert tool_messages(third)[-1]["content"] == "echo: loaded"
    assert "mcp__demo__echo" in tool_names(fourth)  # recorded in the transcript: still declared


def test_hidden_servers_are_unreachable(mcp_pi: Any) -> None:
    session = mcp_pi(
        {"demo": demo_stdio(exposure="hidden")}, script=[_calls(("mcp__demo__echo", {"text": "x"})), {"text": "ok"}]
    )
    records = session.prompt("go")
    first, second = session.bodies()
    assert tool_names(first) == ["read", "bash", "edit", "write"]
    assert "mcp_servers" not in _system_prompt(first)
    assert tool_messages(second)[0]["content"] == "Tool mcp__demo__echo not found"
    assert _events(records, "tool_execution_end")[0]["isError"] is True


def test_tool_exposure_overrides_pick_single_tools(mcp_pi: Any) -> None:
    session = mcp_pi(
        {
            "demo": demo_stdio(
                exposure="hidden", toolExposure={"echo": "direct", "get-*": "direct", "get-thing": "hidden"}
            )
        },
        script=[{"text": "ok"}],
    )
    session.prompt("go")
    (body,) = session.bodies()
    assert tool_names(body) == ["read", "bash", "edit", "write", "mcp__demo__echo"]


def test_a_server_that_crashes_mid_call_yields_an_error_and_reconnects(mcp_pi: Any, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    session = mcp_pi(
        {"demo": demo_stdio(exposure="direct", env={"DEMO_PID_FILE": str(pids)})},
        script=[_calls(("mcp__demo__crash", {})), _calls(("mcp__demo__echo", {"text": "back"})), {"text": "ok"}],
    )
    records = session.prompt("go")
    ends = _events(records, "tool_execution_end")
    assert ends[0]["isError"] is True and ends[0]["result"]["content"] == [
        {"type": "text", "text": "MCP connection closed"}
    ]
    assert ends[1]["isError"] is False and ends[1]["result"]["content"] == [{"type": "text", "text": "echo: back"}]
    assert len(pids.read_text().split()) == 2


def test_abort_during_a_slow_tool_returns_promptly_and_cancels_on_the_server(mcp_pi: Any, tmp_path: Path) -> None:
    events = tmp_path / "events"
    session = mcp_pi(
        {"demo": demo_stdio(exposure="direct", env={"DEMO_EVENTS_FILE": str(events)})},
        script=[_calls(("mcp__demo__slow", {"seconds": 60})), {"text": "never"}],
    )
    session.command({"type": "prompt", "message": "go"})
    session.proc.wait_for(lambda r: r.get("type") == "tool_execution_update", 30)
    aborted_at = time.monotonic()
    response = session.command({"type": "abort"})
    assert response["success"] is True
    assert time.monotonic() - aborted_at < 30  # far below the 60 s the call would take
    end = next(r for r in session.proc.records if r.get("type") == "tool_execution_end")
    assert end["result"]["content"] == [{"type": "text", "text": "MCP request aborted"}]
    deadline = time.monotonic() + 10
    while "cancelled slow" not in (events.read_text() if events.exists() else "") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "cancelled slow" in events.read_text()


@pytest.mark.parametrize("how", ["eof", "sigterm", "sighup", "sigkill"])
def test_no_server_survives_pi(mcp_pi: Any, tmp_path: Path, how: str) -> None:
    pids = tmp_path / "pids"
    session = mcp_pi(
        {
            "a": demo_stdio(exposure="direct", env={"DEMO_PID_FILE": str(pids)}),
            "b": demo_stdio(env={"DEMO_PID_FILE": str(pids)}),
        }
    )
    session.prompt("connect")  # waits for the direct server; the other connects in the background
    deadline = time.monotonic() + 30
    while len(pids.read_text().split() if pids.exists() else []) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    servers = [int(p) for p in pids.read_text().split()]
    assert len(servers) == 2 and all(alive(p) for p in servers)
    if how == "eof":
        session.proc.close_stdin()
    else:
        os.kill(session.proc.pid, {"sigterm": signal.SIGTERM, "sighup": signal.SIGHUP, "sigkill": signal.SIGKILL}[how])
    session.proc.wait(30)
    deadline = time.monotonic() + 10
    while any(alive(p) for p in servers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(p) for p in servers)


def test_http_servers(mcp_pi: Any, http_demo: Any) -> None:
    server = http_demo()
    session = mcp_pi(
        {"web": {"url": server.url, "headers": {"X-Test": "1"}, "exposure": "direct"}},
        script=[_calls(("mcp__web__echo", {"text": "over http"})), {"text": "ok"}],
    )
    records = session.prompt("go")
    assert "mcp__web__echo" in tool_names(session.bodies()[0])
    assert _events(records, "tool_execution_end")[0]["result"]["content"] == [
        {"type": "text", "text": "echo: over http"}
    ]


def test_a_changed_tool_list_is_declared_on_the_next_request(mcp_pi: Any) -> None:
    session = mcp_pi(
        {"demo": demo_stdio(exposure="direct")},
        script=[_calls(("mcp__demo__grow", {})), {"text": "ok"}, {"text": "after"}],
    )
    session.prompt("grow")
    time.sleep(0.5)  # the refresh is asynchronous; the next prompt reads the tools it produced
    session.prompt("again")
    bodies = session.bodies()
    assert "mcp__demo__extra" not in tool_names(bodies[0])
    assert "mcp__demo__extra" in tool_names(bodies[-1])


def test_commands_status_and_startup_warnings(mcp_pi: Any, tmp_path: Path) -> None:
    session = mcp_pi(
        {
            "demo": demo_stdio(exposure="direct"),
            "broken": {"command": "no-such-mcp-binary"},
            "off": demo_stdio(enabled=False),
            "old": {"url": "http://x/sse", "type": "sse"},
        },
    )
    warning = session.proc.wait_for(lambda r: r.get("method") == "notify" and r.get("notifyType") == "warning", 30)
    agent = tmp_path / "agent"
    assert warning["message"] == (
        "MCP servers need attention:\n"
        f'  config: {agent / "mcp.json"}: server "old": legacy SSE transport is not supported; use the streamable HTTP URL\n'
        "  broken: failed: spawn no-such-mcp-binary ENOENT\n"
        "Run /mcp to fix."
    )
    commands = session.command({"type": "get_commands"})["data"]["commands"]
    mcp = next(c for c in commands if c["name"] == "mcp")
    assert mcp["source"] == "extension" and mcp["sourceInfo"]["path"] == "builtin:mcp"
    start = len(session.proc.records)
    handled = session.command({"type": "prompt", "message": "/mcp"})
    assert handled["data"] == {"disposition": "handled"}
    status = next(r for r in session.proc.records[start:] if r.get("method") == "notify")
    assert status["message"] == (
        "demo: connected, 11 tools (direct)\n"
        "broken: failed (codemode)\n    spawn no-such-mcp-binary ENOENT\n"
        "off: disabled (codemode)\n"
        f'config error: {agent / "mcp.json"}: server "old": legacy SSE transport is not supported; use the streamable HTTP URL'
    )
    assert status["notifyType"] == "info"
    start = len(session.proc.records)
    session.command({"type": "prompt", "message": "/mcp frob"})
    usage = next(r for r in session.proc.records[start:] if r.get("method") == "notify")
    assert usage["message"] == "Usage: /mcp, /mcp login [server], /mcp logout [server], /mcp reconnect [server]"
    start = len(session.proc.records)
    session.command({"type": "prompt", "message": "/mcp reconnect demo"})
    reconnected = next(r for r in session.proc.records[start:] if r.get("method") == "notify")
    assert reconnected["message"] == 'Reconnected to MCP server "demo" (connected · 11 tools · resources).'
    assert "[demo] info demo:" not in (agent / "mcp.log").read_text() if (agent / "mcp.log").exists() else True


def test_no_mcp_turns_it_off(mcp_pi: Any, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    session = mcp_pi(
        {"demo": demo_stdio(exposure="direct", env={"DEMO_PID_FILE": str(pids)})},
        script=[{"text": "ok"}],
        args=("--no-mcp",),
    )
    session.prompt("go")
    (body,) = session.bodies()
    assert tool_names(body) == ["read", "bash", "edit", "write"]
    assert all(c["name"] != "mcp" for c in session.command({"type": "get_commands"})["data"]["commands"])
    assert not pids.exists()


def test_tools_patterns_filter_mcp_tools(mcp_pi: Any) -> None:
    session = mcp_pi(
        {"demo": demo_stdio(exposure="direct")}, script=[{"text": "ok"}], args=("--tools", "read,mcp__demo__e*")
    )
    session.prompt("go")
    assert tool_names(session.bodies()[0]) == ["read", "mcp__demo__echo", "mcp__demo__empty"]


def test_exclude_tools_patterns_remove_server_tools(mcp_pi: Any) -> None:
    # As upstream: the pattern removes the server tools; the resource tools are not named by it.
    session = mcp_pi(
        {"demo": demo_stdio(exposure="direct")}, script=[{"text": "ok"}], args=("--exclude-tools", "mcp__*,bash")
    )
    session.prompt("go")
    assert tool_names(session.bodies()[0]) == ["read", "edit", "write", *RESOURCE_TOOLS]


def test_server_log_notifications_go_to_mcp_log(mcp_pi: Any, tmp_path: Path) -> None:
    session = mcp_pi(
        {"demo": demo_stdio(exposure="direct")},
        script=[_calls(("mcp__demo__echo", {"text": "logged"})), {"text": "ok"}],
    )
    session.prompt("go")
    log = (tmp_path / "agent" / "mcp.log").read_text().splitlines()
    assert log[-1].endswith(" [demo] info demo: echoing logged")


def test_nothing_changes_without_mcp_servers(spawn_pi: Any) -> None:
    """Without an mcp.json the MCP built-ins do not load: no tools; like upstream, `mcp` is still
    listed and `/mcp` answers that nothing is configured (without a run)."""
    proc = spawn_pi("--no-session")
    proc.send({"id": "c", "type": "get_commands"})
    assert proc.response("c")["data"]["commands"] == [
        {
            "name": "mcp",
            "description": "Manage MCP servers: sign in, reconnect, enable or disable, and change exposure",
            "source": "extension",
            "sourceInfo": {"path": "builtin:mcp", "source": "builtin", "scope": "temporary", "origin": "top-level"},
        }
    ]
    agent = Path(proc.agent_dir)
    replies = {}
    for n, args in enumerate(["", "reconnect", "logout", "login x", "reconnect x y", "status"]):
        start = len(proc.records)
        proc.send({"id": f"m{n}", "type": "prompt", "message": f"/mcp {args}".rstrip()})
        assert proc.response(f"m{n}")["data"] == {"disposition": "handled"}
        (notify,) = [r for r in proc.records[start:] if r.get("type") == "extension_ui_request"]
        assert notify["method"] == "notify"
        replies[args] = (notify["message"], notify["notifyType"])
    usage = ("Usage: /mcp, /mcp login [server], /mcp logout [server], /mcp reconnect [server]", "warning")
    assert replies == {  # upstream 1.6.0's answers
        "": (f"No MCP servers configured. Add them to {agent / 'mcp.json'} or .pi/mcp.json.", "info"),
        "reconnect": ("No enabled MCP server to reconnect.", "info"),
        "logout": ("No enabled MCP server uses OAuth. Only HTTP servers without an Authorization header do.", "info"),
        "login x": ('No MCP server named "x".', "error"),
        "reconnect x y": usage,
        "status": usage,
    }
    proc.send({"id": "s", "type": "steer", "message": "/mcp"})
    assert proc.response("s")["error"] == (
        'Extension command "/mcp" cannot be queued. Use prompt() or execute the command when not streaming.'
    )
    proc.send({"id": "t", "type": "prompt", "message": "hello"})
    system = proc.wait_for(lambda r: r.get("type") == "message_end" and r["message"]["role"] == "system")
    assert [t["name"] for t in system["message"]["toolsAdded"]] == ["read", "bash", "edit", "write"]


def test_no_mcp_flag_removes_the_command(spawn_pi: Any) -> None:
    proc = spawn_pi("--no-session", "--no-mcp")
    proc.send({"id": "c", "type": "get_commands"})
    assert proc.response("c")["data"]["commands"] == []
    proc.send({"id": "m", "type": "prompt", "message": "/mcp"})
    assert proc.response("m")["data"] == {"disposition": "started"}  # plain text for the model


def _imported(tmp_path: Path, env: dict[str, str]) -> tuple[set[str], list[str]]:
    """Modules a session imports while answering ``get_commands``, and the command names."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pi_rpc", "--mode", "rpc", "--no-session"],
        input=b'{"id":"c","type":"get_commands"}\n',
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    response = json.loads(run.stdout.splitlines()[0])
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in run.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return names, [c["name"] for c in response["data"]["commands"]]


def test_startup_without_mcp_servers_loads_nothing_of_mcp(tmp_path: Path, pi_environ: Any) -> None:
    env = pi_environ()
    plain, commands = _imported(tmp_path, env)
    assert commands == ["mcp"]  # listed as upstream, without loading MCP or the extension runtime
    loaded = {n for n in plain if n == "mcp" or n.startswith(("mcp.", "pi_rpc.mcp.", "pi_rpc.extensions.runner"))}
    assert loaded <= {"pi_rpc.mcp.activation", "pi_rpc.mcp.command"}
    (Path(env["PI_CODING_AGENT_DIR"]) / "mcp.json").write_text(json.dumps({"mcpServers": {}}))
    _configured, commands = _imported(tmp_path, env)
    assert "mcp" in commands


def test_codemode_without_mcp_servers(mcp_pi: Any, tmp_path: Path) -> None:
    (tmp_path / "cwd").mkdir(exist_ok=True)
    (tmp_path / "cwd" / "notes.txt").write_text("first line\nsecond line\n")
    script = 'a, b = await asyncio.gather(tools.read(path="notes.txt"), tools.bash(command="echo from bash"))\ntext(a.splitlines()[1])\ntext(b.strip())'
    session = mcp_pi(
        {},
        script=[{"tool_call": {"name": "codemode", "arguments": {"code": script}, "id": "cm"}}, {"text": "ok"}],
        args=("--tools", "+codemode"),
    )
    (tmp_path / "agent" / "mcp.json").unlink()  # no MCP at all: the built-in loads for --tools +codemode
    records = session.prompt("go")
    first, second = session.bodies()
    assert tool_names(first) == ["read", "bash", "edit", "write", "codemode"]
    assert "mcp_servers" not in _system_prompt(first)
    (result,) = tool_messages(second)
    assert "==> text 1/2 <==\nsecond line\n==> text 2/2 <==\nfrom bash" in result["content"]
    assert [s.get("parentToolCallId") for s in _events(records, "tool_execution_start")] == [None, "cm", "cm"]


def test_tools_loaded_by_tool_search_are_declared_again_on_resume(mcp_pi: Any, tmp_path: Path) -> None:
    sessions = ("--session-dir", str(tmp_path / "sessions"))
    servers = {"demo": demo_stdio(exposure="deferred")}
    first = mcp_pi(
        servers,
        script=[
            {"tool_call": {"name": "tool_search", "arguments": {"query": "echo", "limit": 1}, "id": "s1"}},
            {"text": "loaded"},
        ],
        args=sessions,
        no_session=False,
    )
    first.prompt("load echo")
    assert "mcp__demo__echo" in tool_names(first.bodies()[-1])
    first.proc.close_stdin()
    first.proc.wait(30)
    resumed = mcp_pi(servers, script=[{"text": "resumed"}], args=(*sessions, "--continue"), no_session=False)
    resumed.command({"type": "prompt", "message": "/mcp"})  # waits for the servers to connect
    resumed.prompt("again")
    (body,) = resumed.bodies()
    assert tool_names(body) == ["read", "bash", "edit", "write", "tool_search", "mcp__demo__echo"]


def test_codemode_only_mode_hides_declared_tools_behind_scripts(mcp_pi: Any) -> None:
    script = 'return await tools.read(path="f.txt")'
    session = mcp_pi(
        {"demo": demo_stdio()},
        script=[{"tool_call": {"name": "codemode", "arguments": {"code": script}, "id": "cm"}}, {"text": "ok"}],
        settings={"codemode": {"mode": "only"}},
    )
    (session.proc.cwd / "f.txt").write_text("file text")
    session.prompt("go")
    first, second = session.bodies()
    assert tool_names(first) == ["codemode"]
    description = tool_decl(first, "codemode")["description"]
    assert "### `read`" in description and "### `bash`" in description
    assert "file text" in tool_messages(second)[0]["content"]
    # The prompt lists only what the request declares (upstream's hiddenTools): the hidden
    # built-ins are neither in the tool list nor in the rules.
    prompt = _system_prompt(first)
    tools_section = prompt.split("<tools>\n", 1)[1].split("\n</tools>", 1)[0]
    listed = [line.split(":", 1)[0] for line in tools_section.splitlines() if line.startswith("- ")]
    assert listed == ["- codemode"]
    rules = prompt.split("<rules>\n", 1)[1].split("\n</rules>", 1)[0]
    assert "Use codemode to run independent tool calls together" in rules
    assert "bash" not in rules


GATE = """
def setup(pi):
    @pi.on("tool_call")
    def gate(event, ctx):
        tool = next(t for t in pi.get_all_tools() if t["name"] == event["toolName"])
        ctx.ui.notify(f"{event['toolName']} {tool.get('annotations')} {tool['exposure']}", "info")
        if not (tool.get("annotations") or {}).get("readOnlyHint"):
            return {"block": True, "reason": "only read-only MCP tools"}

    @pi.on("tool_result")
    def tag(event, ctx):
        return {"content": event["content"] + [{"type": "text", "text": "(checked)"}]}
"""


def test_extension_hooks_gate_mcp_tools_by_their_annotations(mcp_pi: Any, tmp_path: Path) -> None:
    (tmp_path / "gate.py").write_text(GATE)
    session = mcp_pi(
        {"demo": demo_stdio(exposure="direct")},
        script=[_calls(("mcp__demo__echo", {"text": "ok"}), ("mcp__demo__fail", {})), {"text": "done"}],
        args=("-e", str(tmp_path / "gate.py")),
    )
    records = session.prompt("go")
    notes = sorted(r["message"] for r in records if r.get("method") == "notify")
    assert notes == [
        "mcp__demo__echo {'readOnlyHint': True, 'openWorldHint': False} direct",
        "mcp__demo__fail None direct",
    ]
    ends = {e["toolCallId"]: e for e in _events(records, "tool_execution_end")}
    assert ends["call_0"]["result"]["content"] == [
        {"type": "text", "text": "echo: ok"},
        {"type": "text", "text": "(checked)"},
    ]
    assert (
        ends["call_1"]["isError"] is True
        and ends["call_1"]["result"]["content"][0]["text"] == "only read-only MCP tools"
    )


def test_a_new_session_stops_the_servers_and_connects_them_again(mcp_pi: Any, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    session = mcp_pi(
        {"demo": demo_stdio(exposure="direct", env={"DEMO_PID_FILE": str(pids)})},
        script=[{"text": "first"}, _calls(("mcp__demo__echo", {"text": "second session"})), {"text": "ok"}],
    )
    session.prompt("one")
    (first,) = (int(p) for p in pids.read_text().split())
    assert session.command({"type": "new_session"})["data"] == {"cancelled": False}
    records = session.prompt("two")
    assert _events(records, "tool_execution_end")[0]["result"]["content"] == [
        {"type": "text", "text": "echo: second session"}
    ]
    deadline = time.monotonic() + 10
    while alive(first) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(first) and len(pids.read_text().split()) == 2


@pytest.mark.parametrize("mode", ["print", "json"])
def test_print_and_json_modes_wait_for_direct_servers_and_stop_them(tmp_path: Path, pi_environ: Any, mode: str) -> None:
    env = pi_environ()
    pids = tmp_path / "pids"
    agent = Path(env["PI_CODING_AGENT_DIR"])
    (agent / "mcp.json").write_text(
        json.dumps({"mcpServers": {"demo": demo_stdio(exposure="direct", env={"DEMO_PID_FILE": str(pids)})}})
    )
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps([{"toolCalls": [{"name": "mcp__demo__echo", "arguments": {"text": "one shot"}}]}, {"text": "done"}])
    )
    (tmp_path / "cwd").mkdir(exist_ok=True)
    args = ["-p"] if mode == "print" else ["--mode", "json"]
    run = subprocess.run(
        [sys.executable, "-m", "pi_rpc", *args, "--model", "faux/faux-1", "--faux-script", str(script), "hi"],
        cwd=tmp_path / "cwd",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    if mode == "print":
        assert run.stdout == "done\n"
    else:
        ends = [json.loads(line) for line in run.stdout.splitlines() if '"tool_execution_end"' in line]
        assert ends[0]["result"]["content"] == [{"type": "text", "text": "echo: one shot"}]
    deadline = time.monotonic() + 10
    while any(alive(int(p)) for p in pids.read_text().split()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(int(p)) for p in pids.read_text().split())
