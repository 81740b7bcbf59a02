"""Extensions register MCP servers (``pi.register_mcp_server``) and the built-in MCP support
connects them: at ``session_start`` for servers registered while loading (no ``mcp.json``
needed), at once for later ones (``mcp_servers_change``); re-registering with another config
reconnects, unregistering closes the connection; invalid names and configs, another
extension's name raise with upstream's texts. Runs the real demo MCP server; compared with
upstream running the TypeScript original when it is installed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .ext_upstream import OURS, UPSTREAM, UPSTREAM_AVAILABLE, drive

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "extensions"
DEMO = REPO / "tests" / "mcp" / "servers" / "demo_server.py"
ENV = {"DEMO_PY": sys.executable, "DEMO_SERVER": str(DEMO)}
DEMO_TOOLS = [
    f"mcp__demo__{t}"
    for t in ("echo", "add", "image", "fail", "big", "slow", "crash", "get_thing", "grow", "empty", "link")
]


def _steps() -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = [{"cmd": {"id": "p0", "type": "prompt", "message": "hi"}, "wait": "agent_settled"}]
    for n, action in enumerate(["tools", "add", "tools", "steal", "readd", "tools", "del", "del-other", "tools"]):
        steps.append(
            {"cmd": {"id": f"c{n}", "type": "prompt", "message": "/steal" if action == "steal" else f"/reg {action}"}}
        )
    steps.append({"cmd": {"id": "m", "type": "prompt", "message": "/mcp"}})
    steps.append({"cmd": {"id": "p1", "type": "prompt", "message": "hi"}, "wait": "agent_settled"})
    return steps


def _run(argv: list[str], root: Path, suffix: str, *extra: str) -> tuple[list[str], list[Any]]:
    ext, other = FIXTURES / f"register_mcp.{suffix}", FIXTURES / f"steal_mcp.{suffix}"
    run = drive(
        argv, root, [{"text": "a"}, {"text": "b"}], _steps(), args=("-e", str(ext), "-e", str(other), *extra), env=ENV
    )
    ui = [line.replace(str(ext), "<EXT>").replace(sys.executable, "<PY>") for line in run.ui()]
    tools = [[name for name in turn[-1][1] if name.startswith("mcp__")] for turn in run.conversation()]
    return ui, tools


def test_registered_servers_connect_and_follow_changes(tmp_path: Path) -> None:
    ui, tools = _run(OURS, tmp_path, "py")
    assert ui[0] == (
        'setup-errors: Invalid MCP server registered by extension "<EXT>": invalid server name "bad name!" (use letters, digits, "_" and "-")'
        ' | Invalid MCP server registered by extension "<EXT>": server "nocmd" needs either "command" (stdio) or "url" (streamable HTTP) | ok'
    )
    assert ui[1] == (
        'servers: [{"name":"demo","config":{"command":"<PY>","args":["'
        + str(DEMO)
        + '"],"exposure":"direct"},"extensionPath":"<EXT>"},'
        '{"name":"demo_x","config":{"command":"x"},"extensionPath":"<EXT>"}]'
    )
    assert ui[2] == "MCP servers need attention:\n  demo_x: failed: spawn x ENOENT\nRun /mcp to fix."
    assert ui[3] == "tools: " + ",".join(DEMO_TOOLS)
    assert 'steal: MCP server "demo" is already registered by extension "<EXT>"' in ui
    changes = [line for line in ui if line.startswith("change: ")]
    assert changes == [
        'change: ["demo","demo_x","demo2"] keys=servers,type',
        'change: ["demo","demo_x","demo2"] keys=servers,type',
        'change: ["demo","demo_x"] keys=servers,type',
    ]
    # demo2 is gone after "del": /mcp lists the registered servers that remain.
    assert ui[-1] == "demo: connected, 11 tools (direct)\ndemo_x: failed (codemode)\n    spawn x ENOENT"
    assert tools == [DEMO_TOOLS, DEMO_TOOLS]  # no mcp.json: the registered server's tools
    if UPSTREAM_AVAILABLE:
        up_ui, up_tools = _run(UPSTREAM, tmp_path / "up", "ts")
        # Upstream starts mcp_servers_change handlers inside the registering call; ours once it
        # returned (§8.13): compare without the change lines, and those on their own.
        assert [line for line in up_ui if not line.startswith("change: ")] == [
            line for line in ui if not line.startswith("change: ")
        ]
        assert [line for line in up_ui if line.startswith("change: ")] == changes
        assert up_tools == tools


def test_registration_without_mcp_support_is_reported(tmp_path: Path) -> None:
    source = (
        "def setup(pi):\n"
        "    async def add(args, ctx):\n"
        "        pi.register_mcp_server('late', {'command': 'x'})\n"
        "    pi.register_command('add', {'handler': add})\n"
    )
    ext = tmp_path / "late.py"
    ext.write_text(source)
    run = drive(
        OURS,
        tmp_path / "run",
        [],
        [{"cmd": {"id": "a", "type": "prompt", "message": "/add"}}, {"cmd": {"id": "s", "type": "get_state"}}],
        args=("-e", str(ext), "--no-mcp"),
    )
    errors = [r for r in run.records if r.get("type") == "extension_error"]
    assert errors == [
        {
            "type": "extension_error",
            "extensionPath": str(ext),
            "event": "register_mcp_server",
            "error": 'MCP server "late" is registered, but no loaded extension connects MCP servers; another extension may have replaced the built-in MCP support',
        }
    ]
