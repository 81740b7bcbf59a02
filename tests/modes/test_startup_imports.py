"""What ``pi --mode rpc`` imports before it serves its first command (the startup goal; each of the
test suite's ~1,350 spawned processes pays for every module on this path): a plain session
with no extension answers ``get_state`` and exits at EOF without importing what only a model
request, a compaction, an extension, MCP, packages, virtual models, images or another mode
need. ``tests/modes/test_early_answer.py`` holds the stricter rule for the early answer.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

# Each name: that module and its submodules. What is loaded where it is needed, not before.
NOT_AT_STARTUP = (
    # the first model request (the provider, its HTTP stack and what httpx pulls in)
    "httpx",
    "httpcore",
    "h11",
    "email",
    "http.client",
    "http.cookiejar",
    "urllib.request",
    "hashlib",
    "pi_rpc.ai.stream",
    "pi_rpc.ai.http",
    "pi_rpc.ai.providers.faux",
    "pi_rpc.ai.providers.openai_completions",
    "pi_rpc.ai.providers.anthropic_messages",
    "pi_rpc.ai.providers.openai_responses",
    # validation and optional features
    "pydantic",
    "jsonschema",
    "PIL",
    "yaml",
    "pi_rpc.tools.images",
    "pi_rpc.tools.bash_executor",
    # compaction beyond the decision after a turn
    "pi_rpc.compaction.compact",
    "pi_rpc.compaction.preparation",
    # extensions, MCP and packages when none is configured
    "pi_rpc.extensions.loader",
    "pi_rpc.extensions.runner",
    "pi_rpc.extensions.host",
    "mcp",
    "pi_rpc.mcp.manager",
    "pi_rpc.mcp.connection",
    "pi_rpc.packages",
    # virtual models when no extension registered one
    "pi_rpc.ai.models.virtual",
    # other session stores and other modes
    "sqlite3",
    "pi_rpc.session.sqlite_store",
    "pi_rpc.session.postgres_store",
    "pi_rpc.modes.interactive",
    "pi_rpc.modes.acp",
    "pi_rpc.modes.print_mode",
)

# Runs the real entry point (``pi_rpc.cli.main``) with stdin a pipe holding one ``get_state``;
# at exit, writes the loaded modules to the file named by argv[1] (stdout is the protocol's).
# argv[2]: a module imported first (the planted-violation test), or "".
PROBE = """
import atexit, json, sys
out, plant, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
def dump():
    with open(out, "w") as fh:
        json.dump(sorted(sys.modules), fh)
atexit.register(dump)
if plant:
    __import__(plant)
from pi_rpc.cli import main
raise SystemExit(main(["--mode", "rpc", *argv]))
"""


def unwanted(loaded: list[str]) -> list[str]:
    """The modules of ``loaded`` that ``NOT_AT_STARTUP`` names (or their submodules)."""
    return sorted(m for m in loaded if any(m == name or m.startswith(name + ".") for name in NOT_AT_STARTUP))


def _startup_modules(pi_environ: Any, tmp_path: Path, argv: list[str], plant: str = "") -> list[str]:
    out = tmp_path / "modules.json"
    cwd = tmp_path / "cwd"
    cwd.mkdir(exist_ok=True)
    run = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), plant, *argv],
        input=b'{"id":"s","type":"get_state"}\n',
        capture_output=True,
        env=pi_environ(),
        cwd=cwd,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr.decode()
    first = json.loads(run.stdout.splitlines()[0])
    assert first["id"] == "s" and first["success"] is True
    loaded: list[str] = json.loads(out.read_text())
    return loaded


@pytest.mark.parametrize("argv", [["--no-session"], []], ids=["in memory", "session file"])
def test_rpc_startup_imports_nothing_the_first_command_does_not_need(
    pi_environ: Any, tmp_path: Path, argv: list[str]
) -> None:
    loaded = _startup_modules(pi_environ, tmp_path, argv)
    assert "pi_rpc.runtime.session" in loaded  # the probe ran the whole startup
    assert unwanted(loaded) == []


def test_the_startup_import_gate_sees_a_planted_import(pi_environ: Any, tmp_path: Path) -> None:
    loaded = _startup_modules(pi_environ, tmp_path, ["--no-session"], plant="pi_rpc.packages.collect")
    assert unwanted(loaded) == ["pi_rpc.packages", "pi_rpc.packages.collect"]
