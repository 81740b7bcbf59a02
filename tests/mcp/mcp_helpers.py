"""Helpers for the MCP tests: the demo MCP server (``servers/demo_server.py``, written with the
``mcp`` SDK) over stdio or streamable HTTP on 127.0.0.1, a ``pi --mode rpc`` session configured
through ``mcp.json`` and driven by a scripted model that records request bodies."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from protocol.conformance.scripted_llm import ScriptedLLM, write_agent_config  # noqa: F401 (re-exported)

SERVERS = Path(__file__).resolve().parent / "servers"
DEMO = str(SERVERS / "demo_server.py")


def demo_stdio(**extra: Any) -> dict[str, Any]:
    """An ``mcpServers`` entry running the demo server over stdio."""
    return {"command": sys.executable, "args": [DEMO], **extra}


class HttpDemo:
    def __init__(self, tmp: Path, env: dict[str, str] | None = None) -> None:
        port_file = tmp / f"port-{time.monotonic_ns()}"
        self.proc = subprocess.Popen(
            [sys.executable, DEMO, "--http", "0", "--port-file", str(port_file)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
        )
        deadline = time.monotonic() + 30
        while not port_file.exists():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("demo HTTP server did not start")
            time.sleep(0.02)
        self.port = int(port_file.read_text())
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)


class McpSession:
    """A ``pi --mode rpc`` process with MCP servers configured, driven by a scripted model."""

    def __init__(self, proc: Any, llm: ScriptedLLM, agent: Path) -> None:
        self.proc = proc
        self.llm = llm
        self.agent = agent
        self._next = 0

    def command(self, cmd: dict[str, Any], timeout: float = 20.0) -> dict[str, Any]:
        self._next += 1
        cmd = {"id": f"c{self._next}", **cmd}
        self.proc.send(cmd)
        return self.proc.response(cmd["id"], timeout)

    def prompt(self, message: str, timeout: float = 30.0) -> list[dict[str, Any]]:
        """Send a prompt and return every record up to its ``agent_settled``."""
        start = len(self.proc.records)
        response = self.command({"type": "prompt", "message": message}, timeout)
        assert response["success"], response
        while not any(r.get("type") == "agent_settled" for r in self.proc.records[start:]):
            self.proc.read_record(timeout)
        return self.proc.records[start:]

    def bodies(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.llm.requests if isinstance(r.get("body"), dict)]


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools") or []]


def tool_decl(body: dict[str, Any], name: str) -> dict[str, Any]:
    return next(t["function"] for t in body.get("tools") or [] if t["function"]["name"] == name)


def tool_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body["messages"] if m["role"] == "tool"]


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped counts as dead)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("State:"):
                    return "Z" not in line.split()[1]
    except FileNotFoundError:
        return False
    return False


@pytest.fixture
def http_demo(tmp_path: Path) -> Iterator[Callable[..., HttpDemo]]:
    """``http_demo(env=None)`` starts a demo server over streamable HTTP on 127.0.0.1; each one
    started is stopped after the test (a fixture here so that other test folders import it)."""
    servers: list[HttpDemo] = []

    def start(env: dict[str, str] | None = None) -> HttpDemo:
        server = HttpDemo(tmp_path, env)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
