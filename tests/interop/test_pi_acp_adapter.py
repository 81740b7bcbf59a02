"""The ``pi-acp`` adapter (npm) on top of OUR RPC mode, driven by the official ACP client SDK,
as an editor would: it spawns ``pi --mode rpc --no-themes [--session <file>]`` from PATH and
translates. A prompt with a tool call, a cancel during a tool, and a reload of the session
(``--session``). A logging ``pi`` shim records every argv and every command line the adapter
sends, so the test checks that ours accepts all of them (no unknown command, no invalid field,
no refused flag). Skipped when Node.js >= 20 or npm is missing (or the registry is
unreachable for the one-time install)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

pytest.importorskip("acp")
from acp import schema  # noqa: E402
from acp.stdio import spawn_agent_process  # noqa: E402

PI_ACP_VERSION = "0.0.34"
CACHE = Path(os.environ.get("PI_RPC_TEST_CACHE", Path.home() / ".cache" / "pi_rpc-tests"))

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _node_major() -> int:
    node = shutil.which("node")
    if node is None:
        return 0
    out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    try:
        return int(out.lstrip("v").split(".")[0])
    except ValueError:
        return 0


@pytest.fixture(scope="session")
def pi_acp_entry() -> Path:
    if _node_major() < 20 or shutil.which("npm") is None:
        pytest.skip("Node.js >= 20 and npm are needed for the pi-acp adapter")
    prefix = CACHE / f"pi-acp-{PI_ACP_VERSION}"
    entry = prefix / "node_modules" / "pi-acp" / "dist" / "index.js"
    if not entry.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(
            [
                "npm",
                "install",
                "--prefix",
                str(prefix),
                f"pi-acp@{PI_ACP_VERSION}",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if proc.returncode != 0 or not entry.exists():
            pytest.skip(f"could not install pi-acp@{PI_ACP_VERSION} from the npm registry: {proc.stderr[-500:]}")
    return entry


SHIM = """#!/bin/bash
# Records how the adapter runs pi, then runs ours with the same arguments.
printf '%s\\n' "$*" >> "{log}/argv.log"
if [ "$1" != "--mode" ]; then exec "{python}" -m pi_rpc "$@"; fi
tee -a "{log}/stdin.log" | "{python}" -m pi_rpc "$@" | tee -a "{log}/stdout.log"
"""


class Editor:
    def __init__(self) -> None:
        self.updates: list = []
        self.watch: list = []

    async def session_update(self, session_id, update, **kwargs):
        self.updates.append(update)
        for predicate, event in list(self.watch):
            if predicate(update):
                event.set()

    async def request_permission(self, session_id, tool_call, options, **kwargs):
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(option_id=options[0].option_id, outcome="selected")
        )

    def when(self, predicate):
        event = anyio.Event()
        self.watch.append((predicate, event))
        return event


async def test_pi_acp_adapter_over_our_rpc_mode(pi_acp_entry: Path, tmp_path: Path, pi_environ) -> None:
    log = tmp_path / "log"
    log.mkdir()
    shim_dir = tmp_path / "bin"
    shim_dir.mkdir()
    shim = shim_dir / "pi"
    shim.write_text(SHIM.format(log=log, python=sys.executable))
    shim.chmod(0o755)
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {"toolCalls": [{"name": "bash", "arguments": {"command": "echo adapter-tool-output"}}]},
                {"text": "Saw adapter-tool-output."},
                {"toolCalls": [{"name": "bash", "arguments": {"command": "sleep 30"}}]},
                {"text": "not reached"},
            ]
        )
    )
    env = pi_environ({"PI_FAUX_SCRIPT": str(script)})
    env["PATH"] = f"{shim_dir}{os.pathsep}{env['PATH']}"
    cwd = tmp_path / "project"
    cwd.mkdir()
    editor = Editor()
    node = shutil.which("node")
    assert node is not None
    with anyio.fail_after(90):
        async with spawn_agent_process(editor, node, str(pi_acp_entry), env=env, cwd=str(cwd)) as (conn, process):
            await conn.initialize(protocol_version=1, client_capabilities=schema.ClientCapabilities())
            session = await conn.new_session(cwd=str(cwd), mcp_servers=[])
            result = await conn.prompt(
                session_id=session.session_id, prompt=[schema.TextContentBlock(type="text", text="use the tool")]
            )
            assert result.stop_reason == "end_turn"
            text = "".join(u.content.text for u in editor.updates if u.session_update == "agent_message_chunk")
            assert "Saw adapter-tool-output." in text
            tool_updates = [u for u in editor.updates if u.session_update in ("tool_call", "tool_call_update")]
            assert any(getattr(u, "status", None) == "completed" for u in tool_updates)

            running = editor.when(
                lambda u: (
                    u.session_update in ("tool_call", "tool_call_update")
                    and getattr(u, "status", None) == "in_progress"
                )
            )
            outcome = {}

            async def turn() -> None:
                outcome["r"] = await conn.prompt(
                    session_id=session.session_id, prompt=[schema.TextContentBlock(type="text", text="slow")]
                )

            async with anyio.create_task_group() as tg:
                tg.start_soon(turn)
                await running.wait()
                await conn.cancel(session_id=session.session_id)
            assert outcome["r"].stop_reason == "cancelled"

            await conn.load_session(cwd=str(cwd), session_id=session.session_id, mcp_servers=[])
            replayed = [u for u in editor.updates if u.session_update == "user_message_chunk"]
            assert replayed, "the adapter replays the session it reopened with --session"

    argv = (log / "argv.log").read_text().splitlines()
    rpc_runs = [a for a in argv if a.startswith("--mode rpc")]
    assert rpc_runs and all(a.split()[:3] == ["--mode", "rpc", "--no-themes"] for a in rpc_runs)
    assert any("--session" in a.split() for a in rpc_runs)
    sent = [json.loads(line) for line in (log / "stdin.log").read_text().splitlines() if line.strip()]
    answers = [json.loads(line) for line in (log / "stdout.log").read_text().splitlines() if line.strip()]
    responses = {(r.get("id"), r.get("command")): r for r in answers if r.get("type") == "response"}
    refused = [
        r
        for r in responses.values()
        if not r["success"] and ("Unknown command" in r["error"] or "Invalid command" in r["error"])
    ]
    assert refused == []
    kinds = {c["type"] for c in sent}
    assert {"prompt", "abort", "get_state"} <= kinds
    unanswered = [c for c in sent if c["type"] != "extension_ui_response" and (c.get("id"), c["type"]) not in responses]
    assert unanswered == []
