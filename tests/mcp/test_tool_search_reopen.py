"""Tools ``tool_search`` loaded stay declared when the session is reopened (issue 25): the load is
recorded in the transcript (a system message's ``toolsAdded``) and restored from it as upstream
does, with a REAL ``pi --mode rpc`` and the stdio demo MCP server (exposure ``deferred``).

The reopening process is prompted at once, before its MCP server has connected: the first
prompt waits for the servers whose tools the transcript declares, and tools that register while
``before_agent_start`` runs are still restored (the restore list is dropped only after it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .mcp_helpers import demo_stdio, tool_names

LOAD_ECHO = [
    {"tool_call": {"name": "tool_search", "arguments": {"query": "echo", "limit": 1}, "id": "s1"}},
    {"text": "loaded"},
]
BASE = ["read", "bash", "edit", "write", "tool_search"]


def _session_with_echo_loaded(mcp_pi: Any, tmp_path: Path) -> tuple[tuple[str, ...], dict[str, Any], str]:
    """A session file in which ``tool_search`` loaded ``mcp__demo__echo``; its process is gone."""
    sessions = ("--session-dir", str(tmp_path / "sessions"))
    servers = {"demo": demo_stdio(exposure="deferred")}
    first = mcp_pi(servers, script=LOAD_ECHO, args=sessions, no_session=False)
    first.prompt("load echo")
    assert tool_names(first.bodies()[-1]) == [*BASE, "mcp__demo__echo"]
    path = first.command({"type": "get_state"})["data"]["sessionFile"]
    first.proc.popen.kill()  # every entry is on disk already; the lock dies with the process
    first.proc.popen.wait(10)
    entries = [json.loads(line) for line in Path(path).read_text().splitlines()]
    recorded = [
        t["name"]
        for e in entries
        if e.get("type") == "message" and e["message"]["role"] == "system"
        for t in e["message"].get("toolsAdded") or []
    ]
    assert "mcp__demo__echo" in recorded
    return sessions, servers, path


def test_deferred_tools_loaded_by_tool_search_are_declared_in_a_new_process(mcp_pi: Any, tmp_path: Path) -> None:
    sessions, servers, path = _session_with_echo_loaded(mcp_pi, tmp_path)
    reopened = mcp_pi(
        servers,
        script=[{"text": "again"}, {"text": "and again"}],
        args=(*sessions, "--session", path),
        no_session=False,
    )
    reopened.prompt("first prompt, sent before the server connected")
    reopened.prompt("second prompt")
    first, second = reopened.bodies()
    assert tool_names(first) == [*BASE, "mcp__demo__echo"]
    assert tool_names(second) == [*BASE, "mcp__demo__echo"]


def test_deferred_tools_loaded_by_tool_search_are_declared_after_switch_session(mcp_pi: Any, tmp_path: Path) -> None:
    sessions, servers, path = _session_with_echo_loaded(mcp_pi, tmp_path)
    other = mcp_pi(servers, script=[{"text": "elsewhere"}, {"text": "switched"}], args=sessions, no_session=False)
    other.prompt("in another session")
    assert tool_names(other.bodies()[0]) == BASE
    assert other.command({"type": "switch_session", "sessionPath": path})["success"] is True
    other.prompt("after switching")
    assert tool_names(other.bodies()[1]) == [*BASE, "mcp__demo__echo"]
